//! Tests of the flow-control reference side (`pp5_testbench::fc_reference`): the masked SIMD
//! interpreter against the scalar one on random structured programs, directed programs with
//! exact leaf counters and traces, the static limit helpers, and the generator's promises.

use pp5_testbench::fc_reference::*;
use proptest::prelude::*;

/// The proptest strategy of programs (the macro expands here, where proptest is available).
fn program_strategy(cfg: GenConfig) -> impl Strategy<Value = Program> {
    pp5_testbench::fc_program_strategy!(cfg)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

use Stmt::{Break, Call, Continue, Leaf};

fn if_(cond: Cond, then: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond,
        then,
        els: None,
    }
}

fn if_else(cond: Cond, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond,
        then,
        els: Some(els),
    }
}

fn lp(count: u8, init: u8, step: i8, body: Vec<Stmt>) -> Stmt {
    Stmt::Loop {
        count,
        init,
        step,
        body,
    }
}

fn rep(count: u8, body: Vec<Stmt>) -> Stmt {
    Stmt::Rep { count, body }
}

/// Data bit `i` (`mem[DATA_BASE + i]`).
fn d(i: usize) -> usize {
    DATA_BASE + i
}

/// Bit `b` of the counter of leaf `id`.
fn counter_bit(id: usize, b: usize) -> usize {
    LEAF_BASE + LEAF_BITS * id + b
}

/// Memories with the given data words (counters zero).
fn mems_with_data(data: &[u64]) -> Vec<PeMem> {
    data.iter()
        .map(|&w| {
            let mut m = zero_mem();
            set_data_word(&mut m, w);
            m
        })
        .collect()
}

/// A mask from a string of '0'/'1', PE 0 first.
fn mask(s: &str) -> Vec<bool> {
    s.chars().map(|c| c == '1').collect()
}

fn trace(entries: &[(u8, &str)]) -> Vec<(u8, Vec<bool>)> {
    entries.iter().map(|&(id, m)| (id, mask(m))).collect()
}

/// First `n` leaf counters of every PE.
fn counters(mems: &[PeMem], n: usize) -> Vec<Vec<u8>> {
    mems.iter()
        .map(|m| leaf_counters(m)[..n].to_vec())
        .collect()
}

/// Check masked execution against scalar execution; returns (final memories, trace) of the
/// masked run. Memories must match `run_scalar` per PE, the trace restricted to each PE must
/// be its scalar leaf sequence, and no trace entry may have an empty mask.
fn run_checked(p: &Program, init: &[PeMem]) -> (Vec<PeMem>, Vec<(u8, Vec<bool>)>) {
    let mut masked = init.to_vec();
    let tr = run_masked(p, &mut masked);
    for (i, m0) in init.iter().enumerate() {
        let mut s = *m0;
        let leaves = run_scalar_leaves(p, &mut s);
        let mut s2 = *m0;
        run_scalar(p, &mut s2);
        assert_eq!(s, s2, "run_scalar vs run_scalar_leaves, PE {i}");
        assert!(
            s == masked[i],
            "PE {i}: masked memory differs from scalar\nscalar counters {:?}\nmasked counters {:?}\n{p}",
            leaf_counters(&s),
            leaf_counters(&masked[i])
        );
        let proj: Vec<u8> = tr.iter().filter(|(_, m)| m[i]).map(|(id, _)| *id).collect();
        assert_eq!(proj, leaves, "PE {i}: trace projection differs\n{p}");
        assert_eq!(data_word(&s), data_word(m0), "PE {i}: data region written");
    }
    for (k, (_, m)) in tr.iter().enumerate() {
        assert_eq!(m.len(), init.len());
        assert!(m.iter().any(|&b| b), "trace entry {k} has an empty mask");
    }
    (masked, tr)
}

// ---------------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------------

