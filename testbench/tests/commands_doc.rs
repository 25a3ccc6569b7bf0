//! `docs/commands.md` against the standard microcode: every declared command has exactly one row,
//! marked `microcode` with its routine file, entry label and the cycle formula of its `.command`
//! comment; every `microcode` row is declared; the `hardwired` rows are the hardwired commands of
//! the opcode table. Then each microcoded command (HANG excepted) runs once on a booted
//! testbench and must take the cycles its formula gives (`W` = 73 - FBITS = 63 at FBITS 10); the
//! table of those measurements is an insta snapshot.

use pp5_sim::asm::microcode::{self, STANDARD_SOURCE};
use pp5_sim::asm::opcodes::{ArgKind, CommandSpec, OperandClass};
use pp5_testbench::Testbench;
use std::collections::BTreeMap;
use std::fmt::Write;

const DOC: &str = include_str!("../../docs/commands.md");
const STANDARD_FILE: &str = include_str!("../../sim/microcode/standard.pp5uc");
const QEE_FILE: &str = include_str!("../../sim/microcode/qee.pp5uc");
const HEADER: &str = "| command | synopsis | notes | status | cycles |";
const FBITS: u64 = 10;

/// One command row of the document.
#[derive(Debug)]
struct Row {
    name: String,
    status: String,
    cycles: String,
}

/// Split a table line into cells on `|` not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut prev = ' ';
    for ch in line.trim().trim_start_matches('|').chars() {
        if ch == '|' && prev != '\\' {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
        prev = ch;
    }
    out
}

/// The rows of every command table (tables with the header [`HEADER`]).
fn rows() -> Vec<Row> {
    let mut out = vec![];
    let mut in_table = false;
    for line in DOC.lines() {
        if line.trim() == HEADER {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if !in_table || line.starts_with("| ---") {
            continue;
        }
        let c = cells(line);
        assert_eq!(c.len(), 5, "row with {} cells: {line}", c.len());
        let cmd = c[0].trim_matches('`');
        let name = cmd.split('(').next().expect("name").trim().to_string();
        assert!(cmd.ends_with(')'), "command cell without arguments: {line}");
        out.push(Row {
            name,
            status: c[3].clone(),
            cycles: c[4].clone(),
        });
    }
    out
}

/// The text inside backticks of `s`, in order.
fn code_spans(s: &str) -> Vec<&str> {
    s.split('`').skip(1).step_by(2).collect()
}

/// Spaces out, `·`/`×` as `*`.
fn normalise(f: &str) -> String {
    f.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '·' || c == '×' { '*' } else { c })
        .collect()
}

/// A `.command` declaration: routine file, entry label, formula (the comment up to ` (`).
struct Decl {
    file: &'static str,
    label: String,
    formula: String,
}

fn decls() -> BTreeMap<String, Decl> {
    let mut out = BTreeMap::new();
    for line in STANDARD_SOURCE.lines() {
        let Some(decl) = line.strip_prefix(".command ") else {
            continue;
        };
        let name = decl.split('(').next().expect("name").trim().to_string();
        let (head, comment) = line.split_once(';').expect("cycle comment");
        let label = head.split("->").nth(1).expect("entry").trim().to_string();
        let formula = comment
            .split('(')
            .next()
            .expect("formula")
            .trim()
            .to_string();
        let file = if STANDARD_FILE.lines().any(|l| l == line) {
            "standard.pp5uc"
        } else {
            assert!(QEE_FILE.lines().any(|l| l == line), "{name}: which file?");
            "qee.pp5uc"
        };
        let prev = out.insert(
            name.clone(),
            Decl {
                file,
                label,
                formula,
            },
        );
        assert!(prev.is_none(), "{name} declared twice");
    }
    out
}

#[test]
fn doc_rows_match_the_microcode() {
    let img = microcode::standard();
    let decls = decls();
    let rows = rows();
    assert_eq!(rows.len(), 109, "the seed's tables have 109 commands");

    let declared: Vec<&CommandSpec> = img
        .table
        .commands
        .iter()
        .filter(|c| c.entry.is_some())
        .collect();
    assert_eq!(declared.len(), decls.len());
    for spec in &declared {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.name == spec.name).collect();
        assert_eq!(mine.len(), 1, "{}: {} rows", spec.name, mine.len());
        let row = mine[0];
        assert!(
            row.status.starts_with("microcode"),
            "{}: status {}",
            spec.name,
            row.status
        );
        let d = decls
            .get(&spec.name)
            .unwrap_or_else(|| panic!("{}: no .command line", spec.name));
        let spans = code_spans(&row.status);
        assert_eq!(
            spans.get(..2),
            Some(&[d.file, d.label.as_str()][..]),
            "{}: routine file and entry label",
            spec.name
        );
        assert_eq!(
            normalise(&row.cycles),
            normalise(&d.formula),
            "{}: formula",
            spec.name
        );
    }
    for r in &rows {
        assert_eq!(
            rows.iter().filter(|o| o.name == r.name).count(),
            1,
            "{} has more than one row",
            r.name
        );
        if r.status.starts_with("microcode") {
            assert!(
                declared.iter().any(|c| c.name == r.name),
                "{} is marked microcode but the microcode does not declare it",
                r.name
            );
        } else if r.status.starts_with("hardwired") {
            let spec = img.table.get(&r.name);
            assert!(
                spec.is_some_and(|s| s.entry.is_none()),
                "{} is marked hardwired but is not a hardwired command",
                r.name
            );
        } else {
            assert!(
                r.status.starts_with("not yet:") && r.status.len() > "not yet: ".len(),
                "{}: status must be microcode, hardwired or `not yet: reason`: {}",
                r.name,
                r.status
            );
            assert_eq!(r.cycles, "—", "{}: no formula without microcode", r.name);
        }
    }
    let hardwired = img.table.commands.iter().filter(|c| c.entry.is_none());
    for spec in hardwired {
        assert!(
            rows.iter()
                .any(|r| r.name == spec.name && r.status.starts_with("hardwired")),
            "{} has no hardwired row",
            spec.name
        );
    }
}

