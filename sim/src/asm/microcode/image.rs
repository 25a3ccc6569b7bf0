//! An assembled microcode image: the store words, the opcode table and the labels, its file
//! format (JSON), and the command-stream messages that load it.

use super::assemble;
use crate::asm::opcodes::OpcodeTable;
use pp5_rtl::igc::opcode::CMD_NOOP;
use serde::{Deserialize, Serialize};

/// An assembled microcode image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McImage {
    /// Identifies the file format.
    pub format: String,
    /// `(store address, word)` pairs, in the order MCWRITE should send them.
    pub words: Vec<(u32, u32)>,
    /// The commands the image implements (plus the hardwired ones).
    pub table: OpcodeTable,
    /// Label → microinstruction address.
    pub labels: Vec<(String, u32)>,
    /// Number of microinstructions.
    pub uinsts: u32,
}

/// Format tag of image files.
pub const IMAGE_FORMAT: &str = "pp5-microcode-image-v1";

impl McImage {
    /// Command-stream words that load this image exactly as the seed prescribes
    /// (§III.4.2.5.3): two NOOPs, RMODEON, one MCWRITE per word, NOOP (resets the PC),
    /// RMODEOFF. Returned as message bodies of at most `max_body` words each.
    pub fn boot_messages(&self, max_body: usize) -> Vec<Vec<u32>> {
        use pp5_rtl::igc::opcode::{
            hardwired_addr_bits, CMD_MCWRITE, CMD_RMODEOFF, CMD_RMODEON, COEFMODE_SHIFT,
        };
        let mut cmds: Vec<Vec<u32>> = vec![
            vec![CMD_NOOP as u32],
            vec![CMD_NOOP as u32],
            vec![CMD_RMODEON as u32],
        ];
        for &(a, v) in &self.words {
            cmds.push(vec![
                CMD_MCWRITE as u32 | hardwired_addr_bits(a) | 1 << COEFMODE_SHIFT,
                v,
            ]);
        }
        cmds.push(vec![CMD_NOOP as u32]);
        cmds.push(vec![CMD_RMODEOFF as u32]);
        let mut msgs: Vec<Vec<u32>> = vec![Vec::new()];
        for c in cmds {
            if msgs.last().is_some_and(|m| m.len() + c.len() > max_body) {
                msgs.push(Vec::new());
            }
            if let Some(m) = msgs.last_mut() {
                m.extend(c);
            }
        }
        msgs
    }

    /// Read an image file (JSON) or assemble a source, by content.
    pub fn load(text: &str, file: &str) -> Result<McImage, String> {
        if text.trim_start().starts_with('{') {
            let img: McImage = serde_json::from_str(text)
                .map_err(|e| format!("{file}: not a microcode image: {e}"))?;
            if img.format != IMAGE_FORMAT {
                return Err(format!(
                    "{file}: unknown image format `{}` (expected {IMAGE_FORMAT})",
                    img.format
                ));
            }
            Ok(img)
        } else {
            assemble(text, file).map_err(|e| e.to_string())
        }
    }
}
