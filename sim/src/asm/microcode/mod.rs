//! The IGC microcode assembler (our `asmpp5`): microcode source → an image of store words and
//! the opcode table. The language is described in docs/microcode.md.
//!
//! The passes: `parse` (lines → declarations, labels, microinstruction lines, directives),
//! `table` (the opcode table), `fields` (one microinstruction from its fields), then `passes`
//! (scopes, flow-control lowering, encoding, the dispatch table) builds the image (`image`)
//! and its source map (`source_map`).

mod errors;
mod fields;
mod image;
mod parse;
mod passes;
mod source_map;
mod table;

pub use errors::{AsmError, AsmErrors, AsmNote, Caret, MAX_ASM_ERRORS};
pub use image::{McImage, IMAGE_FORMAT};
pub use source_map::{SourceMap, StoreKind, StoreSource};

/// The standard microcode source, shipped with the simulator (our `igc_microcode.h` source):
/// `sim/microcode/standard.pp5uc` (everything but the QEE) followed by
/// `sim/microcode/qee.pp5uc` (the commands that use `tree`, SUPCFG, SEPCFG).
pub const STANDARD_SOURCE: &str = concat!(
    include_str!("../../../microcode/standard.pp5uc"),
    "\n",
    include_str!("../../../microcode/qee.pp5uc")
);
/// Commands written with the flow-control unit (`sim/microcode/flow.pp5uc`), assembled after
/// the standard microcode into the default image.
pub const FLOW_SOURCE: &str = include_str!("../../../microcode/flow.pp5uc");

/// The image `pp5 run` and `pp5 demo` boot when no `--microcode` is given: the standard
/// microcode plus [`FLOW_SOURCE`].
pub fn default_image() -> McImage {
    let src = format!("{STANDARD_SOURCE}\n{FLOW_SOURCE}");
    assemble(&src, "sim/microcode/standard.pp5uc+qee.pp5uc+flow.pp5uc").unwrap_or_else(|e| {
        unreachable!("the shipped microcode assembles (a unit test checks): {e}")
    })
}

/// File name used in messages about the standard source.
pub const STANDARD_NAME: &str = "sim/microcode/standard.pp5uc+qee.pp5uc";

/// Bit-serial arithmetic for deferred shading (`sim/microcode/shade.pp5uc`): MEMtimesMEM,
/// MEMtimesSCA, MEMmaxZERO, MEMsat. Not in [`default_image`]; [`render_image`] has it.
pub const SHADE_SOURCE: &str = include_str!("../../../microcode/shade.pp5uc");

/// The image for rendering and shading studies: the standard microcode, [`FLOW_SOURCE`] and
/// [`SHADE_SOURCE`], in that order, so every command of [`default_image`] keeps its CMD number
/// (the shading commands are numbered after GCDSTEPS) and a stream built for the default image
/// runs unchanged. Everything fits the control store (the shading ladders are most of it), but
/// it boots longer than the default image, which is why `pp5 run` and `pp5 demo` do not load
/// it. Both flow.pp5uc and shade.pp5uc set the flow-control unit's full mode; their loop
/// constants are different ones (0 and 1).
pub fn render_image() -> McImage {
    assemble(&render_source(), RENDER_NAME).unwrap_or_else(|e| {
        unreachable!("the shipped microcode assembles (a unit test checks): {e}")
    })
}

/// The source [`render_image`] assembles, as one text (`pp5 run --microcode` on a file holding
/// it boots the same image).
pub fn render_source() -> String {
    format!("{STANDARD_SOURCE}\n{FLOW_SOURCE}\n{SHADE_SOURCE}")
}

/// File name used in messages about the render image's source.
pub const RENDER_NAME: &str = "sim/microcode/standard.pp5uc+qee.pp5uc+flow.pp5uc+shade.pp5uc";

/// Assemble several sources as one, in order (a user's copy of standard.pp5uc, then
/// qee.pp5uc, flow.pp5uc, ...): an error names the file and line it is in.
pub fn assemble_files(parts: &[(String, String)]) -> Result<McImage, AsmErrors> {
    assemble_files_mapped(parts).map(|(image, _)| image)
}

