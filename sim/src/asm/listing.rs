//! The listing of an assembled microcode image (issue 28): per microinstruction its store
//! address, its four encoded words, its routine and offset, its source file and line and
//! the source text; under a flow-control construct's line, the flow-control instruction it
//! was lowered to; then the other store words (dispatch entries, flow-control constants).
//!
//! ```text
//! ; uinst store  W0       W1       W2       W3        at                   source
//!   0f3   03cc   00000000 ... ...                    GCDSTEPS+2           flow.pp5uc:19         REP 0
//!                ; lowered: REP jump_func=0x00 const=0 -> 101 (GCDSTEPS+16)
//! ```

use super::microcode::{McImage, SourceMap, StoreKind, StoreSource};
use pp5_rtl::flow_control::instruction::{AOp, BOp, FcOp};
use pp5_rtl::igc::microinstruction::{decode, Base, Microinstruction, WORDS_PER_UINST};
use std::collections::HashMap;
use std::fmt::Write;

/// The listing of `image`, whose sources `map` gives; `sources` are the `(file, text)` parts
/// it was assembled from (as given to `assemble_files_mapped`), for the source text. A
/// store word without a source entry (an image read from a file has no map) is listed with
/// `?` for its source.
pub fn listing(image: &McImage, map: &SourceMap, sources: &[(String, String)]) -> String {
    let texts: HashMap<&str, Vec<&str>> = sources
        .iter()
        .map(|(f, t)| (f.as_str(), t.lines().collect()))
        .collect();
    let text_of = |e: &StoreSource| -> &str {
        texts
            .get(e.file.as_str())
            .and_then(|lines| lines.get(e.line.wrapping_sub(1)))
            .map_or("", |l| l.trim_start_matches('\u{feff}').trim_end())
    };
    let words: HashMap<u32, u32> = image.words.iter().copied().collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; microcode listing: {} microinstructions, {} store words",
        image.uinsts,
        image.words.len()
    );
    let _ = writeln!(
        out,
        "; uinst store  {:<35}  {:<20} {:<21} text",
        "W0       W1       W2       W3", "at", "source"
    );
    for pc in 0..image.uinsts {
        let base = pc * WORDS_PER_UINST as u32;
        let w: [u32; 4] =
            std::array::from_fn(|k| words.get(&(base + k as u32)).copied().unwrap_or(0));
        let e = map.uinst(pc);
        let _ = writeln!(
            out,
            "  {pc:03x}   {base:04x}   {:08x} {:08x} {:08x} {:08x}  {}",
            w[0],
            w[1],
            w[2],
            w[3],
            source_columns(e, &text_of)
        );
        if let (Some(e), Ok(m)) = (e, decode(&w)) {
            if e.construct {
                let _ = writeln!(out, "{:15}; lowered: {}", "", lowered(&m, map));
            }
        }
    }
    let _ = writeln!(out, "; dispatch entries and flow-control words");
    for e in map
        .entries
        .iter()
        .filter(|e| !matches!(e.kind, StoreKind::Uinst { .. }))
    {
        let v = words.get(&e.addr).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "        {:04x}   {v:08x}{:29}{}",
            e.addr,
            "",
            source_columns(Some(e), &text_of)
        );
    }
    out
}

/// The `at`, `source` and `text` columns of a store word.
fn source_columns<'a>(
    e: Option<&'a StoreSource>,
    text_of: &impl Fn(&'a StoreSource) -> &'a str,
) -> String {
    match e {
        Some(e) => {
            let at = match (&e.routine, e.kind) {
                (None, StoreKind::FlowControl) => "-".to_string(),
                _ => e.at(),
            };
            format!("{at:<20} {:<21} {}", e.position(), text_of(e))
        }
        None => format!("{:<20} {:<21}", "?", "?"),
    }
}

