//! The docs' command examples run as tests, so a renamed option or a changed output fails CI
//! (what `trycmd` does for Rust CLIs, over the same markdown the reader reads).
//!
//! The convention (docs/testing.md, "The docs' examples"):
//!
//! - A fenced block ` ```sh ` in README.md or docs/*.md is a bash script: it runs as a whole
//!   (`set -e`) and must exit 0.
//! - A fenced block ` ```console ` holds commands, `$ CMD` (a line ending in `\` goes on on the
//!   next), each followed by what it prints: those lines must appear in it, in order within
//!   standard output and within standard error (trailing blanks ignored, `...` for lines left
//!   out, `[..]` for any text within a line);
//!   `[exit N]` among them expects exit code N instead of 0.
//! - Each file's blocks run in order in one scratch directory, `pp5` (the binary under test)
//!   first on the PATH and `REPO` the checkout, as the README's tour has them.
//! - `<!-- doc-test: skip: WHY -->` on the line before a fence keeps that block from running
//!   (it needs cargo, GTKWave, the Python module, or minutes); such blocks are counted.
//! - Every `pp5 SUBCOMMAND ...` the docs show, run or not (blocks of any kind, indented code,
//!   inline code spans), names only options that `pp5 SUBCOMMAND --help` lists (but for a
//!   console example shown to fail), and every option of every subcommand is named somewhere
//!   in the docs.

mod common;

use common::Scratch;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const MARKER: &str = "<!-- doc-test:";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the checkout")
        .to_path_buf()
}

fn pp5() -> &'static str {
    env!("CARGO_BIN_EXE_pp5")
}

/// The markdown files whose examples are checked: README.md and docs/*.md.
fn doc_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    v.insert(0, root().join("README.md"));
    v
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A fenced code block.
struct Block {
    /// 1-based line of its opening fence.
    line: usize,
    info: String,
    /// Why it is not run (`<!-- doc-test: skip: WHY -->`).
    skip: Option<String>,
    body: Vec<String>,
}

/// The fenced blocks of a markdown text, their lines without the fence's indentation, and
/// the lines outside them (line number, text).
fn parse(file: &str, text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut blocks, mut outside) = (Vec::new(), Vec::new());
    let mut pending: Option<(usize, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim_start();
        if t.starts_with(MARKER) {
            let why = t
                .strip_prefix("<!-- doc-test: skip:")
                .and_then(|r| r.strip_suffix("-->"))
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| {
                    panic!("{file}:{}: write `<!-- doc-test: skip: WHY -->`", i + 1)
                });
            pending = Some((i + 1, why.to_string()));
            i += 1;
            continue;
        }
        if let Some(info) = t.strip_prefix("```") {
            let indent = l.len() - t.len();
            let open = i + 1;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                let b = lines[i];
                let cut = b.len() - b.trim_start().len();
                body.push(b[cut.min(indent)..].to_string());
                i += 1;
            }
            assert!(i < lines.len(), "{file}:{open}: the block is not closed");
            blocks.push(Block {
                line: open,
                info: info.trim().to_string(),
                skip: pending.take().map(|(_, w)| w),
                body,
            });
        } else if !t.is_empty() {
            if let Some((at, _)) = &pending {
                panic!("{file}:{at}: a doc-test marker must come right before a fence");
            }
            outside.push((i + 1, l.to_string()));
        }
        i += 1;
    }
    if let Some((at, _)) = pending {
        panic!("{file}:{at}: a doc-test marker at the end, before no block");
    }
    (blocks, outside)
}

/// What a file's examples came to.
#[derive(Default, Debug)]
struct Count {
    /// `pp5` commands run.
    pp5_run: usize,
    /// Blocks run.
    blocks_run: usize,
    /// Blocks marked not to run.
    skipped: usize,
}

