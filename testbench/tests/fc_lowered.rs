//! Random structured programs (the `fc_reference` generator: nested IF/ELSE, loops with
//! per-pixel trip counts incl. zero, BREAK/CONTINUE at depth, CALL/RETURN), written as
//! microcode with the flow-control constructs, booted through the stream and run on the
//! Renderer in both modes where legal. Per pixel, the leaf counters must equal the scalar
//! reference; and every leaf execution's active mask must equal the masked reference's,
//! in order (executions with no active PE left out on both sides).

use pp5_rtl::emc_array::plane::{self, ARRAY_DIM, NUM_PES};
use pp5_sim::asm::microcode::{assemble, STANDARD_SOURCE};
use pp5_sim::engine::StopReason;
use pp5_testbench::fc_program::lower;
use pp5_testbench::fc_reference::{
    data_word, leaf_counters, random_mems, run_masked, run_scalar, validate, GenConfig, PeMem,
    Program, DATA_BASE,
};
use pp5_testbench::Testbench;
use proptest::prelude::*;

fn program_strategy(cfg: GenConfig) -> impl Strategy<Value = Program> {
    pp5_testbench::fc_program_strategy!(cfg)
}

fn xy(p: usize) -> (usize, usize) {
    (p % ARRAY_DIM, p / ARRAY_DIM)
}

fn check(p: &Program, full: bool, seed: u64) -> Result<(), TestCaseError> {
    validate(p).map_err(TestCaseError::fail)?;
    let low = match lower(p, full) {
        Ok(l) => l,
        Err(e) => return Err(TestCaseError::reject(e)),
    };
    let src = format!("{STANDARD_SOURCE}\n{}", low.source);
    let img = assemble(&src, "<fc program>")
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", low.source)))?;
    let mut tb = Testbench::boot(img);
    let mems = random_mems(NUM_PES, seed);
    for (k, m) in mems.iter().enumerate() {
        let (x, y) = xy(k);
        tb.poke(x, y, DATA_BASE, 64, data_word(m));
    }
    // Leaf executions on the hardware: the first microinstruction of a leaf, and the
    // active mask while it runs.
    let labels: Vec<(u32, u8)> = low
        .leaf_ids
        .iter()
        .enumerate()
        .filter_map(|(n, &id)| {
            tb.image
                .labels
                .iter()
                .find(|(l, _)| *l == format!("leaf_{n}"))
                .map(|&(_, a)| (a, id))
        })
        .collect();
    let mut hw: Vec<(u8, Vec<bool>)> = Vec::new();
    let mut prev_pc = u16::MAX;
    let stream = tb.parse("FCPROG\n");
    let o = tb.run_with(&stream, 2_000_000, |sim| {
        let igc = &sim.board.igc;
        if igc.last_pc != prev_pc {
            prev_pc = igc.last_pc;
            if let Some(&(_, id)) = labels.iter().find(|(a, _)| *a == igc.last_pc as u32) {
                let act = &igc.fc.pe.active;
                let mask: Vec<bool> = (0..NUM_PES)
                    .map(|k| {
                        let (x, y) = xy(k);
                        plane::get(act, x, y)
                    })
                    .collect();
                if mask.iter().any(|&b| b) {
                    hw.push((id, mask));
                }
            }
        }
    });
    prop_assert_eq!(&o.stop, &StopReason::Done, "{}", low.source);
    prop_assert_eq!(
        tb.status() & (1 << 4 | 1 << 29),
        0,
        "{:?}",
        tb.sim.diagnostics
    );

    // The scalar reference, pixel by pixel.
    for (k, m) in mems.iter().enumerate() {
        let mut want: PeMem = *m;
        run_scalar(p, &mut want);
        let (x, y) = xy(k);
        let got: Vec<u8> = (0..8).map(|l| tb.peek(x, y, 8 * l, 8) as u8).collect();
        prop_assert_eq!(
            got.as_slice(),
            &leaf_counters(&want)[..],
            "pixel ({}, {}) of\n{}\n{}",
            x,
            y,
            p,
            low.source
        );
    }
    // The masked reference: the same leaf executions with the same masks.
    let mut all = mems.clone();
    let trace = run_masked(p, &mut all);
    prop_assert_eq!(hw.len(), trace.len(), "leaf executions of\n{}", p);
    for (n, (h, r)) in hw.iter().zip(&trace).enumerate() {
        prop_assert_eq!(h.0, r.0, "leaf execution {} of\n{}", n, p);
        prop_assert!(
            h.1 == r.1,
            "active mask of leaf execution {} (leaf {}) of\n{}",
            n,
            h.0,
            p
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn full_mode_programs_match_the_reference(p in program_strategy(GenConfig::full()), seed in any::<u64>()) {
        check(&p, true, seed)?;
    }

    #[test]
    fn partial_mode_programs_match_the_reference(p in program_strategy(GenConfig::partial()), seed in any::<u64>()) {
        check(&p, false, seed)?;
        // The same programs in full mode behave the same.
        check(&p, true, seed)?;
    }
}