const PES: usize = 64;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn masked_equals_scalar_full(p in program_strategy(GenConfig::full()), seed in any::<u64>()) {
        prop_assert!(full_mode_legal(&p), "{p}");
        run_checked(&p, &random_mems(PES, seed));
    }

    #[test]
    fn masked_equals_scalar_partial(p in program_strategy(GenConfig::partial()), seed in any::<u64>()) {
        prop_assert!(partial_mode_legal(&p), "{p}");
        run_checked(&p, &random_mems(PES, seed));
    }

    #[test]
    fn masked_equals_scalar_deep_ifs(
        p in program_strategy(GenConfig { max_if_depth: 12, max_stmts: 80, ..GenConfig::full() }),
        seed in any::<u64>(),
    ) {
        prop_assert!(full_mode_legal(&p), "{p}");
        run_checked(&p, &random_mems(PES, seed));
    }

    #[test]
    fn strategy_respects_limits(
        p in program_strategy(GenConfig::full()),
        q in program_strategy(GenConfig::partial()),
    ) {
        check_generated(&GenConfig::full(), &p);
        check_generated(&GenConfig::partial(), &q);
    }
}

// ---------------------------------------------------------------------------------------------
// Directed tests
// ---------------------------------------------------------------------------------------------

#[test]
fn if_else_split() {
    let p = Program::new(vec![
        if_else(Cond::bit(d(0)), vec![Leaf(0)], vec![Leaf(1)]),
        Leaf(2),
        if_(Cond::not(d(0)), vec![Leaf(3)]),
    ]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[1, 0, 1, 0]));
    assert_eq!(
        tr,
        trace(&[(0, "1010"), (1, "0101"), (2, "1111"), (3, "0101")])
    );
    assert_eq!(
        counters(&mems, 4),
        vec![
            vec![1, 0, 1, 0],
            vec![0, 1, 1, 1],
            vec![1, 0, 1, 0],
            vec![0, 1, 1, 1]
        ]
    );
    assert!(partial_mode_legal(&p));
    assert_eq!(if_depth(&p), 1);
}

#[test]
fn nested_if_four_deep() {
    // PE i has data word i: bit b of i decides the If at depth b + 1.
    let p = Program::new(vec![
        if_(
            Cond::bit(d(0)),
            vec![
                Leaf(0),
                if_else(
                    Cond::bit(d(1)),
                    vec![
                        Leaf(1),
                        if_(
                            Cond::bit(d(2)),
                            vec![
                                Leaf(2),
                                if_else(Cond::bit(d(3)), vec![Leaf(3)], vec![Leaf(4)]),
                            ],
                        ),
                        Leaf(5),
                    ],
                    vec![Leaf(6)],
                ),
            ],
        ),
        Leaf(7),
    ]);
    let data: Vec<u64> = (0..16).collect();
    let (mems, tr) = run_checked(&p, &mems_with_data(&data));
    let m = |f: &dyn Fn(u64) -> bool| -> Vec<bool> { data.iter().map(|&i| f(i)).collect() };
    let expected = vec![
        (0, m(&|i| i & 1 == 1)),
        (1, m(&|i| i & 3 == 3)),
        (2, m(&|i| i & 7 == 7)),
        (3, m(&|i| i == 15)),
        (4, m(&|i| i == 7)),
        (5, m(&|i| i & 3 == 3)),
        (6, m(&|i| i & 3 == 1)),
        (7, m(&|_| true)),
    ];
    assert_eq!(tr, expected);
    for (i, c) in counters(&mems, 8).iter().enumerate() {
        let i = i as u64;
        let want: Vec<u8> = expected
            .iter()
            .map(|(_, mk)| mk[i as usize] as u8)
            .collect();
        assert_eq!(c, &want, "PE {i}");
    }
    assert_eq!(if_depth(&p), 4);
    assert!(partial_mode_legal(&p));
    // One more level is beyond partial mode (branch counter 0..3) but fine in full mode.
    let deeper = Program::new(vec![if_(Cond::bit(d(4)), p.main.clone())]);
    assert_eq!(if_depth(&deeper), 5);
    assert!(!partial_mode_legal(&deeper));
    assert!(full_mode_legal(&deeper));
}

#[test]
fn loop_count_zero_never_runs_body() {
    let p = Program::new(vec![
        lp(0, 0, 1, vec![Leaf(0), Break]),
        rep(0, vec![Leaf(1)]),
        lp(3, 0, 1, vec![rep(0, vec![Leaf(2)]), Leaf(3)]),
        Leaf(4),
    ]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[0, u64::MAX]));
    assert_eq!(tr, trace(&[(3, "11"), (3, "11"), (3, "11"), (4, "11")]));
    assert_eq!(counters(&mems, 5), vec![vec![0, 0, 0, 3, 1]; 2]);
}

