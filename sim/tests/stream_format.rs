//! Command-stream formats: text parser, disassembler, binary Ring-message files, builder.

use pp5_sim::asm::opcodes::{ArgKind, ArgSpec, CommandSpec, OpcodeTable, OperandClass};
use pp5_sim::stream::builder::{Limit, MessageOpts, StreamBuilder};
use pp5_sim::stream::{binary, bs, text, Port, SentKind, Stream, StreamError, MAX_MESSAGE_WORDS};
use proptest::prelude::*;

fn arg(name: &str, kind: ArgKind, seg_len: Option<usize>) -> ArgSpec {
    ArgSpec {
        name: name.into(),
        kind,
        seg_len,
    }
}

fn cmd(name: &str, cmd: u8, class: OperandClass, args: Vec<ArgSpec>) -> CommandSpec {
    CommandSpec {
        name: name.into(),
        cmd,
        args,
        class,
        entry: Some(0x100 + cmd as u32),
        long: false,
    }
}

/// A hand-made table: a 1-argument Plain command, a 5-argument one (P word), a 2-argument
/// one, a Scalar command, a Tree command, FBITS, NOOP, and the hardwired commands.
fn table() -> OpcodeTable {
    use ArgKind::*;
    use OperandClass::*;
    let mut commands = vec![
        cmd("NOOP", 0x00, Plain, vec![]),
        cmd("FBITS", 0x01, Plain, vec![arg("n", Fbits, None)]),
        cmd("CRYIntoMEM", 0x10, Plain, vec![arg("dst", Addr, None)]),
        cmd(
            "CLEAR",
            0x11,
            Plain,
            vec![arg("dst", Addr, Some(1)), arg("dlen", Len, None)],
        ),
        cmd(
            "MEMplusMEM",
            0x20,
            Plain,
            vec![
                arg("dst", Addr, Some(3)),
                arg("lsrc", Addr, Some(3)),
                arg("src", Addr, Some(4)),
                arg("dlen", Len, None),
                arg("slen", Len, None),
            ],
        ),
        cmd(
            "SCAIntoMEM",
            0x30,
            Scalar,
            vec![arg("dst", Addr, Some(1)), arg("dlen", Len, None)],
        ),
        cmd(
            "TREEIntoMEM",
            0x40,
            Tree,
            vec![arg("dst", Addr, Some(1)), arg("len", TreeLen, None)],
        ),
    ];
    commands.extend(OpcodeTable::hardwired());
    OpcodeTable { commands }
}

fn parse(src: &str) -> Result<Stream, StreamError> {
    text::parse(src, "t.pp5s", &table())
}

fn parse_ok(src: &str) -> Stream {
    match parse(src) {
        Ok(s) => s,
        Err(e) => panic!("parse failed: {e}\n--- source:\n{src}"),
    }
}

fn parse_err(src: &str) -> StreamError {
    match parse(src) {
        Ok(s) => panic!("expected an error, got {s:?}"),
        Err(e) => e,
    }
}

/// The words of the single command in a one-line implicit stream.
fn words_of(line: &str) -> Vec<u32> {
    let s = parse_ok(line);
    assert_eq!(s.messages.len(), 1, "{line}");
    let m = &s.messages[0];
    assert_eq!((m.port, m.dest), (Port::Igc, 0));
    m.body.clone()
}

const P: u32 = 1 << 31;

