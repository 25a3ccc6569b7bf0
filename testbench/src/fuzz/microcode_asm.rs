//! Fuzz target: the microcode assembler and the image loader (`--microcode`).
//!
//! Any text either gives an image or errors. An assembled image fits the control store
//! (every word is one the store takes, at most its microinstructions), assembles the same
//! again, and its JSON file reads back equal; its boot messages fit the Ring's message
//! limit and carry one MCWRITE per word. Errors are in line order, each at a line of the
//! source, with a message. A JSON image (text starting with `{`) either loads or errors, and
//! a loaded image's opcode table parses and prints a stream without panicking.

use pp5_rtl::igc::store::{McStore, CONTROL_STORE_UINSTS};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::stream::{text, MAX_MESSAGE_WORDS};

const FILE: &str = "fuzz.pp5uc";

/// A stream that names a few commands, parsed with a loaded image's table.
const PROBE_STREAM: &str = "SETENABS\nCLEAR 0 8\nNOOP\nword 0x80000012 7\n";

pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    if src.trim_start().starts_with('{') {
        check_json(&src);
        return;
    }
    match microcode::assemble(&src, FILE) {
        Ok(img) => {
            check_image(&img);
            let again = microcode::assemble(&src, FILE);
            assert_eq!(
                again.as_ref().ok(),
                Some(&img),
                "assembly is not deterministic"
            );
            let json = serde_json::to_string(&img).expect("an image serialises");
            let back = McImage::load(&json, "fuzz.json").expect("its JSON loads");
            assert_eq!(back, img, "the JSON image reads back different");
        }
        Err(errs) => {
            assert!(!errs.errors.is_empty(), "failed without an error");
            let lines = src.lines().count().max(1);
            for e in &errs.errors {
                assert_eq!(e.file, FILE);
                assert!(
                    (1..=lines + 1).contains(&e.line),
                    "line {} of {lines}: {e}",
                    e.line
                );
                assert!(!e.msg.trim().is_empty(), "an error without a message");
            }
            assert!(
                errs.errors.windows(2).all(|w| w[0].line <= w[1].line),
                "errors out of line order:\n{errs}"
            );
        }
    }
}

/// An assembled image fits the store and boots in messages the Ring takes.
fn check_image(img: &McImage) {
    assert!(
        img.uinsts as usize <= CONTROL_STORE_UINSTS,
        "{} microinstructions",
        img.uinsts
    );
    let mut store = McStore::new();
    for &(a, v) in &img.words {
        store
            .write(a, v)
            .unwrap_or_else(|e| panic!("the store refuses word {a}: {e}"));
    }
    let msgs = img.boot_messages(MAX_MESSAGE_WORDS - 1);
    assert!(msgs.iter().all(|m| m.len() < MAX_MESSAGE_WORDS));
    let words: usize = msgs.iter().map(Vec::len).sum();
    // NOOP NOOP RMODEON, two words per MCWRITE, NOOP RMODEOFF.
    assert_eq!(words, 5 + 2 * img.words.len());
}

/// A JSON image loads or errors; a loaded one's table serves the stream parser.
fn check_json(src: &str) {
    let Ok(img) = McImage::load(src, "fuzz.json") else {
        return;
    };
    let _ = img.boot_messages(MAX_MESSAGE_WORDS - 1);
    if let Ok(s) = text::parse(PROBE_STREAM, "probe.pp5s", &img.table) {
        let _ = text::disassemble(&s, &img.table);
    }
}