/// Run the `sh` and `console` blocks of `rel` in one scratch directory.
fn run_examples(rel: &str) -> Count {
    let text = read(rel);
    let (blocks, _) = parse(rel, &text);
    let dir = Scratch::new();
    let bin = Path::new(pp5()).parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let bash = |script: &str| {
        Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(dir.dir())
            .env("PATH", &path)
            .env("REPO", root())
            .env_remove("PP5_MICROCODE_COVERAGE")
            .output()
            .expect("run bash")
    };
    let mut count = Count::default();
    for b in &blocks {
        if b.info != "sh" && b.info != "console" {
            continue;
        }
        if b.skip.is_some() {
            count.skipped += 1;
            continue;
        }
        count.blocks_run += 1;
        let at = format!("{rel}:{}", b.line);
        if b.info == "sh" {
            let script = b.body.join("\n");
            count.pp5_run += script
                .lines()
                .filter(|l| l.trim_start().starts_with("pp5 "))
                .count();
            let o = bash(&format!("set -e\n{script}\n"));
            assert!(
                o.status.success(),
                "{at}: the block failed ({:?})\n{script}\n--- stdout\n{}--- stderr\n{}",
                o.status.code(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            continue;
        }
        for (cmd, shown) in console_commands(&at, &b.body) {
            count.pp5_run += usize::from(cmd.trim_start().starts_with("pp5 "));
            let o = bash(&cmd);
            let (out, err) = (
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            );
            let printed = format!("--- stdout\n{out}--- stderr\n{err}");
            let want_code = exit_code(&shown);
            assert_eq!(
                o.status.code(),
                Some(want_code),
                "{at}: `{cmd}` exited {:?}, the doc says {want_code}\n{printed}",
                o.status.code()
            );
            // In order within each stream: the doc may show a line of either next.
            let (mut outs, mut errs) = (out.lines(), err.lines());
            for want in shown
                .iter()
                .map(|l| l.trim_end())
                .filter(|l| !l.is_empty() && *l != "..." && !l.trim().starts_with("[exit "))
            {
                let found = |lines: &mut std::str::Lines| {
                    let mut probe = lines.clone();
                    let hit = probe.any(|l| line_matches(l.trim_end(), want));
                    if hit {
                        *lines = probe;
                    }
                    hit
                };
                assert!(
                    found(&mut outs) || found(&mut errs),
                    "{at}: `{cmd}` did not print, in the doc's order, the line\n{want}\n{printed}"
                );
            }
        }
    }
    count
}

/// The exit code a console example expects: `[exit N]` among its lines, else 0.
fn exit_code(shown: &[String]) -> i32 {
    shown
        .iter()
        .find_map(|l| {
            l.trim()
                .strip_prefix("[exit ")
                .and_then(|r| r.strip_suffix(']'))
                .map(|n| n.parse::<i32>().expect("[exit N]"))
        })
        .unwrap_or(0)
}

/// Whether an output line is the one shown: the same, but for `[..]`, which stands for any
/// text within the line.
fn line_matches(have: &str, want: &str) -> bool {
    let parts: Vec<&str> = want.split("[..]").collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return have == want;
    };
    let Some(mut rest) = have.strip_prefix(first) else {
        return false;
    };
    for m in middle {
        match rest.find(m) {
            Some(k) => rest = &rest[k + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The commands of a console block, each with the lines shown after it.
fn console_commands(at: &str, body: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines = body.iter();
    while let Some(l) = lines.next() {
        if let Some(cmd) = l.strip_prefix("$ ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                cmd.push_str(lines.next().map(|s| s.trim_start()).unwrap_or(""));
            }
            out.push((cmd, Vec::new()));
        } else {
            out.last_mut()
                .unwrap_or_else(|| panic!("{at}: a console block starts with `$ COMMAND`"))
                .1
                .push(l.clone());
        }
    }
    out
}

/// The `pp5` invocations in a text: (subcommand, the long options it names).
fn invocations(text: &str) -> Vec<(Option<String>, Vec<String>)> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let subs = subcommands();
    let mut out: Vec<(Option<String>, Vec<String>)> = Vec::new();
    let mut cargo_run = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].trim_matches(|c| c == '`' || c == '(' || c == '"');
        cargo_run |= t == "cargo" && tokens.get(i + 1) == Some(&"run");
        let starts = t == "pp5" || t.ends_with("/pp5") || (cargo_run && t == "--");
        i += 1;
        if !starts {
            continue;
        }
        cargo_run = false;
        let sub = tokens
            .get(i)
            .map(|s| s.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|s| subs.contains(*s))
            .map(str::to_string);
        if sub.is_some() {
            i += 1;
        }
        let mut opts = Vec::new();
        while i < tokens.len() {
            let t = tokens[i];
            let next_is_option = tokens
                .get(i + 1)
                .is_some_and(|n| n.starts_with('-') || n.starts_with('['));
            if t.starts_with('#')
                || t == ";"
                || t == "&&"
                || t == "||"
                || t.starts_with('>')
                || t.starts_with("2>")
                || t == "pp5"
                || (t == "|" && !next_is_option)
            {
                break;
            }
            if let Some(o) = long_option(t) {
                opts.push(o);
            }
            i += 1;
        }
        out.push((sub, opts));
    }
    out
}

/// The long option a token names (`--profile[=N]` is `--profile`), if any.
fn long_option(token: &str) -> Option<String> {
    let t = token.trim_start_matches(['[', '(', '`', '\'', '"']);
    let name: String = t
        .strip_prefix("--")?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        .then(|| format!("--{name}"))
}

fn help(sub: Option<&str>) -> String {
    let mut c = Command::new(pp5());
    c.args(sub).arg("--help");
    let o = c.output().expect("pp5 --help");
    assert!(o.status.success(), "pp5 {sub:?} --help");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The subcommands `pp5 --help` lists.
fn subcommands() -> &'static BTreeSet<String> {
    static SUBS: OnceLock<BTreeSet<String>> = OnceLock::new();
    SUBS.get_or_init(|| {
        help(None)
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .filter(|s| *s != "help")
            .map(str::to_string)
            .collect()
    })
}

/// The long options (and their aliases) `pp5 SUB --help` lists.
fn options_of(sub: Option<&str>) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for l in help(sub).lines() {
        let t = l.trim_start();
        if t.starts_with('-') {
            if let Some(o) = t.split([',', ' ']).find_map(long_option) {
                set.insert(o);
            }
        }
        if let Some((_, rest)) = l.split_once("[aliases: ").or(l.split_once("[alias: ")) {
            set.extend(rest.split([',', ' ', ']']).filter_map(long_option));
        }
    }
    set
}