/// [`assemble_files`], with the source map of the image: each entry names the file it came
/// from (as given in `parts`) and its line there.
pub fn assemble_files_mapped(
    parts: &[(String, String)],
) -> Result<(McImage, SourceMap), AsmErrors> {
    let mut text = String::new();
    // (first line in `text`, file) of each part.
    let mut starts = Vec::new();
    for (file, src) in parts {
        // The part starts on the line after the newlines so far.
        starts.push((text.matches('\n').count() + 1, file.as_str()));
        text.push_str(src);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    let name = parts
        .iter()
        .map(|(f, _)| f.as_str())
        .collect::<Vec<_>>()
        .join("+");
    // Move a line of `text` to its part's file and line.
    let locate = |file: &mut String, line: &mut usize| {
        if let Some(&(start, f)) = starts.iter().rev().find(|(s, _)| *s <= *line) {
            *line = *line - start + 1;
            *file = f.to_string();
        }
    };
    match assemble_mapped(&text, &name) {
        Ok((image, mut map)) => {
            for e in &mut map.entries {
                locate(&mut e.file, &mut e.line);
            }
            Ok((image, map))
        }
        Err(mut errs) => {
            for e in &mut errs.errors {
                locate(&mut e.file, &mut e.line);
                if let Some(n) = &mut e.note {
                    locate(&mut n.file, &mut n.line);
                }
            }
            Err(errs)
        }
    }
}

/// The sources of [`default_image`] as files (`standard.pp5uc`, `qee.pp5uc`,
/// `flow.pp5uc`), for [`assemble_files_mapped`] and a listing.
pub fn default_parts() -> Vec<(String, String)> {
    [
        ("standard.pp5uc", STANDARD_PP5UC),
        ("qee.pp5uc", QEE_PP5UC),
        ("flow.pp5uc", FLOW_SOURCE),
    ]
    .into_iter()
    .map(|(f, s)| (f.to_string(), s.to_string()))
    .collect()
}

/// The sources of [`render_image`] as files: [`default_parts`] and `shade.pp5uc`.
pub fn render_parts() -> Vec<(String, String)> {
    let mut parts = default_parts();
    parts.push(("shade.pp5uc".to_string(), SHADE_SOURCE.to_string()));
    parts
}

/// `sim/microcode/standard.pp5uc` alone (the first part of [`STANDARD_SOURCE`]).
pub const STANDARD_PP5UC: &str = include_str!("../../../microcode/standard.pp5uc");
/// `sim/microcode/qee.pp5uc` alone (the second part of [`STANDARD_SOURCE`]).
pub const QEE_PP5UC: &str = include_str!("../../../microcode/qee.pp5uc");

/// Assemble the standard microcode.
pub fn standard() -> McImage {
    assemble(STANDARD_SOURCE, STANDARD_NAME)
        .unwrap_or_else(|e| panic!("the standard microcode must assemble:\n{e}"))
}

/// Assemble a microcode source. `file` names it in error messages.
pub fn assemble(src: &str, file: &str) -> Result<McImage, AsmErrors> {
    assemble_mapped(src, file).map(|(image, _)| image)
}

/// [`assemble`], with the source map of the image (file `file`, lines of `src`).
pub fn assemble_mapped(src: &str, file: &str) -> Result<(McImage, SourceMap), AsmErrors> {
    passes::assemble(src, file).map_err(|mut e| {
        e.mark_columns(src);
        e
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pp5_rtl::igc::microinstruction::{Base, LLoad};
    use pp5_rtl::igc::opcode::CMD_NOOP;
    use pp5_rtl::igc::store::CONTROL_STORE_UINSTS;

    #[test]
    fn standard_microcode_assembles() {
        let img = standard();
        assert!(img.table.get("MEMplusMEM").is_some());
        assert_eq!(img.table.get("NOOP").map(|c| c.cmd), Some(CMD_NOOP));
    }

    #[test]
    fn demo_microcode_assembles() {
        let img = default_image();
        assert!(img.table.get("GCDSTEPS").is_some());
        assert_eq!(
            img.table.commands.len(),
            standard().table.commands.len() + 1
        );
    }

    #[test]
    fn several_files_assemble_as_one_and_errors_name_their_file_and_line() {
        let parts = vec![
            ("a.pp5uc".to_string(), STANDARD_SOURCE.to_string()),
            ("b.pp5uc".to_string(), FLOW_SOURCE.to_string()),
        ];
        let img = assemble_files(&parts).expect("assembles");
        assert_eq!(img.table, default_image().table);
        let bad = vec![
            ("a.pp5uc".to_string(), "; one\n; two".to_string()),
            (
                "b.pp5uc".to_string(),
                "; first\nnosuch: r=zork\n".to_string(),
            ),
        ];
        let e = assemble_files(&bad).expect_err("fails").to_string();
        assert!(e.starts_with("b.pp5uc:2:"), "{e}");
    }

    #[test]
    fn render_microcode_assembles() {
        let img = render_image();
        let default = default_image();
        for c in &default.table.commands {
            assert_eq!(
                img.table.get(&c.name).map(|s| s.cmd),
                Some(c.cmd),
                "{}",
                c.name
            );
        }
        for name in ["MEMtimesMEM", "MEMtimesSCA", "MEMmaxZERO", "MEMsat"] {
            assert!(img.table.get(name).is_some(), "{name}");
        }
        assert_eq!(img.table.commands.len(), default.table.commands.len() + 4);
        assert!(img.uinsts as usize <= CONTROL_STORE_UINSTS);
        assert_eq!(
            assemble(&render_source(), "<t>").map(|i| i.words),
            Ok(img.words)
        );
    }

    #[test]
    fn an_immediate_loop_count_is_not_a_comment() {
        let img = assemble(
            ".command A() -> a\na: l=#7 # comment\n dispatch ; c\n",
            "<t>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let w: Vec<u32> = (0..4).map(|k| img.words[k].1).collect();
        let m = pp5_rtl::igc::microinstruction::decode(&[w[0], w[1], w[2], w[3]]).unwrap();
        assert_eq!((m.l_load, m.imm), (LLoad::Imm, 7));
        assert_eq!(img.uinsts, 2);
    }

    #[test]
    fn constant_addresses_share_imm8() {
        let img = assemble(
            ".command A() -> a\na: a=mem[#40+i] wall=mem[#40+i] r=a i++\n dispatch\n",
            "<t>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let w: Vec<u32> = (0..4).map(|k| img.words[k].1).collect();
        let m = pp5_rtl::igc::microinstruction::decode(&[w[0], w[1], w[2], w[3]]).unwrap();
        assert_eq!((m.a.base, m.w.base, m.imm), (Base::Imm, Base::Imm, 40));
        for bad in [
            "a=mem[#40] w=mem[#41] r=a",
            "a=mem[#40] l=#3",
            "a=mem[#300]",
        ] {
            let src = format!(".command A() -> a\na: {bad}\n dispatch\n");
            assert!(assemble(&src, "<t>").is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_name_lines() {
        let src = "idle: dispatch\n.command X(dst:addr) -> nowhere\nfoo: a=mem[dst] bogus\n";
        let e = assemble(src, "t.pp5uc").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("t.pp5uc:2:"), "{text}");
        assert!(text.contains("t.pp5uc:3:"), "{text}");
    }
}
