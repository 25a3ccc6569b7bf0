//! The names the waveform shows in the IGC's scope beside its registers (the latched
//! command's, the executed microinstruction's source): simulation annotations from the
//! microcode's assembly, for the debugger, each a decode function over the table it names by.

use crate::trace::DecodeWith;
use std::sync::Arc;

/// Per microinstruction address: `(routine+offset, file:line)` ([`IgcNames::set_uinsts`]).
pub type UinstNames = Arc<[(Box<str>, Box<str>)]>;

/// The names the waveform shows in the IGC's scope beside its registers: simulation
/// annotations from the microcode's assembly, kept by whoever walks the board (the
/// waveform's context, `renderer::TraceCtx`), not hardware state. Each is a decode function
/// over the table it names by (the record carries the number): fix them before the first
/// walk.
#[derive(Clone)]
pub struct IgcNames {
    /// `command`: the latched command's name by its dispatch index.
    pub(super) command: DecodeWith,
    /// `uinst.at` and `.src`, by the executed microinstruction's address; `None`: the
    /// microcode's sources are unknown, and so are those signals.
    pub(super) uinst: Option<DecodeWith>,
}

impl Default for IgcNames {
    fn default() -> Self {
        let mut names = IgcNames {
            command: Arc::new(|_, _| {}),
            uinst: None,
        };
        names.set_commands(Arc::from([]));
        names
    }
}

impl std::fmt::Debug for IgcNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IgcNames")
            .field("uinst", &self.uinst.is_some())
            .finish_non_exhaustive()
    }
}

impl IgcNames {
    /// The commands' names by dispatch index (the opcode's `cmd` field), from the opcode table
    /// the microcode was assembled with, shown as `renderer.igc.command`
    /// (docs/model-choices.md, "Waveform annotations"). An empty or missing name shows as
    /// `CMD_0x..`.
    pub fn set_commands(&mut self, names: Arc<[Box<str>]>) {
        self.command = Arc::new(move |w, t| {
            let cmd = w.first().copied().unwrap_or(0) as u8;
            match names.get(usize::from(cmd)) {
                Some(name) if !name.is_empty() => t.text("command", name),
                _ => t.text("command", &format!("CMD_0x{cmd:02x}")),
            }
        });
    }

    /// Where each microinstruction came from in the microcode's sources, by address: its
    /// routine and offset (`MEMplusMEM+3`) and its source position (`standard.pp5uc:141`),
    /// shown as `renderer.igc.uinst.at` and `.src` (docs/microcode.md, "Debugging
    /// microcode"). Empty: no such signals.
    pub fn set_uinsts(&mut self, names: UinstNames) {
        self.uinst = (!names.is_empty()).then(|| -> DecodeWith {
            Arc::new(move |w, t| {
                let pc = w.first().copied().unwrap_or(0) as usize;
                let (at, src) = names.get(pc).map_or(("", ""), |(a, s)| (&**a, &**s));
                t.text("at", at);
                t.text("src", src);
            })
        });
    }
}