#[test]
fn each_form_encodes_to_the_expected_words() {
    // Plain, 1 argument: CMD in 7:0, F0 in 17:8, no P word.
    assert_eq!(words_of("CRYIntoMEM 5"), vec![5 << 8 | 0x10]);
    assert_eq!(words_of("IGC_CRYIntoMEM 207"), vec![207 << 8 | 0x10]);
    assert_eq!(words_of("NOOP"), vec![0]);
    // Plain, 5 arguments: bit 31 and the P word with F1..F4 in bytes 0..3.
    assert_eq!(
        words_of("MEMplusMEM 0 8 16 8 8"),
        vec![P | 0x20, 8 | 16 << 8 | 8 << 16 | 8 << 24]
    );
    assert_eq!(
        words_of("MEMplusMEM 100 120 3 7 1"),
        vec![P | 100 << 8 | 0x20, 120 | 3 << 8 | 7 << 16 | 1 << 24]
    );
    // Two arguments also need the P word.
    assert_eq!(words_of("CLEAR 0 8"), vec![P | 0x11, 8]);
    // Scalar forms: CoefMode (21:20) 00, 01, 11; QEEMode (19:18) 00.
    assert_eq!(words_of("SCAIntoMEM_S0 16 8"), vec![P | 16 << 8 | 0x30, 8]);
    assert_eq!(
        words_of("SCAIntoMEM_S1 16 8 42"),
        vec![P | 1 << 20 | 16 << 8 | 0x30, 8, 42]
    );
    assert_eq!(
        words_of("SCAIntoMEM_S1 16 8 -3"),
        vec![P | 1 << 20 | 16 << 8 | 0x30, 8, 0xffff_fffd]
    );
    // _TBL: CoefMode 11, bit 19 clear, bit 31 set on the last value only.
    assert_eq!(
        words_of("SCAIntoMEM_TBL 0 8 1 2 3"),
        vec![P | 3 << 20 | 0x30, 8, 1, 2, 3 | P]
    );
    assert_eq!(
        words_of("SCAIntoMEM_TBL 0 8 0x7fffffff"),
        vec![P | 3 << 20 | 0x30, 8, u32::MAX]
    );
    // Tree forms: QEEMode and CoefMode; floats as IEEE single; _Q6 sent D,E,F,A,B,C.
    let f = |x: f32| x.to_bits();
    assert_eq!(
        words_of("TREEIntoMEM_C0 0 10"),
        vec![P | 1 << 18 | 0x40, 10]
    );
    assert_eq!(
        words_of("TREEIntoMEM_C1 0 10 -0.1"),
        vec![P | 1 << 20 | 1 << 18 | 0x40, 10, f(-0.1)]
    );
    assert_eq!(
        words_of("TREEIntoMEM_L3 0 10 1.0 2.0 0.5"),
        vec![P | 2 << 20 | 2 << 18 | 0x40, 10, f(1.0), f(2.0), f(0.5)]
    );
    assert_eq!(
        words_of("TREEIntoMEM_Q1 4 10 1e3"),
        vec![P | 1 << 20 | 3 << 18 | 4 << 8 | 0x40, 10, f(1000.0)]
    );
    assert_eq!(
        words_of("TREEIntoMEM_Q6 0 10 1 2 3 4 5 0x40c00000"),
        vec![
            P | 3 << 20 | 3 << 18 | 0x40,
            10,
            f(4.0),
            f(5.0),
            f(6.0),
            f(1.0),
            f(2.0),
            f(3.0)
        ]
    );
    // FBITS: FBLD (bit 22) and the FBITS field (30:23).
    assert_eq!(words_of("FBITS 10"), vec![1 << 22 | 10 << 23 | 0x01]);
    // Hardwired MCWRITE: 19-bit address, CoefMode 01, then the C word.
    assert_eq!(
        words_of("MCWRITE 12 0xdeadbeef"),
        vec![1 << 20 | 12 << 8 | 0xfa, 0xdead_beef]
    );
    assert_eq!(
        words_of("MCWRITE 0x7ffff 0"),
        vec![1 << 20 | 0x1ff << 22 | 0x3ff << 8 | 0xfa, 0]
    );
    assert_eq!(words_of("RMODEON"), vec![0xf8]);
    // raw words
    assert_eq!(
        words_of("word 1 0x2 0b11 -1 0xdead_beef"),
        vec![1, 2, 3, u32::MAX, 0xdead_beef]
    );
}

#[test]
fn messages_flush_dest_and_sites() {
    let src = "\
# comment
CLEAR 0 8          ; another comment
message igc flush
CRYIntoMEM 1

message igc dest=6 flush
message igc dest=0x12345678
NOOP
message
MEMplusMEM 0 8 16 8 8 \\
   # continued
";
    let s = parse_ok(src);
    let dests: Vec<u32> = s.messages.iter().map(|m| m.dest).collect();
    assert_eq!(dests, vec![0, 1, 7, 0x1234_5678, 0]);
    assert!(s.messages[1].flushable() && !s.messages[0].flushable());
    assert_eq!(
        s.messages.iter().map(|m| m.line).collect::<Vec<_>>(),
        vec![2, 3, 6, 7, 9]
    );
    assert!(s.messages[2].body.is_empty());
    // Sites index the message's words, the destination first: the body's first word is 1.
    let site = s.messages[4].commands[0];
    assert_eq!((site.word, site.line), (1, 10));
    assert_eq!(
        s.messages[4].command_text(0, &table()).as_deref(),
        Some("MEMplusMEM 0 8 16 8 8")
    );
    assert_eq!(s.messages[4].command_text(1, &table()), None);
    assert_eq!(s.total_words(), 5 + 2 + 1 + 1 + 2);

    let s = parse_ok("NOOP\nSCAIntoMEM_S1 0 8 -7\nTREEIntoMEM_L1 0 8 0.25\nMCWRITE 3 17");
    let m = &s.messages[0];
    let texts: Vec<(u32, u32, String)> = (0..m.commands.len())
        .map(|k| {
            let c = m.commands[k];
            (c.word, c.line, m.command_text(k, &table()).unwrap())
        })
        .collect();
    assert_eq!(
        texts,
        vec![
            (1, 1, "NOOP".to_string()),
            (2, 2, "SCAIntoMEM_S1 0 8 -7".into()),
            (5, 3, "TREEIntoMEM_L1 0 8 0.25".into()),
            (8, 4, "MCWRITE 3 0x00000011".into()),
        ]
    );
}