#[test]
fn break_at_depth_two_with_per_pe_exit_iterations() {
    // Loop aL = 0..5: L0; if mem[64+aL] { if mem[72] { break } L2 } L1. After the loop L3.
    // PE0: never breaks. PE1: breaks at aL = 2. PE2: breaks at aL = 0. PE3: the outer
    // condition holds at aL = 2 but the inner one never, so it runs L2 once and stays.
    let p = Program::new(vec![
        lp(
            5,
            0,
            1,
            vec![
                Leaf(0),
                if_(
                    Cond::al(d(0)),
                    vec![if_(Cond::bit(d(8)), vec![Break]), Leaf(2)],
                ),
                Leaf(1),
            ],
        ),
        Leaf(3),
    ]);
    let data = [0, (1 << 2) | (1 << 8), 1 | (1 << 8), 1 << 2];
    let (mems, tr) = run_checked(&p, &mems_with_data(&data));
    assert_eq!(
        tr,
        trace(&[
            (0, "1111"),
            (1, "1101"),
            (0, "1101"),
            (1, "1101"),
            (0, "1101"),
            (2, "0001"),
            (1, "1001"),
            (0, "1001"),
            (1, "1001"),
            (0, "1001"),
            (1, "1001"),
            (3, "1111"),
        ])
    );
    assert_eq!(
        counters(&mems, 4),
        vec![
            vec![5, 5, 0, 1],
            vec![3, 2, 0, 1],
            vec![1, 0, 0, 1],
            vec![5, 5, 1, 1]
        ]
    );
    assert_eq!(if_depth(&p), 2);
    assert_eq!(loop_depth(&p), 1);
}

#[test]
fn continue_skips_rest_of_iteration_only() {
    // PE0 continues at aL = 0 and 2 (data bits 0 and 2), PE1 never.
    let p = Program::new(vec![
        lp(
            4,
            0,
            1,
            vec![
                Leaf(0),
                if_(Cond::al(d(0)), vec![Leaf(2), Continue, Leaf(3)]),
                Leaf(1),
            ],
        ),
        Leaf(4),
    ]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[0b101, 0]));
    assert_eq!(
        tr,
        trace(&[
            (0, "11"),
            (2, "10"),
            (1, "01"),
            (0, "11"),
            (1, "11"),
            (0, "11"),
            (2, "10"),
            (1, "01"),
            (0, "11"),
            (1, "11"),
            (4, "11"),
        ])
    );
    assert_eq!(
        counters(&mems, 5),
        vec![vec![4, 2, 2, 0, 1], vec![4, 4, 0, 0, 1]]
    );
}

#[test]
fn continue_and_break_on_counter_bits_in_rep() {
    // rep 6 { L0; if leaf0.bit0 { continue } if mem[64] { break } L1 }
    // Both PEs continue when their L0 count is odd; PE0 (data bit 0) breaks at the first
    // even count, PE1 runs all six iterations.
    let p = Program::new(vec![rep(
        6,
        vec![
            Leaf(0),
            if_(Cond::bit(counter_bit(0, 0)), vec![Continue]),
            if_(Cond::bit(d(0)), vec![Break]),
            Leaf(1),
        ],
    )]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[1, 0]));
    assert_eq!(
        tr,
        trace(&[
            (0, "11"),
            (0, "11"),
            (1, "01"),
            (0, "01"),
            (0, "01"),
            (1, "01"),
            (0, "01"),
            (0, "01"),
            (1, "01"),
        ])
    );
    assert_eq!(counters(&mems, 2), vec![vec![2, 0], vec![6, 3]]);
}

#[test]
fn rep_inside_loop_sees_outer_al() {
    // loop aL = 2, 5, 8 { rep 2 { if mem[64+aL] { L0 } else { L1 } } }
    let p = Program::new(vec![lp(
        3,
        2,
        3,
        vec![rep(
            2,
            vec![if_else(Cond::al(d(0)), vec![Leaf(0)], vec![Leaf(1)])],
        )],
    )]);
    let data = [(1 << 2) | (1 << 8), 1 << 5];
    let (mems, tr) = run_checked(&p, &mems_with_data(&data));
    let a = [(0, "10"), (1, "01")];
    let b = [(0, "01"), (1, "10")];
    let expected: Vec<(u8, &str)> = [a, a, b, b, a, a].concat();
    assert_eq!(tr, trace(&expected));
    assert_eq!(counters(&mems, 2), vec![vec![4, 2], vec![2, 4]]);
}