/// The flow-control instruction a construct was lowered to: its operation and the fields
/// that are not zero, its predicate, and where it jumps.
fn lowered(m: &Microinstruction, map: &SourceMap) -> String {
    let Some(fc) = m.fc else {
        return "(not a flow-control instruction)".to_string();
    };
    let mut s = format!("{} jump_func={:#04x}", fc.op.name(), fc.jump_func);
    let flags = [
        (fc.jump_any, "jump_any".to_string()),
        (fc.b_else, "b_else".to_string()),
        (fc.ignore_uncovered, "ignore_uncovered".to_string()),
        (fc.a_op != AOp::None, format!("a_op={}", fc.a_op.name())),
        (fc.b_op0 != BOp::None, format!("b_op0={}", fc.b_op0.name())),
        (fc.b_op1 != BOp::None, format!("b_op1={}", fc.b_op1.name())),
        (fc.b_pop_cnt != 0, format!("b_pop_cnt={}", fc.b_pop_cnt)),
        // LOOP and REP select a loop constant, even constant 0.
        (
            m.fc_const != 0 || matches!(fc.op, FcOp::Loop | FcOp::Rep),
            format!("const={}", m.fc_const),
        ),
        (m.fc_bool != 0, format!("bool={}", m.fc_bool)),
        (m.a.base != Base::Off, "predicate=port A".to_string()),
    ];
    for (on, f) in flags {
        if on {
            s.push(' ');
            s.push_str(&f);
        }
    }
    let target = u32::from(m.target);
    if fc.op == FcOp::Jump && fc.a_op == AOp::Pop {
        // A RETURN jumps to the address its CALL pushed, not to its TARGET field.
        s.push_str(" -> the return address");
    } else if fc.op == FcOp::Jump && fc.jump_any && fc.jump_func == 0 && !fc.b_else {
        // An ENDIF/POP never jumps: its TARGET field is unused.
        s.push_str(" (never jumps)");
    } else {
        let _ = write!(s, " -> {target:03x}");
        if let Some(t) = map.uinst(target) {
            let _ = write!(s, " ({})", t.at());
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::microcode::{assemble_files_mapped, default_image, default_parts};

    fn parts(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn a_construct_is_listed_at_its_own_line_with_its_lowered_form_under_it() {
        let src = parts(&[
            (
                "a.pp5uc",
                "; decls\n.command TWICE(x:addr) -> twice\n.fcconst 3 count=2\n",
            ),
            (
                "b.pp5uc",
                "twice:  i=0 l=#8\n        LOOP 3\n        IF mem[x]\n        c=0\n        ELSE\n        c=1\n        ENDIF\n        ENDLOOP\n        dispatch\n",
            ),
        ]);
        let (image, map) = assemble_files_mapped(&src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(image.uinsts, 9);
        let if_ = map.uinst(2).expect("IF has a source");
        assert_eq!((if_.file.as_str(), if_.line), ("b.pp5uc", 3));
        assert!(if_.construct);
        assert_eq!(if_.at(), "TWICE+2");
        assert!(!map.uinst(3).expect("c=0").construct);
        let text = listing(&image, &map, &src);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("b.pp5uc:3") && l.ends_with("IF mem[x]"))
            .unwrap_or_else(|| panic!("the IF's line:\n{text}"));
        assert!(lines[at].starts_with("  002   0008   "), "{}", lines[at]);
        assert!(
            lines[at + 1].contains("; lowered: JUMP")
                && lines[at + 1].contains("b_op0=INCR b_op1=INCR")
                && lines[at + 1].contains("predicate=port A")
                && lines[at + 1].ends_with("-> 005 (TWICE+5)"),
            "the IF jumps past its ELSE:\n{text}"
        );
        let lp = lines
            .iter()
            .position(|l| l.contains("b.pp5uc:2") && l.ends_with("LOOP 3"))
            .unwrap_or_else(|| panic!("the LOOP's line:\n{text}"));
        assert!(lines[lp + 1].contains("; lowered: LOOP jump_func=0x00 const=3 -> 008"));
        // An ENDIF never jumps, so it shows no target (issue 37 item 11: RET showed `-> 000`).
        let endif = lines.iter().position(|l| l.ends_with("ENDIF")).unwrap();
        assert!(
            lines[endif + 1].ends_with("(never jumps)"),
            "{}",
            lines[endif + 1]
        );
        let row = |pos: &str, text: &str| format!("{pos:<21} {text}");
        assert!(text.contains(&row("a.pp5uc:2", ".command TWICE(x:addr) -> twice")));
        assert!(text.contains(&row("a.pp5uc:3", ".fcconst 3 count=2")));
        assert_eq!(text.matches("; lowered:").count(), 5, "{text}");
    }

    #[test]
    fn every_store_word_of_the_default_image_has_a_source() {
        let src = default_parts();
        let (image, map) = assemble_files_mapped(&src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(image, default_image());
        assert_eq!(map.entries.len(), image.words.len());
        let texts: HashMap<&str, Vec<&str>> = src
            .iter()
            .map(|(f, t)| (f.as_str(), t.lines().collect()))
            .collect();
        for &(addr, _) in &image.words {
            let e = map
                .get(addr)
                .unwrap_or_else(|| panic!("store address {addr:#x} has no source"));
            let line = texts[e.file.as_str()][e.line - 1];
            let code = line.split(';').next().unwrap_or("").trim();
            match e.kind {
                StoreKind::Uinst { uinst, .. } => {
                    assert_eq!(uinst, addr / WORDS_PER_UINST as u32);
                    assert!(
                        !code.is_empty() && !code.starts_with('.'),
                        "{addr:#x}: {line}"
                    );
                    assert!(e.routine.is_some(), "{addr:#x}: {line}");
                }
                StoreKind::Dispatch => assert!(code.starts_with(".command"), "{line}"),
                StoreKind::FlowControl => assert!(code.starts_with(".fc"), "{line}"),
            }
        }
        let label = |l: &str| image.labels.iter().find(|x| x.0 == l).map(|x| x.1);
        let at = |pc: Option<u32>| map.uinst(pc.expect("label")).map(|e| e.at());
        assert_eq!(at(label("idle")).as_deref(), Some("idle+0"));
        assert_eq!(at(label("noop")).as_deref(), Some("NOOP+0"));
        assert_eq!(at(label("memplusmem_l")).as_deref(), Some("MEMplusMEM+1"));
        assert_eq!(at(label("gcd_clr")).as_deref(), Some("GCDSTEPS+1"));
        let e = map
            .uinst(label("memplusmem").expect("label"))
            .expect("source");
        assert_eq!(e.file, "standard.pp5uc");
        assert!(texts["standard.pp5uc"][e.line - 1].starts_with("memplusmem:"));
        let text = listing(&image, &map, &src);
        assert_eq!(
            text.lines().count(),
            2 + image.uinsts as usize
                + 1
                + (image.words.len() - 4 * image.uinsts as usize)
                + text.matches("; lowered:").count()
        );
    }
}

#[cfg(test)]
mod returns {
    use super::listing;
    use crate::asm::microcode::assemble_files_mapped;

    /// A RETURN goes to the address its CALL pushed: the listing says so instead of showing
    /// its unused TARGET field as `-> 000` (issue 37 item 11).
    #[test]
    fn a_return_goes_to_the_return_address() {
        let src = vec![(
            "r.pp5uc".to_string(),
            "idle: dispatch\ns:  e=1\n    RET\n".to_string(),
        )];
        let (image, map) = assemble_files_mapped(&src).unwrap_or_else(|e| panic!("{e}"));
        let text = listing(&image, &map, &src);
        let ret = text.lines().position(|l| l.ends_with("RET")).unwrap();
        let lowered = text.lines().nth(ret + 1).unwrap();
        assert!(
            lowered.ends_with("a_op=POP -> the return address"),
            "{lowered}"
        );
    }
}