#[test]
fn implicit_messages_split_at_command_boundaries() {
    // 700 two-word commands: 511 fit in the first message (1 + 1022 words).
    let src = "CLEAR 0 8\n".repeat(700);
    let s = parse_ok(&src);
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[0].len_words(), 1023);
    assert_eq!(s.messages[1].body.len(), 2 * (700 - 511));
    assert_eq!(s.messages[1].line, 512);
    assert_eq!(s.messages[1].commands[0].word, 1);
    assert_eq!(s.messages[1].commands[0].line, 512);
    // exactly full: 1023 one-word commands make one 1024-word message
    let s = parse_ok(&"NOOP\n".repeat(1023));
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].len_words(), MAX_MESSAGE_WORDS);
    let s = parse_ok(&"NOOP\n".repeat(2047));
    assert_eq!(
        s.messages.iter().map(|m| m.len_words()).collect::<Vec<_>>(),
        vec![1024, 1024, 2]
    );
    for m in &s.messages {
        assert!(m.len_words() <= MAX_MESSAGE_WORDS);
        assert_eq!(m.commands.len(), m.body.len());
    }
    // a `message igc auto flush` splits the same way and keeps the flush bit
    let s = parse_ok(&format!(
        "message igc auto flush\n{}",
        "NOOP\n".repeat(1500)
    ));
    assert_eq!(s.messages.len(), 2);
    assert!(s.messages.iter().all(|m| m.dest == 1));
    // a lookup table too long for any message cannot be split
    let tbl = format!("SCAIntoMEM_TBL 0 8 {}", "1 ".repeat(1100));
    let e = parse_err(&format!("NOOP\n{tbl}"));
    assert_eq!(e.line, 2);
    assert!(e.msg.contains("cannot fit"), "{e}");
}

#[test]
fn explicit_messages_over_the_limit_are_errors_unless_oversize() {
    let src = format!("NOOP\n\nmessage igc\n{}", "NOOP\n".repeat(1024));
    let e = parse_err(&src);
    assert_eq!(e.file, "t.pp5s");
    assert_eq!(e.line, 3 + 1024, "{e}");
    assert!(e.msg.contains("line 3") && e.msg.contains("1025"), "{e}");
    assert!(e.to_string().starts_with("t.pp5s:1027: "));

    let s = parse_ok(&format!("message igc oversize\n{}", "NOOP\n".repeat(1024)));
    assert_eq!(s.messages.len(), 1);
    assert_eq!(s.messages[0].len_words(), 1025);

    // BS: 7 scanlines fit (897 words), 8 do not (1025), unless oversize.
    parse_ok("message bs\nBS_RECEIVE 0 0 7 fill=1");
    let e = parse_err("message bs\nBS_RECEIVE 0 0 8 fill=1");
    assert_eq!(e.line, 2);
    assert!(e.msg.contains("1025"), "{e}");
    let s = parse_ok("message bs oversize\nBS_RECEIVE 0 0 128 ramp");
    assert_eq!(s.messages[0].len_words(), 1 + 128 * 128);
    assert_eq!(s.messages[0].body[128 * 128 - 1], 128 * 128 - 1);
}

#[test]
fn unknown_commands_name_the_line_and_suggest() {
    let e = parse_err("NOOP\n\nMEMplusMEN 0 8 16 8 8\n");
    assert_eq!(e.line, 3);
    assert!(e.msg.contains("MEMplusMEN"), "{e}");
    assert!(e.msg.contains("MEMplusMEM"), "{e}");
    let e = parse_err("scaintomem_s1 0 8 1");
    assert!(e.msg.contains("SCAIntoMEM_S1"), "{e}");
    let e = parse_err("SCAIntoMEM 0 8 1");
    assert!(e.msg.contains("SCAIntoMEM_S1"), "{e}");
    let e = parse_err("CLEAR_S1 0 8 1");
    assert!(e.msg.contains("CLEAR has no _S1 form"), "{e}");
    let e = parse_err("IGC_TREEIntoMEM_S1 0 8 1");
    assert!(e.msg.contains("TREEIntoMEM_Q6"), "{e}");
    let e = parse_err("message igc\nBS_NOOP");
    assert!(e.msg.contains("BS port"), "{e}");
    let e = parse_err("BS_VIGC");
    assert!(e.msg.contains("message bs"), "{e}");
    let e = parse_err("message bs\nNOOP");
    assert!(e.msg.contains("BS port"), "{e}");
    let e = parse_err("message igc sideways");
    assert!(e.msg.contains("sideways"), "{e}");
    let e = parse_err("message bs flush");
    assert!(e.msg.contains("flush"), "{e}");
    let e = parse_err("message bs auto");
    assert!(e.msg.contains("IGC"), "{e}");
}

/// One huge token (issue 27 item 8): rejected in time linear in its length, and the message
/// quotes a few dozen of its characters, not all of them; control characters are escaped.
#[test]
fn huge_tokens_are_rejected_quickly_with_a_short_message() {
    let huge = "A".repeat(4_000_000);
    for src in [
        format!("{huge}\n"),
        format!("CLEAR 0 {huge}\n"),
        format!("message igc {huge}\n"),
        format!("message bs\nBS_NOOP\ntxready bs off at={huge}\n"),
    ] {
        let t0 = std::time::Instant::now();
        let e = parse_err(&src);
        let secs = t0.elapsed().as_secs_f64();
        assert!(secs < 2.0, "{secs:.1} s to reject a 4 MB token");
        let text = e.to_string();
        assert!(
            text.len() < 300,
            "{} characters: {}",
            text.len(),
            &text[..300]
        );
        assert!(text.contains("AAAAAAAA"), "{text}");
        assert!(text.contains("4000000 characters"), "{text}");
    }
    let e = parse_err("CL\u{0}EAR 0 8\n").to_string();
    assert!(!e.contains('\0'), "{e:?}");
    assert!(e.contains("CL\\u{0}EAR"), "{e:?}");
}