#[test]
fn rep_outside_any_loop_has_al_zero() {
    let p = Program::new(vec![rep(2, vec![if_(Cond::al(d(0)), vec![Leaf(2)])])]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[1, 2]));
    assert_eq!(tr, trace(&[(2, "10"), (2, "10")]));
    assert_eq!(counters(&mems, 3), vec![vec![0, 0, 2], vec![0, 0, 0]]);
}

#[test]
fn nested_loop_shadows_al_and_outer_al_returns() {
    // loop aL = 0, 4 {
    //   loop aL = 10, 11 { if mem[64+aL] { L0 } rep 1 { if mem[64+aL] { L2 } } }
    //   if mem[64+aL] { L1 }      // the outer aL again
    // }
    let p = Program::new(vec![lp(
        2,
        0,
        4,
        vec![
            lp(
                2,
                10,
                1,
                vec![
                    if_(Cond::al(d(0)), vec![Leaf(0)]),
                    rep(1, vec![if_(Cond::al(d(0)), vec![Leaf(2)])]),
                ],
            ),
            if_(Cond::al(d(0)), vec![Leaf(1)]),
        ],
    )]);
    // PE0: bits 10, 4. PE1: bits 11, 0, 4. Nothing at bit 12 (the inner aL after its loop).
    let data = [(1 << 10) | (1 << 4), (1 << 11) | 1 | (1 << 4)];
    let (mems, tr) = run_checked(&p, &mems_with_data(&data));
    let inner = [(0, "10"), (2, "10"), (0, "01"), (2, "01")];
    let expected: Vec<(u8, &str)> = [&inner[..], &[(1, "01")], &inner[..], &[(1, "11")]].concat();
    assert_eq!(tr, trace(&expected));
    assert_eq!(counters(&mems, 3), vec![vec![2, 1, 2], vec![2, 2, 2]]);
    assert_eq!(loop_depth(&p), 3);
}

#[test]
fn call_inside_loop() {
    // sub0: L1; if mem[65] { L2 }
    // sub1: call sub0; if mem[70+aL] { L3 }     (aL of the caller's loop)
    // main: loop aL = 0..3 { L0; if mem[64+aL] { break } call sub1 } call sub0
    let p = Program {
        main: vec![
            lp(
                3,
                0,
                1,
                vec![Leaf(0), if_(Cond::al(d(0)), vec![Break]), Call(1)],
            ),
            Call(0),
        ],
        subs: vec![
            vec![Leaf(1), if_(Cond::bit(d(1)), vec![Leaf(2)])],
            vec![Call(0), if_(Cond::al(d(6)), vec![Leaf(3)])],
        ],
    };
    // PE0: bits 2 (break at aL 2), 7 (L3 at aL 1). PE1: bits 1 (break at aL 1, and L2), 6.
    let data = [(1 << 2) | (1 << 7), (1 << 1) | (1 << 6)];
    let (mems, tr) = run_checked(&p, &mems_with_data(&data));
    assert_eq!(
        tr,
        trace(&[
            (0, "11"),
            (1, "11"),
            (2, "01"),
            (3, "01"),
            (0, "11"),
            (1, "10"),
            (3, "10"),
            (0, "10"),
            (1, "11"),
            (2, "01"),
        ])
    );
    assert_eq!(counters(&mems, 4), vec![vec![3, 3, 0, 1], vec![2, 2, 2, 1]]);
    assert_eq!(call_depth(&p), 2);
    assert_eq!(loop_depth(&p), 1);
    assert_eq!(if_depth(&p), 1);
    assert!(!partial_mode_legal(&p));
    assert!(full_mode_legal(&p));
}

#[test]
fn trace_omits_empty_masks() {
    let p = Program::new(vec![
        if_else(Cond::bit(d(0)), vec![Leaf(0)], vec![Leaf(1)]),
        if_(Cond::not(d(0)), vec![Leaf(2), lp(2, 0, 1, vec![Leaf(5)])]),
        lp(3, 0, 1, vec![if_(Cond::bit(d(0)), vec![Break]), Leaf(3)]),
        rep(2, vec![Continue, Leaf(6)]),
        Leaf(4),
    ]);
    let (mems, tr) = run_checked(&p, &mems_with_data(&[1, 1, 3]));
    assert_eq!(tr, trace(&[(0, "111"), (4, "111")]));
    assert_eq!(counters(&mems, 7), vec![vec![1, 0, 0, 0, 1, 0, 0]; 3]);
}

