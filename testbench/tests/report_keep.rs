//! `pp5 run`'s table keeps only the records it prints ([`Keep::First`], issue 21 item 5): its
//! rows, per-name totals and "... N more" counts must equal those of a run that keeps every
//! record, whether the run ends, or stops at a cycle limit with a command still open.

use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::engine::{Keep, SimOptions};
use pp5_sim::report::Summary;
use pp5_sim::session::RunSpec;
use pp5_sim::stream::Stream;
use pp5_testbench::support;
use proptest::prelude::*;
use std::sync::OnceLock;

/// Both ports, semaphore waits, transfers: the double-buffer example.
fn fixture() -> &'static (McImage, Stream, u64, u64) {
    static F: OnceLock<(McImage, Stream, u64, u64)> = OnceLock::new();
    F.get_or_init(|| {
        let image = microcode::standard();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/streams/double_buffer.pp5s"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let stream = pp5_sim::stream::text::parse(&text, path, &image.table).unwrap();
        let all = summary(&image, &stream, Keep::All, u64::MAX >> 1);
        let boot = all.boot_cycles.unwrap();
        (image, stream, boot, all.cycles)
    })
}

fn summary(image: &McImage, stream: &Stream, keep: Keep, max_cycles: u64) -> Summary {
    let r = support::run(RunSpec {
        opts: SimOptions {
            keep,
            max_cycles,
            ..SimOptions::default()
        },
        ..support::spec(image, stream)
    });
    let mut r = r.unwrap_or_else(|_| panic!("run failed"));
    Summary::take(&mut r.sim, &r.stop)
}

#[test]
fn the_table_keeps_only_its_rows() {
    let (image, stream, _, cycles) = fixture();
    let all = summary(image, stream, Keep::All, cycles + 1);
    let few = summary(image, stream, Keep::First(3), cycles + 1);
    assert!(all.commands.len() > 20 && all.bs_commands.len() > 6);
    assert_eq!(few.commands.len(), 3);
    assert_eq!(few.bs_commands.len(), 3);
    assert_eq!(
        few.not_kept,
        [
            all.commands.len() as u64 - 3,
            all.bs_commands.len() as u64 - 3
        ]
    );
    assert_eq!(few.commands[..], all.commands[..3]);
    assert_eq!(few.table(3), all.table(3));
    assert!(few
        .table(3)
        .contains(&format!("... {} more", all.commands.len() - 3)));
}

/// A report that keeps the first records says what it left out (issue 38 item 5: the CSV
/// stopped at 100,000 rows without a word, and the table's hint promised "all").
#[test]
fn a_report_that_leaves_records_out_says_how_many() {
    let (image, stream, _, cycles) = fixture();
    let all = summary(image, stream, Keep::All, cycles + 1);
    assert_eq!(all.left_out(), None);
    let few = summary(image, stream, Keep::First(3), cycles + 1);
    let note = few.left_out().expect("records left out");
    assert_eq!(
        note,
        format!(
            "the report leaves out the records of {} more IGC commands and the records of {} \
             more BS port commands (they are counted in the totals)",
            all.commands.len() - 3,
            all.bs_commands.len() - 3
        )
    );
    assert!(!few.table(3).contains("for all"), "{}", few.table(3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn keeping_the_first_rows_prints_what_keeping_all_prints(
        rows in 1usize..40,
        stop in 0.0f64..1.05,
    ) {
        let (image, stream, boot, cycles) = fixture();
        let max = boot + ((cycles - boot) as f64 * stop) as u64;
        let all = summary(image, stream, Keep::All, max);
        let few = summary(image, stream, Keep::First(rows), max);
        prop_assert_eq!(few.table(rows), all.table(rows));
        prop_assert_eq!(&few.by_name, &all.by_name);
        prop_assert_eq!(
            few.commands.len() as u64 + few.not_kept[0],
            all.commands.len() as u64
        );
        prop_assert_eq!(
            few.bs_commands.len() as u64 + few.not_kept[1],
            all.bs_commands.len() as u64
        );
        // The per-name totals count every command, the open one included.
        let count: u64 = all.by_name.iter().map(|t| t.count).sum();
        prop_assert_eq!(count, all.commands.len() as u64);
    }
}

#[test]
fn the_table_lists_at_most_its_rows_of_ring_resets() {
    let (image, _, _, _) = fixture();
    let stream =
        pp5_sim::stream::text::parse(&"NOOP\nreset\n".repeat(5), "resets", &image.table).unwrap();
    let s = summary(image, &stream, Keep::First(2), 1 << 20);
    assert_eq!(s.resets.len(), 5);
    let line = |t: String| {
        t.lines()
            .find(|l| l.starts_with("Ring resets"))
            .unwrap()
            .to_string()
    };
    let two = line(s.table(2));
    assert!(
        two.ends_with(&format!("{:?} and 3 more", &s.resets[..2])),
        "{two}"
    );
    assert_eq!(
        line(s.table(0)),
        format!("Ring resets at cycles {:?}", s.resets)
    );
}