/// Every text of a doc where a command may be shown: each fenced block, each indented code
/// line outside them, each paragraph's inline code spans (a span may wrap over lines).
fn shown_commands(rel: &str, text: &str) -> Vec<(String, String)> {
    let (blocks, outside) = parse(rel, text);
    let mut out: Vec<(String, String)> = Vec::new();
    for b in &blocks {
        if b.info == "console" {
            // Its commands; one shown to fail (a usage error) may name what does not exist.
            for (cmd, shown) in console_commands(rel, &b.body) {
                if exit_code(&shown) == 0 {
                    out.push((format!("{rel}:{}", b.line), cmd));
                }
            }
            continue;
        }
        // A synopsis or a script: a command goes on over `\` and indented lines.
        let mut cur: Option<(usize, String)> = None;
        for (k, l) in b.body.iter().enumerate() {
            let t = l.trim_start().trim_start_matches("$ ");
            let continues = cur.as_ref().is_some_and(|(_, c)| {
                c.ends_with('\\') || (l.starts_with(' ') && t.starts_with(['[', '-']))
            });
            if continues {
                if let Some((_, c)) = &mut cur {
                    c.push(' ');
                    c.push_str(t);
                }
                continue;
            }
            if let Some((at, c)) = cur.take() {
                out.push((format!("{rel}:{}", b.line + 1 + at), c));
            }
            cur = Some((k, t.to_string()));
        }
        if let Some((at, c)) = cur {
            out.push((format!("{rel}:{}", b.line + 1 + at), c));
        }
    }
    // Indented code lines (four spaces or more) after a blank line or another such line.
    let mut prev = 0;
    for (n, l) in &outside {
        let code = l.starts_with("    ") && (*n == prev + 1 || !text_line_before(text, *n));
        if code {
            out.push((format!("{rel}:{n}"), l.trim().to_string()));
            prev = *n;
        }
    }
    // Inline code spans, a paragraph at a time.
    let mut para: Vec<(usize, &str)> = Vec::new();
    let flush = |para: &mut Vec<(usize, &str)>, out: &mut Vec<(String, String)>| {
        if let Some((first, _)) = para.first() {
            let joined: Vec<&str> = para.iter().map(|(_, l)| l.trim()).collect();
            let joined = joined.join(" ");
            for (k, span) in joined.split('`').enumerate() {
                if k % 2 == 1 {
                    out.push((format!("{rel}:{first}"), span.to_string()));
                }
            }
        }
        para.clear();
    };
    let mut last = 0;
    for (n, l) in &outside {
        if *n != last + 1 {
            flush(&mut para, &mut out);
        }
        para.push((*n, l));
        last = *n;
    }
    flush(&mut para, &mut out);
    out
}