#[test]
fn bad_numbers_are_errors() {
    for (src, needle) in [
        ("CRYIntoMEM 0xZZ", "0xZZ"),
        ("CRYIntoMEM 12abc", "12abc"),
        ("CRYIntoMEM 99999999999", "32 bits"),
        ("CRYIntoMEM -1", "negative"),
        ("CRYIntoMEM 1.5", "1.5"),
        ("SCAIntoMEM_S1 0 8 1.5", "1.5"),
        ("SCAIntoMEM_S1 0 8 -2147483649", "-2147483649"),
        ("TREEIntoMEM_C1 0 8 1e50", "range"),
        ("TREEIntoMEM_C1 0 8 one", "one"),
        ("word 0x", "0x"),
        ("word", "at least one"),
        ("message dest=zz", "zz"),
        ("message bs\nBS_RECEIVE 0 0 1 fill=x", "fill"),
    ] {
        let e = parse_err(src);
        assert!(e.msg.contains(needle), "{src}: {e}");
        assert_eq!(e.line, src.lines().count(), "{src}");
    }
    // these are fine
    assert_eq!(words_of("SCAIntoMEM_S1 0 8 -2147483648")[2], 0x8000_0000);
    assert_eq!(
        words_of("TREEIntoMEM_C1 0 8 -inf")[2],
        f32::NEG_INFINITY.to_bits()
    );
}

#[test]
fn wrong_argument_counts_are_errors() {
    for (src, needle) in [
        ("MEMplusMEM 0 8 16 8", "MEMplusMEM dst lsrc src dlen slen"),
        ("CRYIntoMEM", "CRYIntoMEM dst"),
        ("NOOP 1", "takes 0"),
        ("SCAIntoMEM_S1 0 8", "SCAIntoMEM_S1 dst dlen S"),
        ("SCAIntoMEM_S0 0 8 5", "takes 2"),
        ("SCAIntoMEM_TBL 0 8", "at least 3"),
        ("TREEIntoMEM_L3 0 10 1.0", "TREEIntoMEM_L3 dst len A B C"),
        ("TREEIntoMEM_Q6 0 10 1 2 3", "A B C D E F"),
        ("MCWRITE 12", "MCWRITE addr C"),
        ("message bs\nBS_SENDSTATUS 1", "BS_SENDSTATUS id retaddr"),
        ("message bs\nBS_TRANSMIT 1 2 3", "takes 4"),
        ("message bs\nBS_RECEIVE 1 2 1 5 6", "needs 128 data words"),
        ("message bs\nBS_PBS 3", "takes 0"),
    ] {
        let e = parse_err(src);
        assert!(e.msg.contains(needle), "{src}: {e}");
        assert_eq!(e.line, src.lines().count());
    }
}

#[test]
fn out_of_range_arguments_are_errors() {
    for (src, needle) in [
        ("CLEAR 207 8", "208 bits"),
        ("CLEAR 200 9", "208 bits"),
        ("CLEAR 208 1", "0..=207"),
        ("CLEAR 0 0", "1..=128"),
        ("MEMplusMEM 0 8 16 8 129", "1..=128"),
        ("MEMplusMEM 0 8 200 8 9", "208 bits"),
        ("TREEIntoMEM_C0 0 74", "73"),
        ("FBITS 31", "0..=30"),
        ("MCWRITE 0x80000 0", "2^19"),
        ("SCAIntoMEM_TBL 0 8 0x80000000 1", "bit 31"),
        ("message bs\nBS_RECEIVE 128 0 1 fill=0", "sector"),
        ("message bs\nBS_TRANSMIT 0 128 1 0", "scanline"),
        ("message bs\nBS_TRANSMIT 0 0 0 0", "no_scanlines"),
        ("message bs oversize\nBS_TRANSMIT 0 0 129 0", "no_scanlines"),
    ] {
        let e = parse_err(src);
        assert!(e.msg.contains(needle), "{src}: {e}");
    }
    // the last legal segment
    assert_eq!(words_of("CLEAR 200 8"), vec![P | 200 << 8 | 0x11, 8]);
}

#[test]
fn bs_messages_use_the_first_opcode_as_destination() {
    let s = parse_ok(
        "message bs\n\
         BS_SENDSTATUS 7 0x40\n\
         BS_RECEIVE 3 5 2 fill=9\n\
         BS_TRANSMIT 1 2 3 0x80\n\
         BS_VIGC\n\
         message bs\n\
         message bs dest=0\n\
         BS_PBS\n\
         message bs\n\
         BS_NOOP\n\
         BS_RECEIVE 127 127 1 ramp\n",
    );
    let m = &s.messages[0];
    assert_eq!(m.port, Port::Bs);
    assert_eq!(m.dest, bs::OP_SENDSTATUS);
    let recv = 2 | 3 << 8 | 5 << 15 | 1 << 22;
    let xmit = 3 | 1 << 8 | 2 << 15 | 2 << 22;
    let mut want = vec![7, 0x40, recv];
    want.extend(std::iter::repeat_n(9, 256));
    want.extend([xmit, 0x80, bs::OP_VIGC]);
    assert_eq!(m.body, want);
    assert_eq!(
        m.commands.iter().map(|c| c.word).collect::<Vec<_>>(),
        vec![0, 3, 260, 262]
    );
    let texts: Vec<String> = (0..4)
        .map(|k| m.command_text(k, &table()).unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "BS_SENDSTATUS 0x7 0x40",
            "BS_RECEIVE 3 5 2 fill=9",
            "BS_TRANSMIT 1 2 3 0x80",
            "BS_VIGC"
        ]
    );
    // empty BS message: a BS_NOOP destination
    assert_eq!((s.messages[1].dest, s.messages[1].body.len()), (0, 0));
    // explicit dest: every command in the body
    assert_eq!(
        (s.messages[2].dest, s.messages[2].body.clone()),
        (0, vec![bs::OP_PBS])
    );
    let m = &s.messages[3];
    assert_eq!(m.dest, bs::OP_NOOP);
    assert_eq!(m.body[0], 2 | 127 << 8 | 127 << 15);
    assert_eq!(m.body[1..], (0..128).collect::<Vec<u32>>()[..]);
    // full data on continuation lines
    let data: Vec<String> = (0..128).map(|i| format!("{}", i * 3)).collect();
    let s = parse_ok(&format!(
        "message bs\nBS_RECEIVE 0 0 1 \\\n{} \\\n{}\n",
        data[..64].join(" "),
        data[64..].join(" ")
    ));
    assert_eq!(s.messages[0].body[127], 381);
    for (h, n) in [
        (bs::Head::decode(recv), 256),
        (bs::Head::decode(xmit), 1),
        (bs::Head::decode(1), 2),
    ] {
        assert_eq!(h.map(|h| h.arg_words()), Some(n));
    }
    assert_eq!(bs::Head::decode(6), None);
    assert_eq!(bs::Head::decode(0x10), None);
}

