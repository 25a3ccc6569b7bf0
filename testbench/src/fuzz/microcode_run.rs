//! Fuzz target: random microcode loaded through the stream and run for a bounded number of
//! cycles.
//!
//! The input chooses up to 24 store writes over the booted standard microcode:
//! microinstructions (raw, with illegal fields; legal ones; self-loops; jumps anywhere),
//! dispatch entries and flow-control constants. They are loaded on the fly as the seed
//! prescribes (NOOP, NOOP, RMODEON, MCWRITE..., NOOP, RMODEOFF), then some commands run.
//! What must hold: the reload writes every word (RMode runs no microcode); the run stops by
//! itself or at its bound ([`super::check_run`]); and where the input plants a command
//! whose dispatch entry leads to an illegal microinstruction, the IGC faults there, and to
//! a microinstruction that jumps to itself, the IGC is reported stuck there.

use super::bytes::Bytes;
use crate::Testbench;
use pp5_rtl::igc::microinstruction::{QEE_OP, SEQ, TARGET};
use pp5_rtl::igc::store::{
    CONTROL_STORE_UINSTS, DISPATCH_BASE, DISPATCH_ENTRIES, DISPATCH_VALID, FC_CONST_BASE,
    STORE_WORDS,
};
use pp5_rtl::igc::IgcState;
use pp5_sim::engine::{RingMessage, StopReason};
use pp5_sim::stream::{Message, Port, Stream};

/// Cycles the commands may run after the reload.
pub const CYCLE_BOUND: u64 = 60_000;

/// Commands run after the reload (text, standard table), chosen by the input (and by the
/// reload proptest in testbench/tests/robustness.rs).
pub const COMMANDS: [&str; 12] = [
    "SETENABS",
    "CLRENABS",
    "CLEAR 0 8",
    "SET 8 8",
    "CPY 16 0 16",
    "SCAIntoMEM_S1 0 16 77",
    "MEMgtSCA_S1 0 8 3",
    "INC 0 0 8",
    "MEMplusMEM 32 0 8 8 8",
    "NOOP",
    "INDON",
    "SCAIntoMEM_TBL 40 8 1 2 3",
];

/// A microinstruction written at `pc`, as the input chooses.
fn uinst(r: &mut Bytes, pc: u32) -> [u32; 4] {
    let mut w = [r.u32(), r.u32(), r.u32(), r.u32()];
    match r.below(6) {
        // Raw: reserved codes and illegal fields likely.
        0 => {}
        // A jump to itself with nothing else to do.
        1 => {
            w = [0; 4];
            SEQ.put(&mut w, 1);
            TARGET.put(&mut w, pc);
        }
        // A jump anywhere, conditional or not, with random side effects.
        2 => {
            QEE_OP.put(&mut w, r.below(4));
            w[2] = (w[2] & !0xf) | r.pick(&[1, 2, 4, 5, 6, 8]);
            w[3] = 0;
        }
        // Mostly legal: reserved fields cleared, a legal sequencer operation.
        _ => {
            w[0] &= 0x1fff_ffff;
            w[1] &= 0x001f_ffff;
            w[2] = (w[2] & !0x800f) | r.below(9);
            if r.bool() {
                w[3] = 0;
            }
        }
    }
    w
}

/// A command planted by the input: its dispatch entry leads to `pc`, which holds an illegal
/// microinstruction or a jump to itself.
#[derive(Clone, Copy, Debug)]
enum Plant {
    Illegal { cmd: u8, pc: u16 },
    SelfLoop { cmd: u8, pc: u16 },
}

pub fn check(data: &[u8]) {
    let mut r = Bytes::new(data);
    let base = super::booted();
    let mut tb = base.clone();
    let boot_writes = tb.sim.board.igc.store.writes;
    let used = tb.image.uinsts.max(1);
    let mut words = store_writes(&mut r, used);
    let plant = choose_plant(&mut r, &tb);
    if let Some(p) = plant {
        plant_words(&mut r, p, &mut words);
    }
    let image = pp5_sim::asm::microcode::McImage {
        words: words.clone(),
        ..tb.image.clone()
    };
    for body in image.boot_messages(1023) {
        tb.sim.queue(RingMessage { dest: 0, body });
    }
    let mut stream = Stream::default();
    if let Some(Plant::Illegal { cmd, .. } | Plant::SelfLoop { cmd, .. }) = plant {
        stream
            .messages
            .push(Message::new(Port::Igc, 0, vec![u32::from(cmd)]));
    }
    // A planted command runs alone (a command waiting behind a stuck IGC would time out
    // after 64K Ring cycles, past the bound); otherwise some commands run.
    let n = if plant.is_some() { 0 } else { r.below(8) };
    let text: String = (0..n).map(|_| format!("{}\n", r.pick(&COMMANDS))).collect();
    stream.append(tb.parse(&text));
    let start = tb.sim.board.cycle;
    let first = tb.sim.commands.len();
    let out = tb.run(&stream, CYCLE_BOUND);
    // The reload itself always completes: every word written.
    assert_eq!(
        tb.sim.board.igc.store.writes,
        boot_writes + words.len() as u64,
        "the reload did not write every word"
    );
    super::check_run(&tb, &out.stop, start, CYCLE_BOUND);
    check_planted(&tb, &out.stop, plant, first);
}

