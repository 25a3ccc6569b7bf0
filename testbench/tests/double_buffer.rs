//! The double-buffered workload (`testbench/fixtures/streams/double_buffer.pp5s`): the IGC
//! renders tiles into pixel memory while the BS port streams the previous ones out of the
//! backing store, synchronised by the semaphores as the seed's usage notes describe
//! (§III.4.1-4, §III.4.2.5.2, §III.4.2.5.5).
//!
//! Checked: every tile arrives on the Ring complete and correct (so no transmission read a
//! sector before its transfer finished, and no transfer overwrote a sector before it was
//! sent), the semaphores end where the protocol says, and the cycle report shows the blocks
//! working at the same time.

use pp5_rtl::cause::Cause;
use pp5_rtl::renderer::MsgKind;
use pp5_rtl::ring::PortId;
use pp5_sim::engine::StopReason;
use pp5_sim::report::Summary;
use pp5_sim::session::RunSpec;
use pp5_testbench::support::{self, wave_changes, Scratch};

const FIXTURE: &str = include_str!("../fixtures/streams/double_buffer.pp5s");
/// Tiles in the fixture, the Ring address they go to, and the value of pixel (x, y) of tile
/// k (the fixture's QEE ramp).
const TILES: usize = 4;
const DEST: u32 = 0x40;
fn tile_value(k: usize, x: usize, y: usize) -> u32 {
    (x + 128 * y + 16384 * k) as u32
}

fn run_fixture() -> (Summary, pp5_sim::engine::Sim) {
    let image = pp5_sim::asm::microcode::standard();
    let stream = pp5_sim::stream::text::parse(FIXTURE, "double_buffer.pp5s", &image.table)
        .unwrap_or_else(|e| panic!("{e}"));
    let r = support::run(support::spec(&image, &stream)).expect("run");
    assert_eq!(r.stop, StopReason::Done, "{:?}", r.sim.diagnostics);
    (Summary::of(&r.sim, &r.stop), r.sim)
}

#[test]
fn every_tile_reaches_the_ring_intact_and_in_order() {
    let (s, sim) = run_fixture();
    assert!(s.error_bits.is_empty(), "{:?}", s.error_bits);
    assert!(
        sim.diagnostics.iter().all(|d| d.level != "warning"),
        "no access to bits 0-31 during a transfer: {:?}",
        sim.diagnostics
    );
    let data: Vec<_> = sim.tx.iter().filter(|m| m.kind == MsgKind::Data).collect();
    assert_eq!(data.len(), TILES);
    // The protocol's order: tile k's BSSTORE finished (VBSlater V'd the BS semaphore, BS_PBS
    // passed) before its transmission began, and the next store into the same sector began
    // only after that transmission ended (BS_VIGC V'd the IGC semaphore, PIGC passed).
    let stores: Vec<_> = sim.transfers.iter().filter(|t| t.dir == "STORE").collect();
    assert_eq!(stores.len(), TILES);
    for (k, (t, m)) in stores.iter().zip(&data).enumerate() {
        assert_eq!(t.sector as usize, 10 + k % 2);
        let done = t.end.expect("finished");
        assert!(
            done < m.start,
            "tile {k}: stored by {done}, sent from {}",
            m.start
        );
        if let Some(next) = stores.get(k + 2) {
            assert!(
                m.end < next.start,
                "sector {} reused at {} while sent until {}",
                t.sector,
                next.start,
                m.end
            );
        }
    }
    for (k, m) in data.iter().enumerate() {
        assert_eq!(m.port, PortId::Bs);
        assert_eq!(m.dest(), DEST);
        assert_eq!(m.words.len(), 1 + 128 * 128, "tile {k}: a whole sector");
        for (i, &w) in m.words[1..].iter().enumerate() {
            let (x, y) = (i % 128, i / 128);
            assert_eq!(w, tile_value(k, x, y), "tile {k}, pixel ({x},{y})");
        }
        // One word per 20 MHz cycle: 16,385 words take 32,769 cycles of 40 MHz.
        assert_eq!(m.end - m.start, 2 * 16384, "tile {k} at the full Ring rate");
    }
    // The final status message: both buffers were released (IGC semaphore 2), nothing left
    // on the BS semaphore.
    let status = sim.tx.last().expect("status message");
    assert_eq!(status.kind, MsgKind::Status);
    assert_eq!(status.words[1], 0xd0e);
    assert_eq!((status.words[2] >> 8) & 0xff, 0, "BS semaphore");
    assert_eq!((status.words[2] >> 16) & 0xff, 2, "IGC semaphore");
    assert_eq!(sim.board.bs_sem.count, 0);
    assert_eq!(sim.board.igc_sem.count, 2);
}