/// A stream exercising every form, both ports, flush, raw and malformed words.
const RICH: &str = "\
FBITS 12
CRYIntoMEM 5
MEMplusMEM 0 8 16 8 8
SCAIntoMEM_S0 16 8
SCAIntoMEM_S1 16 8 -42
SCAIntoMEM_TBL 0 8 1 2 0x7fffffff
TREEIntoMEM_C1 0 10 -0.1
TREEIntoMEM_L3 0 10 1.0 2.0 0.5
TREEIntoMEM_Q6 0 10 1 2 3 4 5 -6e-3
TREEIntoMEM_Q3 0 10 1e-40 -0.0 inf
TREEIntoMEM_C1 0 10 0x7fc00001
MCWRITE 12 0xdeadbeef
RMODEON
message igc flush
NOOP
word 0x000000ee 0x80000020
message igc dest=0xfffffffe
word 0x80300030 8 1 2
message bs
BS_SENDSTATUS 7 0x40
BS_RECEIVE 3 5 1 ramp
BS_TRANSMIT 1 2 3 0x80
word 9
BS_PBS
message bs
word 0x3
";

#[test]
fn text_binary_round_trip() {
    let s = parse_ok(RICH);
    let mut bytes = Vec::new();
    binary::write(&s, &mut bytes).unwrap();
    assert!(binary::is_binary(&bytes));
    assert_eq!(&bytes[..8], b"PP5R\x01\x00\x00\x00");
    // first message header: port 0, n = 1 + body
    assert_eq!(bytes[8..12], [0, 0, 0, 0]);
    assert_eq!(
        u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize,
        s.messages[0].len_words()
    );
    assert_eq!(bytes.len(), 8 + 8 * s.messages.len() + 4 * s.total_words());
    let back = binary::read(&bytes[..]).unwrap();
    assert!(back.same_words(&s));
    assert_eq!(back.messages.len(), s.messages.len());
    assert!(back.messages.iter().all(|m| m.line == 0));
    // load() picks the format
    let t = table();
    let via_load = pp5_sim::stream::load(&bytes, "x.bin", &t).unwrap();
    assert!(via_load.same_words(&s));
    let via_text = pp5_sim::stream::load(RICH.as_bytes(), "x.pp5s", &t).unwrap();
    assert_eq!(via_text, s);
}

#[test]
fn binary_rejects_bad_input() {
    let s = parse_ok("NOOP\nmessage bs\nBS_VIGC");
    let mut good = Vec::new();
    binary::write(&s, &mut good).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "magic"),
        (b"PP5".to_vec(), "magic"),
        (b"PP5X\x01\0\0\0".to_vec(), "magic"),
        (b"PP5R\x01\0".to_vec(), "truncated"),
        (b"PP5R\x04\0\0\0".to_vec(), "version"),
        // version 2: kind, u64 time, then n or ready
        (b"PP5R\x02\0\0\0\x05\0\0\0".to_vec(), "port"),
        (b"PP5R\x02\0\0\0\x02\0\0\0\0\0".to_vec(), "truncated"),
        (
            b"PP5R\x02\0\0\0\x02\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\x01\0\0\0".to_vec(),
            "reset carries no value",
        ),
        (
            b"PP5R\x02\0\0\0\x03\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff\x01\0\0\0".to_vec(),
            "TxReady change needs",
        ),
        (
            b"PP5R\x02\0\0\0\x04\0\0\0\x05\0\0\0\0\0\0\0\x02\0\0\0".to_vec(),
            "TxReady change needs",
        ),
        (
            b"PP5R\x01\0\0\0\x02\0\0\0\x01\0\0\0\0\0\0\0".to_vec(),
            "port",
        ),
        (b"PP5R\x01\0\0\0\0\0\0\0\0\0\0\0".to_vec(), "length 0"),
        (b"PP5R\x01\0\0\0\0\0\0\0\xff\xff\xff\xff".to_vec(), "length"),
        (
            b"PP5R\x01\0\0\0\0\0\0\0\x01\0\0\x01\0\0\0\0".to_vec(),
            "length",
        ),
        (b"PP5R\x01\0\0\0\0\0\0\0\x00\0\0\x01".to_vec(), "truncated"),
        (b"PP5R\x01\0\0\0\0\0".to_vec(), "truncated"),
        (good[..good.len() - 1].to_vec(), "truncated"),
        (good[..good.len() - 4].to_vec(), "truncated"),
    ];
    for (bytes, needle) in cases {
        match binary::read(&bytes[..]) {
            Ok(s) => panic!("{bytes:?} read as {s:?}"),
            Err(e) => assert!(e.msg.contains(needle), "{bytes:?}: {e}"),
        }
    }
    // an empty stream is fine
    assert_eq!(
        binary::read(&b"PP5R\x01\0\0\0"[..]).unwrap(),
        Stream::default()
    );
}