#[test]
fn leaf_counters_wrap_at_256() {
    let p = Program::new(vec![rep(
        5,
        vec![rep(5, vec![rep(5, vec![rep(3, vec![Leaf(7)])])])],
    )]);
    let (mems, _) = run_checked(&p, &mems_with_data(&[0]));
    assert_eq!(leaf_counter(&mems[0], 7), (375u32 % 256) as u8);
}

// ---------------------------------------------------------------------------------------------
// Static limits and validation
// ---------------------------------------------------------------------------------------------

fn nest_ifs(n: usize) -> Vec<Stmt> {
    let mut b = vec![Leaf(0)];
    for _ in 0..n {
        b = vec![if_(Cond::bit(d(0)), b)];
    }
    b
}

#[test]
fn depth_helpers_count_through_calls_and_loops() {
    // sub0: if { if { loop { leaf } } }         ifs 2, loops 1, calls 0
    // sub1: rep { call sub0 }                   ifs 2, loops 2, calls 1 (never called)
    // main: loop { if { if { call sub0 } } }    ifs 4, loops 2, calls 1
    let sub0 = vec![if_(
        Cond::bit(d(0)),
        vec![if_(Cond::bit(d(1)), vec![lp(1, 0, 1, vec![Leaf(0)])])],
    )];
    let sub1 = vec![rep(2, vec![Call(0)])];
    let main = vec![lp(
        2,
        0,
        1,
        vec![if_(
            Cond::bit(d(2)),
            vec![if_(Cond::bit(d(3)), vec![Call(0)])],
        )],
    )];
    let p = Program {
        main,
        subs: vec![sub0, sub1],
    };
    assert_eq!(
        sub_depths(&p),
        vec![
            Depths {
                ifs: 2,
                loops: 1,
                calls: 0
            },
            Depths {
                ifs: 2,
                loops: 2,
                calls: 1
            }
        ]
    );
    assert_eq!(if_depth(&p), 4);
    assert_eq!(loop_depth(&p), 2);
    assert_eq!(call_depth(&p), 1);
    assert!(!partial_mode_legal(&p));
    assert!(full_mode_legal(&p));

    // Full-mode limits.
    assert!(full_mode_legal(&Program::new(nest_ifs(32))));
    assert!(!full_mode_legal(&Program::new(nest_ifs(33))));
    let mut loops = vec![Leaf(0)];
    for k in 0..5 {
        loops = vec![rep(1, loops)];
        assert_eq!(full_mode_legal(&Program::new(loops.clone())), k < 4);
    }
    let mut subs = vec![vec![Leaf(0)]];
    for k in 1..5 {
        subs.push(vec![Call(k - 1)]);
    }
    let calls = |n: usize| Program {
        main: vec![Call(n - 1)],
        subs: subs.clone(),
    };
    assert_eq!(call_depth(&calls(4)), 4);
    assert!(full_mode_legal(&calls(4)));
    assert_eq!(call_depth(&calls(5)), 5);
    assert!(!full_mode_legal(&calls(5)));
    // Partial mode: depth 4 of Ifs, nothing else.
    assert!(partial_mode_legal(&Program::new(nest_ifs(4))));
    assert!(!partial_mode_legal(&Program::new(nest_ifs(5))));
    assert!(!partial_mode_legal(&Program::new(vec![rep(1, vec![])])));
    assert!(!partial_mode_legal(&calls(1)));
}

#[test]
fn validate_rejects_structural_errors() {
    let bad = [
        Program::new(vec![Break]),
        Program::new(vec![if_(Cond::bit(0), vec![Continue])]),
        // Break in a subroutine, even if it is called inside a loop.
        Program {
            main: vec![rep(2, vec![Call(0)])],
            subs: vec![vec![Break]],
        },
        // Recursion / forward call.
        Program {
            main: vec![Call(0)],
            subs: vec![vec![Call(0)]],
        },
        Program::new(vec![Call(0)]),
        Program::new(vec![Leaf(MAX_LEAVES as u8)]),
        Program::new(vec![if_(Cond::bit(128), vec![])]),
    ];
    for p in &bad {
        assert!(validate(p).is_err(), "accepted:\n{p}");
    }
    assert!(validate(&Program::new(vec![rep(
        1,
        vec![if_(Cond::bit(0), vec![Break])]
    )]))
    .is_ok());
}

