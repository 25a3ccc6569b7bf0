//! Memory bounded by the documented caps whatever the run length (issue 27, item 1): the
//! messages the board sends and the command records of a JSON report are kept up to
//! `MAX_REPORT_MESSAGES` / `MAX_REPORT_RECORDS` and counted past them.

mod common;

use common::Scratch;
use pp5_sim::records::MAX_REPORT_MESSAGES;
use std::process::Command;

/// A command that sends status messages for ever.
const SPAM: &str = ".command SPAM() -> spam\nspam: sendstatus\n      jump spam\n";

/// `pp5 run` of SETENABS and SPAM for 800,000 cycles, with `extra` options.
fn run_spam(s: &Scratch, extra: &[&std::ffi::OsStr]) -> std::process::Output {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/microcode");
    let mc = s.file("spam.pp5uc", SPAM);
    let st = s.file("s.pp5s", "SETENABS\nSPAM\n");
    Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(&st)
        .args(["--microcode", &format!("{root}/standard.pp5uc")])
        .arg("--microcode")
        .arg(&mc)
        .args(["--max-cycles", "800000"])
        .args(extra)
        .output()
        .expect("run pp5")
}

#[test]
fn endless_messages_are_counted_past_the_cap() {
    let s = Scratch::new();
    let run = |report: &str| run_spam(&s, &["--report".as_ref(), report.as_ref()]);
    let o = run("json");
    assert_eq!(o.status.code(), Some(5), "the cycle limit");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let sent = j["sent"].as_array().expect("sent").len();
    let more = j["sent_not_kept"].as_u64().expect("sent_not_kept");
    assert_eq!(sent, MAX_REPORT_MESSAGES);
    assert!(more > 1000, "{more} more");
    let o = run("table");
    let t = String::from_utf8_lossy(&o.stdout);
    let listed = t
        .lines()
        .filter(|l| l.contains("IGC STATUS") || l.contains("igc status"))
        .count();
    assert!(listed <= 1000, "{listed} lines of messages");
    assert!(
        t.contains(&format!("  and {} more", sent as u64 - 1000 + more)),
        "{}",
        t.lines().rev().take(20).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn a_json_report_keeps_at_most_its_cap_of_records() {
    // Below the cap every command is listed and none counted as not kept.
    let s = Scratch::new();
    let st = s.file("s.pp5s", &"SETENABS\n".repeat(50));
    let o = Command::new(env!("CARGO_BIN_EXE_pp5"))
        .arg("run")
        .arg(&st)
        .args(["--report", "json"])
        .output()
        .expect("run pp5");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["commands"].as_array().expect("commands").len(), 50);
    assert_eq!(j["not_kept"][0].as_u64(), Some(0));
    assert!(j.get("sent_not_kept").is_none());
}

/// `--tx-out` writes every message as it is sent instead of keeping them all for the end
/// (issue 38 item 3: 448 MB at 10 M cycles): the report still keeps its cap, the file has
/// every message, and it is the file the whole list made (`pp5 stream` reads it back).
#[test]
fn tx_out_streams_every_message_while_the_report_keeps_its_cap() {
    let s = Scratch::new();
    let tx = s.path("tx.bin");
    let o = run_spam(
        &s,
        &[
            "--report".as_ref(),
            "json".as_ref(),
            "--tx-out".as_ref(),
            tx.as_os_str(),
        ],
    );
    assert_eq!(o.status.code(), Some(5), "the cycle limit");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let kept = j["sent"].as_array().expect("sent").len();
    let more = j["sent_not_kept"].as_u64().expect("sent_not_kept");
    assert_eq!(
        kept, MAX_REPORT_MESSAGES,
        "the report keeps its cap with --tx-out too"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let total = kept as u64 + more;
    assert!(
        err.contains(&format!("({total} messages)")),
        "every message is in the file: {err}"
    );
    assert!(err.contains("note: the report leaves out"), "{err}");
    let bytes = std::fs::read(&tx).expect("the file");
    let stream = pp5_sim::stream::binary::read(&bytes[..]).expect("reads back");
    assert_eq!(stream.messages.len() as u64, total);
    assert!(stream.messages.iter().all(|m| m.sent.is_some()));
    assert!(
        s.listing().iter().all(|f| !f.ends_with(".partial")),
        "{:?}",
        s.listing()
    );
}