#[test]
fn arrival_times_and_ring_events_round_trip_through_text_and_binary() {
    let t = table();
    let src = "message at=100\nNOOP\ntxready bs off at=1us\nmessage bs at=0.5us\nBS_VIGC\n\
               txready bs on at=80\nreset\nmessage\nNOOP\nreset at=5000\n";
    let s = parse_ok(src);
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.messages[0].at, Some(100));
    assert_eq!(s.messages[1].at, Some(20), "0.5 us = 20 cycles of 25 ns");
    assert_eq!(s.messages[2].at, None);
    let kinds: Vec<_> = s.events.iter().map(|e| (e.kind, e.before, e.at)).collect();
    use pp5_sim::stream::RingEventKind as K;
    assert_eq!(
        kinds,
        [
            (
                K::TxReady {
                    port: Port::Bs,
                    ready: false
                },
                1,
                Some(40)
            ),
            (
                K::TxReady {
                    port: Port::Bs,
                    ready: true
                },
                2,
                Some(80)
            ),
            (K::Reset, 2, None),
            (K::Reset, 3, Some(5000)),
        ]
    );
    let mut bin = Vec::new();
    binary::write(&s, &mut bin).unwrap();
    assert_eq!(&bin[4..8], &2u32.to_le_bytes(), "times need version 2");
    let back = binary::read(&bin[..]).unwrap();
    assert!(back.same_words(&s));
    let dis = text::disassemble(&s, &t);
    let again = text::parse(&dis, "dis", &t).unwrap_or_else(|e| panic!("{e}\n{dis}"));
    assert!(again.same_words(&s), "{dis}");
    // Without times and events, files stay version 1.
    let mut v1 = Vec::new();
    binary::write(&parse_ok("NOOP"), &mut v1).unwrap();
    assert_eq!(&v1[4..8], &1u32.to_le_bytes());
    for bad in [
        "txready bs off",
        "txready xx on at=5",
        "reset at=-3",
        "message at=5 at=6\nNOOP",
    ] {
        assert!(text::parse(bad, "bad", &t).is_err(), "{bad}");
    }
}

#[test]
fn disassembly_round_trips() {
    let t = table();
    let s = parse_ok(RICH);
    let dis = text::disassemble(&s, &t);
    let back = text::parse(&dis, "dis", &t).unwrap_or_else(|e| panic!("{e}\n{dis}"));
    assert!(back.same_words(&s), "{dis}");
    // it recognised the commands rather than printing words
    for line in [
        "MEMplusMEM 0 8 16 8 8",
        "SCAIntoMEM_S1 16 8 -42",
        "SCAIntoMEM_TBL 0 8 1 2 2147483647",
        "TREEIntoMEM_Q6 0 10 1.0 2.0 3.0 4.0 5.0 -0.006",
        "TREEIntoMEM_Q3 0 10 1e-40 -0.0 inf",
        "TREEIntoMEM_C1 0 10 0x7fc00001",
        "MCWRITE 12 0xdeadbeef",
        "FBITS 12",
        "message igc flush",
        "message igc dest=0xfffffffe",
        "BS_RECEIVE 3 5 1 ramp",
        "BS_SENDSTATUS 0x7 0x40",
        "BS_TRANSMIT 1 2 3 0x80",
    ] {
        assert!(dis.contains(line), "missing `{line}` in\n{dis}");
    }
    assert!(dis.contains("truncated"), "{dis}");
    assert!(dis.contains("not in the opcode table"), "{dis}");
    assert!(dis.contains("bogus BS command"), "{dis}");
    // a second pass is a fixed point
    assert_eq!(text::disassemble(&back, &t), dis);

    // an oversize BS message with arbitrary data
    let mut b = StreamBuilder::new(&t);
    b.begin(MessageOpts {
        limit: Limit::Oversize,
        ..MessageOpts::new(Port::Bs, false)
    })
    .unwrap();
    let data: Vec<u32> = (0..128 * 9u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9))
        .collect();
    b.bs_receive(1, 2, &data).unwrap();
    let s = b.finish();
    let dis = text::disassemble(&s, &t);
    assert!(dis.contains("message bs oversize"));
    assert!(text::parse(&dis, "d", &t).unwrap().same_words(&s));
}