#[test]
#[should_panic(expected = "invalid program")]
fn interpreters_refuse_invalid_programs() {
    run_masked(&Program::new(vec![Break]), &mut mems_with_data(&[0]));
}

#[test]
#[should_panic(expected = "outside mem[0..128)")]
fn al_relative_address_out_of_range_is_reported() {
    // aL = 100, then 130: mem[0 + 130] is outside the condition range.
    let p = Program::new(vec![lp(2, 100, 30, vec![if_(Cond::al(0), vec![Leaf(0)])])]);
    run_scalar(&p, &mut zero_mem());
}

// ---------------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------------

/// Lexical checks the generator promises: aL-relative conditions only inside a Loop of the
/// same body, every Loop's aL values in 0..=GEN_AL_MAX, aL-relative addresses below
/// GEN_AL_ADDR_LIMIT, absolute ones below 128.
fn check_lexical(stmts: &[Stmt], in_al_loop: bool, p: &Program) {
    for s in stmts {
        match s {
            Stmt::If { cond, then, els } => {
                if cond.al_relative {
                    assert!(in_al_loop, "aL-relative condition outside a Loop\n{p}");
                    assert!((cond.addr as usize) < GEN_AL_ADDR_LIMIT, "{p}");
                } else {
                    assert!((cond.addr as usize) < COND_ADDR_LIMIT, "{p}");
                }
                check_lexical(then, in_al_loop, p);
                if let Some(e) = els {
                    check_lexical(e, in_al_loop, p);
                }
            }
            Stmt::Loop {
                count,
                init,
                step,
                body,
            } => {
                for i in 0..*count as i32 {
                    let al = *init as i32 + i * *step as i32;
                    assert!((0..=GEN_AL_MAX as i32).contains(&al), "aL {al}\n{p}");
                }
                check_lexical(body, true, p);
            }
            Stmt::Rep { body, .. } => check_lexical(body, in_al_loop, p),
            _ => {}
        }
    }
}

/// Everything a generated program claims about itself.
fn check_generated(cfg: &GenConfig, p: &Program) {
    let cfg = cfg.clamped();
    validate(p).unwrap_or_else(|e| panic!("{e}\n{p}"));
    let dp = depths(p);
    assert!(dp.ifs <= cfg.max_if_depth, "{dp:?}\n{p}");
    assert!(dp.loops <= cfg.max_loop_depth, "{dp:?}\n{p}");
    assert!(dp.calls <= cfg.max_call_depth, "{dp:?}\n{p}");
    if cfg.partial {
        assert!(partial_mode_legal(p), "{p}");
        assert!(p.subs.is_empty());
    } else {
        assert!(full_mode_legal(p), "{p}");
        assert!(p.subs.len() <= cfg.max_subs);
    }
    let (n, leaves) = count_stmts(p);
    assert!(n <= cfg.max_stmts, "{n} statements\n{p}");
    assert!(leaves <= cfg.max_leaves, "{leaves} leaves\n{p}");
    check_lexical(&p.main, false, p);
    for s in &p.subs {
        check_lexical(s, false, p);
    }
}

#[test]
fn generator_respects_its_limits() {
    let configs = [
        GenConfig::full(),
        GenConfig::partial(),
        GenConfig {
            max_if_depth: 32,
            max_stmts: 120,
            ..GenConfig::full()
        },
        GenConfig {
            max_count: 20,
            ..GenConfig::full()
        },
        GenConfig {
            max_loop_depth: 9,
            max_call_depth: 9,
            max_if_depth: 99,
            ..GenConfig::partial()
        },
    ];
    for cfg in &configs {
        for seed in 0..300 {
            let p = random_program(cfg, seed);
            check_generated(cfg, &p);
            // Runs without tripping the address assertion.
            run_checked(&p, &random_mems(8, seed));
        }
    }
}