/// The stream text of one run of `spec` with the test's arguments, and the operand values by
/// argument name.
fn instance(spec: &CommandSpec) -> (String, BTreeMap<String, u64>) {
    let addrs = [0u64, 40, 80, 120];
    let mut next_addr = 0;
    let mut values = BTreeMap::new();
    let mut words = vec![];
    for a in &spec.args {
        let v = match a.kind {
            ArgKind::Addr => {
                next_addr += 1;
                addrs[next_addr - 1]
            }
            ArgKind::Len | ArgKind::TreeLen => 8,
            ArgKind::Count if a.name == "bits" => 8,
            ArgKind::Count => 5,
            ArgKind::Fbits => FBITS,
            ArgKind::Sector => 5,
            ArgKind::Id => 0x1200,
            ArgKind::StoreAddr => panic!("{}: hardwired", spec.name),
        };
        values.insert(a.name.clone(), v);
        words.push(v.to_string());
    }
    let (suffix, extra) = match spec.class {
        OperandClass::Scalar => ("_S1", vec!["5"]),
        OperandClass::Tree => ("_L3", vec!["1.0", "2.0", "3.0"]),
        _ => ("", vec![]),
    };
    let mut text = format!("{}{suffix}", spec.name);
    for w in words.iter().map(String::as_str).chain(extra) {
        text.push(' ');
        text.push_str(w);
    }
    (text, values)
}

/// The formula evaluated with the operand values (`W` = 73 - FBITS).
fn evaluate(name: &str, formula: &str, values: &BTreeMap<String, u64>) -> u64 {
    normalise(formula)
        .split('+')
        .map(|term| {
            let (k, var) = match term.split_once('*') {
                Some((k, v)) => (k.parse::<u64>().expect("factor"), Some(v)),
                None => match term.parse::<u64>() {
                    Ok(k) => (k, None),
                    Err(_) => (1, Some(term)),
                },
            };
            let v = match var {
                None => 1,
                Some("W") => 73 - FBITS,
                Some(v) => *values
                    .get(v)
                    .unwrap_or_else(|| panic!("{name}: formula variable {v}")),
            };
            k * v
        })
        .sum()
}

#[test]
fn every_microcoded_command_takes_its_formula() {
    let booted = Testbench::standard();
    let decls = decls();
    let mut fbits = booted.clone();
    let o = fbits.run_text(&format!("FBITS {FBITS}\n"));
    assert_eq!(o.stop, pp5_sim::engine::StopReason::Done);

    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<20} {:<14} {:>6}  stream",
        "command", "formula", "cycles"
    );
    let mut mismatches = vec![];
    for spec in booted.image.table.commands.iter() {
        if spec.entry.is_none() || spec.name == "HANG" {
            continue;
        }
        let d = &decls[&spec.name];
        let (text, values) = instance(spec);
        let mut tb = fbits.clone();
        if spec.name == "PIGC" {
            // PIGC waits for a non-zero IGC semaphore; the formula is its time when it is.
            tb.sim.board.igc_sem.count = 1;
        }
        let o = tb.run_text(&text);
        assert_eq!(
            o.stop,
            pp5_sim::engine::StopReason::Done,
            "{text}: {:?}",
            tb.sim.diagnostics
        );
        assert_eq!(tb.status() & 0x7f00_0000, 0, "{text}: error bits");
        let measured: Vec<u64> = o
            .command_cycles
            .iter()
            .filter(|(n, _)| *n == spec.name)
            .map(|&(_, c)| c)
            .collect();
        assert_eq!(measured.len(), 1, "{text}: {:?}", o.command_cycles);
        let expected = evaluate(&spec.name, &d.formula, &values);
        if measured[0] != expected {
            mismatches.push(format!(
                "{text}: measured {} cycles, formula {} gives {expected}",
                measured[0], d.formula
            ));
        }
        let _ = writeln!(
            table,
            "{:<20} {:<14} {:>6}  {text}",
            spec.name, d.formula, measured[0]
        );
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    insta::assert_snapshot!(table);
}