#[test]
fn builder_mirrors_the_macros() {
    let t = table();
    let mut b = StreamBuilder::new(&t);
    b.igc("CLEAR", &[0, 8])
        .unwrap()
        .igc("IGC_SCAIntoMEM_S1", &[16, 8, 42])
        .unwrap()
        .igc_f("TREEIntoMEM_Q6", &[0, 10], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap()
        .igc("SCAIntoMEM_TBL", &[0, 8, 5, 6])
        .unwrap();
    b.message(Port::Igc, true).word(0xabc).unwrap();
    b.message(Port::Bs, false)
        .bs_noop()
        .unwrap()
        .bs_sendstatus(1, 2)
        .unwrap()
        .bs_receive(0, 0, &[4; 128])
        .unwrap()
        .bs_transmit(0, 0, 1, 9)
        .unwrap()
        .bs_pbs()
        .unwrap()
        .bs_vigc()
        .unwrap();
    let s = b.finish();
    let from_text = parse_ok(
        "CLEAR 0 8\nSCAIntoMEM_S1 16 8 42\nTREEIntoMEM_Q6 0 10 1 2 3 4 5 6\nSCAIntoMEM_TBL 0 8 5 6\n\
         message igc flush\nword 0xabc\n\
         message bs\nBS_NOOP\nBS_SENDSTATUS 1 2\nBS_RECEIVE 0 0 1 fill=4\nBS_TRANSMIT 0 0 1 9\nBS_PBS\nBS_VIGC\n",
    );
    assert!(s.same_words(&from_text));
    assert_eq!(
        s.messages[0].command_text(2, &t).as_deref(),
        Some("TREEIntoMEM_Q6 0 10 1.0 2.0 3.0 4.0 5.0 6.0")
    );

    let mut b = StreamBuilder::new(&t);
    assert!(b.igc("CLEAR", &[0]).is_err());
    assert!(b.igc("NOPE", &[]).unwrap_err().0.contains("NOOP"));
    assert!(b.igc_f("SCAIntoMEM_S1", &[0, 8], &[1.0]).is_err());
    assert!(b.bs_noop().is_err());
    assert!(b.bs_receive(0, 0, &[0; 100]).is_err());
    assert!(b.finish().messages.is_empty());
}

#[test]
fn example_streams_parse() {
    // The fixtures are written for the real machine: its standard microcode's table.
    let t = pp5_sim::asm::microcode::standard().table;
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testbench/fixtures/streams");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("pp5s") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let s =
            text::parse(&src, &path.display().to_string(), &t).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.messages.is_empty());
        let dis = text::disassemble(&s, &t);
        assert!(text::parse(&dis, "dis", &t).unwrap().same_words(&s));
        assert!(
            !dis.contains("\nword"),
            "{}: undecoded words\n{dis}",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 3);
    let flush = text::parse(
        &std::fs::read_to_string(dir.join("flush.pp5s")).unwrap(),
        "flush.pp5s",
        &t,
    )
    .unwrap();
    assert_eq!(
        flush.messages.iter().map(|m| m.dest).collect::<Vec<_>>(),
        vec![0, 1, 0]
    );
    let m = &flush.messages[0];
    assert_eq!(
        (3..m.commands.len())
            .map(|k| m.command_text(k, &t).unwrap())
            .collect::<Vec<_>>(),
        ["NOOP"; 4]
    );
    let sector = text::parse(
        &std::fs::read_to_string(dir.join("bs_sector.pp5s")).unwrap(),
        "bs_sector.pp5s",
        &t,
    )
    .unwrap();
    assert_eq!(
        sector
            .messages
            .iter()
            .map(|m| m.len_words())
            .collect::<Vec<_>>(),
        vec![513, 513, 1 + 120 * 128, 4]
    );
}

/// Words that are often valid opcodes of the test table.
fn word_strategy() -> impl Strategy<Value = u32> {
    let cmds = [
        0x00u32, 0x01, 0x10, 0x11, 0x20, 0x30, 0x40, 0xf8, 0xfa, 0xfb,
    ];
    prop_oneof![
        3 => any::<u32>(),
        3 => (0..cmds.len(), any::<u32>(), 0..4u32, 0..4u32, any::<bool>()).prop_map(
            move |(i, r, q, c, long)| (r & 0x0000_ff00) | cmds[i] | q << 18 | c << 20 | (long as u32) << 31
        ),
        2 => 0..16u32,
        1 => (0..128u32, 0..128u32, 0..3u32).prop_map(|(s, l, n)| 2 | s << 8 | l << 15 | n << 22),
        1 => (0..3u32).prop_map(|s| 0x8000_0000 | s),
        1 => any::<f32>().prop_map(f32::to_bits),
    ]
}