#[test]
fn generator_is_deterministic_and_empty_choices_give_empty_program() {
    assert_eq!(
        program_from_choices(&GenConfig::full(), &[]),
        Program::default()
    );
    assert_eq!(
        random_program(&GenConfig::full(), 42),
        random_program(&GenConfig::full(), 42)
    );
    let m = random_mems(4, 7);
    assert_eq!(m, random_mems(4, 7));
    for pe in &m {
        assert_eq!(leaf_counters(pe), [0; MAX_LEAVES]);
        assert!(pe[DATA_BASE + DATA_BITS..].iter().all(|&b| !b));
    }
    assert_ne!(data_word(&m[0]), data_word(&m[1]));
}

/// Static features seen in one program.
#[derive(Default, Debug)]
struct Features {
    loop_zero: bool,
    small_loop: bool,
    brk: bool,
    brk_deep: bool,
    cont: bool,
    rep_in_loop_al: bool,
    loop_in_loop: bool,
    call_in_loop: bool,
    if_no_else: bool,
    if_else: bool,
    sub_calls_sub: bool,
    counter_cond: bool,
    data_cond: bool,
}

fn features(stmts: &[Stmt], loops: &[bool], ifs_in_loop: usize, f: &mut Features) {
    // `loops`: enclosing loops, innermost last, true = Loop (with aL), false = Rep.
    for s in stmts {
        match s {
            Stmt::If { cond, then, els } => {
                if els.is_some() {
                    f.if_else = true;
                } else {
                    f.if_no_else = true;
                }
                let a = cond.addr as usize;
                if cond.al_relative && loops.last() == Some(&false) {
                    f.rep_in_loop_al = true;
                }
                if !cond.al_relative && a < DATA_BASE {
                    f.counter_cond = true;
                }
                if !cond.al_relative && a >= DATA_BASE {
                    f.data_cond = true;
                }
                features(then, loops, ifs_in_loop + 1, f);
                if let Some(e) = els {
                    features(e, loops, ifs_in_loop + 1, f);
                }
            }
            Stmt::Loop { count, body, .. } | Stmt::Rep { count, body } => {
                let is_loop = matches!(s, Stmt::Loop { .. });
                f.loop_zero |= *count == 0;
                f.small_loop |= (2..=5).contains(count);
                if is_loop && loops.contains(&true) {
                    f.loop_in_loop = true;
                }
                let mut l = loops.to_vec();
                l.push(is_loop);
                features(body, &l, 0, f);
            }
            Break => {
                f.brk = true;
                f.brk_deep |= ifs_in_loop >= 2;
            }
            Continue => f.cont = true,
            Call(_) => f.call_in_loop |= !loops.is_empty(),
            Leaf(_) => {}
        }
    }
}

#[test]
fn generator_covers_the_interesting_constructs() {
    let mut seen = Features::default();
    let mut divergent_exit = 0;
    for seed in 0..400 {
        let p = random_program(&GenConfig::full(), seed);
        let mut f = Features::default();
        features(&p.main, &[], 0, &mut f);
        for (k, s) in p.subs.iter().enumerate() {
            features(s, &[], 0, &mut f);
            seen.sub_calls_sub |= k > 0 && s.iter().any(|x| matches!(x, Call(_)));
        }
        macro_rules! or {
            ($($x:ident),*) => { $( seen.$x |= f.$x; )* };
        }
        or!(
            loop_zero,
            small_loop,
            brk,
            brk_deep,
            cont,
            rep_in_loop_al,
            loop_in_loop,
            call_in_loop,
            if_no_else,
            if_else,
            counter_cond,
            data_cond
        );
        // Dynamic: PEs that executed the same leaf a different number of times inside a
        // program with a Break, i.e. they (very likely) left a loop at different iterations.
        if f.brk {
            let (mems, _) = run_checked(&p, &random_mems(16, seed));
            let c0 = leaf_counters(&mems[0]);
            if mems.iter().any(|m| leaf_counters(m) != c0) {
                divergent_exit += 1;
            }
        }
    }
    let s = format!("{seen:?}");
    assert!(!s.contains("false"), "generator never produced: {s}");
    assert!(
        divergent_exit >= 20,
        "only {divergent_exit} divergent programs"
    );
}

#[test]
fn partial_generator_reaches_depth_four() {
    let deepest = (0..200)
        .map(|seed| if_depth(&random_program(&GenConfig::partial(), seed)))
        .max()
        .unwrap();
    assert_eq!(deepest, PARTIAL_MAX_IF_DEPTH);
}