/// The store writes the input chooses (`used`: microinstructions the booted image uses).
fn store_writes(r: &mut Bytes, used: u32) -> Vec<(u32, u32)> {
    let mut words: Vec<(u32, u32)> = Vec::new();
    for _ in 0..=r.below(24) {
        match r.below(8) {
            0..=4 => {
                let pc = if r.below(4) == 0 {
                    r.below(CONTROL_STORE_UINSTS as u32)
                } else {
                    r.below(used)
                };
                for (k, v) in uinst(r, pc).into_iter().enumerate() {
                    words.push((4 * pc + k as u32, v));
                }
            }
            5 | 6 => {
                let cmd = r.below(DISPATCH_ENTRIES as u32);
                let entry = r.below(CONTROL_STORE_UINSTS as u32);
                let valid = if r.below(4) == 0 { 0 } else { DISPATCH_VALID };
                words.push((DISPATCH_BASE as u32 + cmd, valid | entry));
            }
            _ => {
                let a = FC_CONST_BASE as u32 + r.below((STORE_WORDS - FC_CONST_BASE) as u32);
                words.push((a, r.u32()));
            }
        }
    }
    words
}

/// The planted command: one of the standard table's microcoded commands.
fn choose_plant(r: &mut Bytes, tb: &Testbench) -> Option<Plant> {
    let cmds: Vec<u8> = tb
        .image
        .table
        .commands
        .iter()
        .map(|c| c.cmd)
        .filter(|&c| (2..0xf8).contains(&c))
        .collect();
    match (r.below(3), cmds.is_empty()) {
        (1, false) => Some(Plant::Illegal {
            cmd: r.pick(&cmds),
            pc: r.below(CONTROL_STORE_UINSTS as u32) as u16,
        }),
        (2, false) => Some(Plant::SelfLoop {
            cmd: r.pick(&cmds),
            pc: r.below(CONTROL_STORE_UINSTS as u32) as u16,
        }),
        _ => None,
    }
}

/// The store writes of `plant`: its microinstruction and its dispatch entry.
fn plant_words(r: &mut Bytes, plant: Plant, words: &mut Vec<(u32, u32)>) {
    let (Plant::Illegal { cmd, pc } | Plant::SelfLoop { cmd, pc }) = plant;
    let mut w = [0u32; 4];
    match plant {
        Plant::Illegal { .. } => SEQ.put(&mut w, 9 + r.below(7)),
        _ => {
            SEQ.put(&mut w, 1);
            TARGET.put(&mut w, u32::from(pc));
        }
    }
    for (k, v) in w.into_iter().enumerate() {
        words.push((4 * u32::from(pc) + k as u32, v));
    }
    words.push((
        DISPATCH_BASE as u32 + u32::from(cmd),
        DISPATCH_VALID | u32::from(pc),
    ));
}

/// The planted command meets its microinstruction only if the IGC dispatched it (the
/// random microcode may stop the IGC before: at PC 0, where RMODEOFF leaves it, say).
/// `first`: the first command record of the run.
fn check_planted(tb: &Testbench, stop: &StopReason, plant: Option<Plant>, first: usize) {
    let planted_cmd = match plant {
        Some(Plant::Illegal { cmd, .. } | Plant::SelfLoop { cmd, .. }) => Some(cmd),
        None => None,
    };
    let dispatched = planted_cmd.is_some_and(|cmd| {
        tb.sim.commands[first..]
            .iter()
            .any(|c| c.opcode & 0xff == u32::from(cmd))
    });
    let igc = &tb.sim.board.igc;
    if !dispatched {
        return;
    }
    match plant {
        Some(Plant::Illegal { pc, .. }) => {
            assert!(
                matches!(stop, StopReason::Stuck(_)) && igc.state == IgcState::Fault,
                "an illegal microinstruction at PC {pc} did not fault: {:?}, IGC {:?} at PC {}",
                stop,
                igc.state,
                igc.pc
            );
            assert_eq!(igc.pc, pc);
        }
        Some(Plant::SelfLoop { pc, .. }) => {
            assert!(
                matches!(stop, StopReason::Stuck(_)) && igc.state == IgcState::Run,
                "a jump to itself at PC {pc} is not stuck: {:?}, IGC {:?} at PC {}",
                stop,
                igc.state,
                igc.pc
            );
            assert_eq!(igc.pc, pc);
        }
        None => {}
    }
}