#[test]
fn the_cycle_report_shows_the_overlap() {
    let (s, sim) = run_fixture();
    let c = &s.causes;
    // The transfers ran beside the IGC's rendering of the next tile, and the transmissions
    // beside both.
    assert_eq!(
        c.transfer.get(Cause::Executing),
        4 * 4096,
        "four sector transfers"
    );
    assert!(c.overlap.igc_and_transfer > 2000, "{:?}", c.overlap);
    assert!(c.overlap.igc_and_bs_port > 1000, "{:?}", c.overlap);
    assert!(
        c.overlap.transfer_and_bs_port >= 3 * 4096,
        "{:?}",
        c.overlap
    );
    // The Ring is the bottleneck: the BS port transmits (4 × 32,770 cycles) while the IGC
    // waits in PIGC for a free buffer; run serially, the work would take longer than it did.
    let bs_exec = c.bs_port.get(Cause::Executing);
    assert!(bs_exec >= 4 * 32_770, "{bs_exec}");
    assert!(c.igc.get(Cause::SemWait) > 50_000, "{:?}", c.igc);
    assert!(
        c.igc.get(Cause::XferStall) > 0,
        "BSWAIT waited: {:?}",
        c.igc
    );
    let serial = c.igc.get(Cause::Executing) + bs_exec + c.transfer.get(Cause::Executing);
    assert!(s.cycles < serial, "{} cycles vs {serial} serial", s.cycles);
    // Every block's cycles are all accounted for.
    for (name, cc) in s.block_causes() {
        assert_eq!(cc.total(), s.cycles, "{name}");
    }
    // The PIGCs are where the IGC waited; their records say so.
    let pigc_wait: u64 = sim
        .user_commands()
        .filter(|r| r.name == "PIGC")
        .map(|r| r.causes.get(Cause::SemWait))
        .sum();
    assert_eq!(pigc_wait, c.igc.get(Cause::SemWait));
    insta::assert_snapshot!(report_tables(&s));
}

/// The BS command table and the cause table of the run (the IGC command rows are the
/// ordinary commands; their cycles are covered by cycles_snapshot.rs).
fn report_tables(s: &Summary) -> String {
    let table = s.table(0);
    let start = table
        .find("     #       start   cycles  executing")
        .unwrap_or(0);
    let end = table.find("\nRing messages sent:").unwrap_or(table.len());
    table[start..end].to_string()
}

/// The signals the example view (`scripts/double-buffer-view.sh`) selects.
const VIEW_SCOPES: &[&str] = &[
    "renderer.status",
    "renderer.igc.state",
    "renderer.igc.cmd",
    "renderer.bs_port.parser",
    "renderer.bs_port.rxfifo.level",
    "renderer.bs_port.tx.TxReady",
    "renderer.bs_port.tx.busy",
    "renderer.bs_port.tx.kind",
    "renderer.bs_sem",
    "renderer.igc_sem",
    "renderer.transfer.state",
    "renderer.transfer.sector",
    "renderer.transfer.scanline",
    "renderer.transfer.vbs_later",
    "renderer.transfer.completed",
    "renderer.igc_port.messages",
    "renderer.igc_port.tx.kind",
];

/// The signal names a `.gtkw` lists (ranges dropped), and its group names.
/// The signals of a `.gtkw` and its groups in order, each with whether it starts closed.
fn gtkw_signals_and_groups(text: &str) -> (Vec<String>, Vec<(String, bool)>) {
    let mut sigs = Vec::new();
    let mut groups = Vec::new();
    let mut next_group = None;
    for line in text.lines() {
        if let Some(flags) = line.strip_prefix('@') {
            next_group = match flags {
                "800200" => Some(false),
                "c00200" => Some(true),
                _ => None,
            };
        } else if let Some(name) = line.strip_prefix('-') {
            if let Some(closed) = next_group {
                groups.push((name.to_string(), closed));
            }
        } else if !line.starts_with(['[', '*']) && !line.is_empty() {
            sigs.push(line.split('[').next().unwrap_or(line).to_string());
        }
    }
    (sigs, groups)
}

