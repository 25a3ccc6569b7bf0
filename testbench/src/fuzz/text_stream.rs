//! Fuzz target: the text stream parser (`.pp5s`).
//!
//! Any text either parses or gives an error at a line of the text. A stream that parses
//! prints (disassembles) to text that parses to the same words, events and times, and
//! prints the same again; written in the binary Ring format it reads back the same, byte for
//! byte. Parsing is deterministic; bytes that are not UTF-8 are an error of the loader.

use pp5_sim::asm::opcodes::OpcodeTable;
use pp5_sim::stream::{self, binary, text, Stream};

/// File name given to the parser (errors start with it).
const FILE: &str = "fuzz.pp5s";

pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let table = &super::image().table;
    let parsed = text::parse(&src, FILE, table);
    assert_eq!(
        parsed.as_ref().ok(),
        text::parse(&src, FILE, table).as_ref().ok(),
        "parsing is not deterministic"
    );
    if !binary::is_binary(data) {
        // The loader `pp5 run` uses: UTF-8 text is parsed, anything else is an error at a line.
        match (std::str::from_utf8(data), stream::load(data, FILE, table)) {
            (Ok(_), loaded) => assert_eq!(loaded.ok(), parsed.as_ref().ok().cloned()),
            (Err(_), loaded) => assert!(loaded.is_err_and(|e| e.line >= 1)),
        }
    }
    match parsed {
        Ok(s) => round_trips(&s, table),
        Err(e) => {
            let lines = src.lines().count().max(1);
            assert!(
                (1..=lines + 1).contains(&e.line),
                "error at line {} of a {lines}-line text: {e}",
                e.line
            );
            assert!(!e.msg.trim().is_empty(), "an error without a message");
            assert!(
                e.to_string().starts_with(&format!("{FILE}:{}:", e.line)),
                "{e}"
            );
        }
    }
}

/// `s` prints to text that reads back the same, and to binary that reads back the same.
pub fn round_trips(s: &Stream, table: &OpcodeTable) {
    let printed = text::disassemble(s, table);
    let again = text::parse(&printed, "disassembly", table)
        .unwrap_or_else(|e| panic!("the disassembly does not parse: {e}\n{printed}"));
    assert!(
        again.same_words(s),
        "the disassembly parses to other words:\n{printed}"
    );
    assert_eq!(
        text::disassemble(&again, table),
        printed,
        "printing is not a fixed point"
    );
    let mut bin = Vec::new();
    binary::write(s, &mut bin).expect("writing to memory");
    assert!(binary::is_binary(&bin));
    let back = binary::read(&bin[..])
        .unwrap_or_else(|e| panic!("the binary form does not read back: {e}\n{printed}"));
    assert!(back.same_words(s), "the binary form reads back other words");
    let mut bin2 = Vec::new();
    binary::write(&back, &mut bin2).expect("writing to memory");
    assert_eq!(bin, bin2, "binary write → read → write changed the bytes");
}
