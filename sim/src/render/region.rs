//! The command stream of one region on one Renderer (docs/rendering.md, "A region's
//! commands"), built with the stream builder and the IGC command set:
//!
//! 1. **Set-up**: SEPCFG of every EMC's configuration register to the region's origin (64
//!    commands, each followed by the two NOOPs the seed requires), unless the array is already
//!    mapped there; CLEAR of z, normal and albedo.
//! 2. **Per primitive**: FCMEMA (the z-buffer test starts the Enable), three TREEgeZERO (the
//!    edges), TREEIntoMEM of z, the normal's three components and the albedo's three.
//! 3. **Deferred shading** ([`super::shading`]): diffuse and specular from the stored normal
//!    and albedo, the background where nothing was drawn, into scratch.
//! 4. **Output**: PIGC (a free buffer), BSWAIT (bits 0-31 free), CPY into bits 0-31, BSSTORE
//!    into the buffer's sector, VBSlater; on the BS port: BS_PBS, BS_TRANSMIT of the sector's
//!    128 scanlines to the frame buffer, BS_VIGC.

use super::gp::{Frame, Prim};
use super::layout::{ALBEDO, CLEAR_FROM, CLEAR_LEN, FBITS, NORMAL, OUT, Z, Z_LEN};
use super::shading::{self, Cmds, Shading};
use crate::asm::opcodes::EncodeError;
use crate::asm::opcodes::OpcodeTable;
use crate::stream::builder::{MessageOpts, StreamBuilder};
use crate::stream::{Port, Stream};
use pp5_rtl::emc_array::{EMCS_PER_ROW, EMC_COLS, EMC_ROWS, NUM_EMCS};

/// The Ring address of the frame buffer, where BS_TRANSMIT sends a region's scanlines.
pub const FRAME_BUFFER: u32 = 0x40;
/// The two backing-store sectors a Renderer double-buffers its regions' colours in.
pub const SECTORS: [u32; 2] = [0, 1];

/// The configuration word of EMC `k` for the region at screen origin (x, y): the EMC's own
/// origin, x in bits 15:0 and y in bits 31:16 (docs/model-choices.md, "QEE configuration
/// register").
pub fn emc_origin(k: usize, x: i64, y: i64) -> u32 {
    let ex = x + ((k % EMCS_PER_ROW) * EMC_COLS) as i64;
    let ey = y + ((k / EMCS_PER_ROW) * EMC_ROWS) as i64;
    (ex as u16 as u32) | (ey as u16 as u32) << 16
}

/// Commands of a region's stages: set-up, shading, output (the primitives' are
/// [`PRIM_COMMANDS`] each).
pub type StageCounts = (usize, usize, usize);

/// IGC commands per primitive: FCMEMA, three TREEgeZERO, seven TREEIntoMEM.
pub const PRIM_COMMANDS: usize = 11;

/// A Renderer's stream, region by region: what it needs to know between regions (a clone
/// builds a region's stream ahead, to size it, without changing the original).
#[derive(Clone)]
pub struct RendererStream<'t> {
    table: &'t OpcodeTable,
    /// The origin the array is mapped to (the identity mapping after reset: (0, 0)).
    mapped: (i64, i64),
    /// Regions started so far (the buffer of the next is `regions % 2`).
    regions: usize,
}

impl<'t> RendererStream<'t> {
    pub fn new(table: &'t OpcodeTable) -> Self {
        RendererStream {
            table,
            mapped: (0, 0),
            regions: 0,
        }
    }

    /// The start of a Renderer's stream: FBITS, all PEs enabled, and on the BS port both
    /// buffers free (two BS_VIGC). Two IGC commands.
    pub fn prologue(&self) -> Result<Stream, EncodeError> {
        let mut b = StreamBuilder::new(self.table);
        b.message(Port::Igc, false);
        b.igc("FBITS", &[FBITS])?;
        b.igc("SETENABS", &[])?;
        b.message(Port::Bs, false);
        b.bs_vigc()?;
        b.bs_vigc()?;
        Ok(b.finish())
    }

    /// The stream of region `r` of `frame`, and its stages' command counts.
    pub fn region(
        &mut self,
        frame: &Frame,
        r: usize,
        shading: &Shading,
    ) -> Result<(Stream, StageCounts), EncodeError> {
        let origin = frame.bins.origin(r);
        let sector = SECTORS[self.regions % SECTORS.len()];
        self.regions += 1;
        let mut b = StreamBuilder::new(self.table);
        // The IGC's commands in as many messages as the Ring's 1024-word limit needs.
        b.begin(MessageOpts::implicit())?;
        let mut c = Cmds::new(&mut b);
        if self.mapped != origin {
            // Each SEPCFG is followed by the two NOOPs the seed requires (§III.4.2.5.4).
            for k in 0..NUM_EMCS {
                let word = emc_origin(k, origin.0, origin.1);
                c.igc("SEPCFG_S1", &[k as u32, 32, word])?;
                c.igc("NOOP", &[])?;
                c.igc("NOOP", &[])?;
            }
            self.mapped = origin;
        }
        c.igc("CLEAR", &[CLEAR_FROM, CLEAR_LEN])?;
        let setup = c.count;
        for &p in &frame.bins.regions[r] {
            primitive(&mut c, &frame.prims[p as usize])?;
        }
        c.count = 0;
        shading::commands(&mut c, shading)?;
        let shade = c.count;
        c.count = 0;
        c.igc("PIGC", &[])?;
        c.igc("BSWAIT", &[])?;
        c.igc("CPY", &[OUT, shading::COLOUR, 24])?;
        c.igc("CLEAR", &[OUT + 24, 8])?;
        c.igc("BSSTORE", &[sector])?;
        c.igc("VBSlater", &[])?;
        let output = c.count;
        b.message(Port::Bs, false);
        b.bs_pbs()?;
        b.bs_transmit(sector, 0, 128, FRAME_BUFFER)?;
        b.bs_vigc()?;
        Ok((b.finish(), (setup, shade, output)))
    }
}

/// The commands that draw one primitive: z test, edges, attribute writes.
fn primitive(c: &mut Cmds, p: &Prim) -> Result<(), EncodeError> {
    c.igc_f("FCMEMA_L3", &[Z, Z_LEN], &p.z)?;
    for e in &p.edges {
        c.igc_f("TREEgeZERO_L3", &[], e)?;
    }
    c.igc_f("TREEIntoMEM_L3", &[Z, Z_LEN], &p.z)?;
    for (k, n) in p.normal.iter().enumerate() {
        c.igc_f("TREEIntoMEM_L3", &[NORMAL + 8 * k as u32, 8], n)?;
    }
    for (k, a) in p.albedo.iter().enumerate() {
        c.igc_f("TREEIntoMEM_L3", &[ALBEDO + 8 * k as u32, 8], a)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emc_origins_tile_the_region() {
        assert_eq!(emc_origin(0, 0, 0), 0);
        assert_eq!(emc_origin(17, 0, 0), 8 | 32 << 16);
        let w = emc_origin(63, 1152, 896);
        assert_eq!((w & 0xffff, w >> 16), (1152 + 120, 896 + 96));
    }
}