#[test]
fn the_waveform_groups_ports_semaphores_and_transfer_and_reads_back() {
    let dir = Scratch::new();
    let vcd = dir.path("db.vcd");
    let image = pp5_sim::asm::microcode::standard();
    let stream = pp5_sim::stream::text::parse(FIXTURE, "double_buffer.pp5s", &image.table)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut wave = pp5_sim::session::WaveSpec::new(&vcd);
    wave.cfg.scopes = VIEW_SCOPES.iter().map(|s| s.to_string()).collect();
    wave.view_cycles = 142_000;
    let r = support::run(RunSpec {
        wave: Some(wave),
        ..support::spec(&image, &stream)
    })
    .expect("run");
    assert_eq!(r.stop, StopReason::Done);

    // The save file: one group per block, every listed signal in the waveform.
    let gtkw = std::fs::read_to_string(dir.path("db.gtkw")).expect("gtkw");
    let (sigs, groups) = gtkw_signals_and_groups(&gtkw);
    // The ports, semaphores and transfer were selected (--scope): their groups are open.
    for g in [
        "renderer.bs_port.parser",
        "renderer.bs_port.tx",
        "renderer.bs_sem",
        "renderer.igc_sem",
        "renderer.transfer",
        "renderer.igc_port.messages",
    ] {
        assert!(
            groups.contains(&(g.to_string(), false)),
            "group {g} in {groups:?}"
        );
    }
    let mut w = wellen::simple::read(&vcd).expect("wellen reads the VCD");
    for s in &sigs {
        let parts: Vec<&str> = s.split('.').collect();
        let (name, scopes) = parts.split_last().expect("path");
        assert!(
            w.hierarchy().lookup_var(scopes, name).is_some(),
            "{s} listed in the .gtkw but not in the waveform"
        );
    }

    // The semaphores and the transfer in the waveform tell the protocol's story: the IGC
    // semaphore ends at 2 (both buffers free), each BSSTORE shows as STORE with its sector,
    // and the BS semaphore is V'd once per tile (VBSlater) and P'd once per tile (BS_PBS).
    let ps = pp5_rtl::clock::CYCLE_PS;
    let igc_sem = wave_changes(&mut w, "renderer.igc_sem.count");
    assert_eq!(igc_sem.last().map(|c| c.1.as_str()), Some("00000010"));
    let states = wave_changes(&mut w, "renderer.transfer.state");
    let stores: Vec<u64> = states
        .iter()
        .filter(|c| c.1 == "STORE")
        .map(|c| c.0 / ps)
        .collect();
    let starts: Vec<u64> = r.sim.transfers.iter().map(|t| t.start + 1).collect();
    assert_eq!(
        stores, starts,
        "STORE shows from the cycle after each start"
    );
    let bs_v = wave_changes(&mut w, "renderer.bs_sem.v");
    assert_eq!(bs_v.iter().filter(|c| c.1 == "01").count(), TILES);
    let bs_p = wave_changes(&mut w, "renderer.bs_sem.p");
    assert_eq!(bs_p.iter().filter(|c| c.1 == "1").count(), TILES);

    // The committed example (scripts/double-buffer-view.sh) is the same view, as FST.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = root.join("waves/examples/double_buffer.fst");
    let mut fst = wellen::simple::read(&example).expect("wellen reads the example FST");
    let ex_gtkw =
        std::fs::read_to_string(root.join("waves/examples/double_buffer.gtkw")).expect("gtkw");
    let (ex_sigs, _) = gtkw_signals_and_groups(&ex_gtkw);
    assert_eq!(ex_sigs, sigs, "the example lists the same signals");
    assert!(ex_gtkw.contains("[dumpfile] \"double_buffer.fst\""));
    let ex_sem = wave_changes(&mut fst, "renderer.igc_sem.count");
    assert_eq!(ex_sem.last().map(|c| c.1.as_str()), Some("00000010"));
}