/// Whether line `n` (1-based) of `text` follows a non-blank line.
fn text_line_before(text: &str, n: usize) -> bool {
    n >= 2
        && text
            .lines()
            .nth(n - 2)
            .is_some_and(|l| !l.trim().is_empty())
}

/// Every option the docs show with a `pp5` command is one its `--help` lists: a renamed or
/// removed option fails here, in examples that run and in those that do not.
#[test]
fn the_docs_name_only_options_that_exist() {
    let mut known: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let rel = file.strip_prefix(root()).expect("in the checkout");
        let rel = rel.to_string_lossy().into_owned();
        let text = read(&rel);
        for (at, shown) in shown_commands(&rel, &text) {
            for (sub, opts) in invocations(&shown) {
                let set = known
                    .entry(sub.clone())
                    .or_insert_with(|| options_of(sub.as_deref()));
                for o in opts {
                    checked += 1;
                    if !set.contains(&o) {
                        let sub = sub.as_deref().unwrap_or("");
                        bad.push(format!("{at}: `pp5 {sub}` has no {o}: {shown}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        checked > 150,
        "only {checked} options found: is the reader broken?"
    );
}

/// Every option of every subcommand is named in the docs (README.md or docs/*.md).
#[test]
fn every_option_is_documented() {
    let docs: String = doc_files()
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read a doc"))
        .collect();
    let named = |o: &str| {
        docs.match_indices(o).any(|(k, _)| {
            !docs[k + o.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let mut missing = Vec::new();
    for sub in subcommands() {
        for o in options_of(Some(sub.as_str())) {
            if o != "--help" && !named(&o) {
                missing.push(format!("pp5 {sub} {o}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "options in no doc: {}",
        missing.join(", ")
    );
}

/// Runs a file's examples and checks that they were found.
fn check(rel: &str, min_pp5: usize) {
    let c = run_examples(rel);
    eprintln!(
        "{rel}: {} blocks run ({} pp5 commands), {} not run (marked doc-test: skip)",
        c.blocks_run, c.pp5_run, c.skipped
    );
    assert!(
        c.pp5_run >= min_pp5,
        "{rel}: {c:?}: fewer pp5 commands ran than the {min_pp5} expected"
    );
}

#[test]
fn readme_examples_run() {
    check("README.md", 8);
}

#[test]
fn user_guide_examples_run() {
    check("docs/user-guide.md", 10);
}

#[test]
fn microcode_examples_run() {
    check("docs/microcode.md", 2);
}

#[test]
fn other_docs_examples_run() {
    for file in doc_files() {
        let rel = file.strip_prefix(root()).expect("in the checkout");
        let rel = rel.to_string_lossy().into_owned();
        if !["README.md", "docs/user-guide.md", "docs/microcode.md"].contains(&rel.as_str()) {
            check(&rel, 0);
        }
    }
}

/// Paths into the checkout that the examples name (fixtures, scripts, the microcode) exist,
/// in blocks that run and in those that do not.
#[test]
fn the_examples_name_files_that_exist() {
    let mut bad = Vec::new();
    for file in doc_files() {
        let rel = file.strip_prefix(root()).expect("in the checkout");
        let rel = rel.to_string_lossy().into_owned();
        let (blocks, _) = parse(&rel, &read(&rel));
        for b in blocks
            .iter()
            .filter(|b| b.info == "sh" || b.info == "console")
        {
            for t in b.body.iter().flat_map(|l| l.split_whitespace()) {
                let t = t.trim_start_matches("$REPO/");
                let tracked = ["testbench/fixtures/", "scripts/", "sim/microcode/"];
                if tracked.iter().any(|p| t.starts_with(p)) && !root().join(t).exists() {
                    bad.push(format!("{rel}:{}: {t}", b.line));
                }
            }
        }
    }
    assert!(bad.is_empty(), "no such file: {}", bad.join(", "));
}