/// A message to a port or, one time in three, one the board sent (of a kind its port sends).
fn message_strategy() -> impl Strategy<Value = pp5_sim::stream::Message> {
    (
        any::<bool>(),
        prop_oneof![Just(0u32), Just(1), Just(2), any::<u32>()],
        prop::collection::vec(word_strategy(), 0..300),
        0u8..6,
    )
        .prop_map(|(bs_port, dest, body, sent)| {
            let port = if bs_port { Port::Bs } else { Port::Igc };
            let sent = match (port, sent) {
                (_, 0) => Some(SentKind::Status),
                (Port::Igc, 1) => Some(SentKind::Error),
                (Port::Bs, 1) => Some(SentKind::Data),
                _ => None,
            };
            pp5_sim::stream::Message {
                sent,
                ..pp5_sim::stream::Message::new(port, dest, body)
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn binary_read_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = binary::read(&bytes[..]);
        let mut framed = b"PP5R\x01\0\0\0".to_vec();
        framed.extend_from_slice(&bytes);
        let _ = binary::read(&framed[..]);
    }

    #[test]
    fn text_parse_never_panics(lines in prop::collection::vec(
        prop::collection::vec(prop_oneof![
            Just("message".to_string()), Just("bs".to_string()), Just("word".to_string()),
            Just("oversize".to_string()), Just("flush".to_string()), Just("BS_RECEIVE".to_string()),
            Just("SCAIntoMEM_TBL".to_string()), Just("TREEIntoMEM_Q6".to_string()),
            Just("fill=3".to_string()), Just("ramp".to_string()), Just("\\".to_string()),
            "[ -~]{0,6}",
            any::<i64>().prop_map(|v| v.to_string()),
            any::<f32>().prop_map(|v| format!("{v:?}")),
        ], 0..8), 0..12)) {
        let src = lines.iter().map(|l| l.join(" ")).collect::<Vec<_>>().join("\n");
        let _ = parse(&src);
    }

    #[test]
    fn random_words_disassemble_and_parse_back(msgs in prop::collection::vec(message_strategy(), 0..6)) {
        let t = table();
        let s = Stream {
            events: Vec::new(),
            messages: msgs,
        };
        let sent = |s: &Stream| s.messages.iter().map(|m| m.sent).collect::<Vec<_>>();
        let dis = text::disassemble(&s, &t);
        let back = text::parse(&dis, "dis", &t);
        prop_assert!(back.is_ok(), "{:?}\n{}", back.err(), dis);
        let back = back.unwrap();
        prop_assert!(back.same_words(&s), "{}", dis);
        prop_assert_eq!(sent(&back), sent(&s), "{}", dis);
        if s.messages.iter().any(|m| m.sent.is_some()) {
            prop_assert!(back.check_sendable("dis").is_err());
        }
        // Every command read back knows its text: the line the disassembler printed.
        let lines: Vec<&str> = dis.lines().collect();
        for m in &back.messages {
            for (k, site) in m.commands.iter().enumerate() {
                let printed = lines[site.line as usize - 1].split('#').next().unwrap().trim();
                let text = m.command_text(k, &t);
                let first = text.as_deref().and_then(|x| x.lines().next()).map(str::trim);
                prop_assert_eq!(first, Some(printed), "{}", dis);
            }
        }
        let mut bytes = Vec::new();
        binary::write(&s, &mut bytes).unwrap();
        let read = binary::read(&bytes[..]).unwrap();
        prop_assert!(read.same_words(&s));
        prop_assert_eq!(sent(&read), sent(&s));
    }
}

#[test]
fn messages_the_board_sent_hold_words_only_and_need_format_version_3() {
    let s = parse_ok(
        "message igc sent=error dest=0 at=40\nword 5 0x10000000\n\
         message bs sent=data dest=0x40\nword 1 2 3\n",
    );
    assert_eq!(
        s.messages.iter().map(|m| m.sent).collect::<Vec<_>>(),
        [Some(SentKind::Error), Some(SentKind::Data)]
    );
    assert_eq!(
        (s.messages[1].dest, &s.messages[1].body[..]),
        (0x40, &[1, 2, 3][..])
    );
    let e = s.check_sendable("x.pp5s").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.msg
            .contains("message 0 is one a board sent (`sent=error`"),
        "{e}"
    );
    let dis = text::disassemble(&s, &table());
    assert!(dis.starts_with("# Ring messages a board sent"), "{dis}");
    assert!(
        dis.contains("ID 0x00000005, status 0x10000000: 28 BS formatting error"),
        "{dis}"
    );

    for (src, want) in [
        ("message igc sent=data\nNOOP\n", "NOOP: the message started at line 1 is one the board sent (`sent=data`): it holds `word` lines only"),
        ("message bs sent=status\nBS_NOOP\n", "BS_NOOP: the message started at line 1"),
        ("message igc sent=nope\n", "`sent=nope`: expected sent=status, error or data"),
        ("message igc sent=data sent=data\n", "`sent=` is given twice"),
        ("message igc flush sent=status\n", "takes neither `flush` nor `auto`"),
        ("message igc auto sent=status\n", "takes neither `flush` nor `auto`"),
    ] {
        let e = parse_err(src);
        assert!(e.msg.contains(want), "{src:?}: {e}");
    }

    // Sent records are kinds 5-8 of format version 3; version 2 files do not have them.
    let mut bytes = Vec::new();
    binary::write(&s, &mut bytes).unwrap();
    assert_eq!(bytes[4..8], 3u32.to_le_bytes());
    assert_eq!(bytes[8..12], 6u32.to_le_bytes(), "ERROR from the IGC port");
    let back = binary::read(&bytes[..]).unwrap();
    assert!(back.same_words(&s) && back.messages[1].sent == Some(SentKind::Data));
    bytes[4..8].copy_from_slice(&2u32.to_le_bytes());
    let e = binary::read(&bytes[..]).unwrap_err();
    assert!(e.msg.contains("bad port/kind 6"), "{e}");
    // A stream of messages to the board still writes version 1 or 2.
    let mut plain = Vec::new();
    binary::write(&parse_ok("NOOP\n"), &mut plain).unwrap();
    assert_eq!(plain[4..8], 1u32.to_le_bytes());
}
