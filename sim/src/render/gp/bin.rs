//! Binning: which 128×128 regions (a Renderer's array mapped onto the screen) each primitive
//! can cover, by its bounding box, as the GPs sorted primitives for the Renderers.

use super::setup::Prim;
use pp5_rtl::emc_array::plane::ARRAY_DIM;

/// The side of a region: one Renderer's array.
pub const REGION: i64 = ARRAY_DIM as i64;

/// The primitives of every region, in primitive order (the order they are drawn in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bins {
    /// Regions across and down the screen.
    pub cols: u32,
    pub rows: u32,
    /// `regions[j * cols + i]`: the primitives (indices) touching region (i, j).
    pub regions: Vec<Vec<u32>>,
}

impl Bins {
    /// Bin `prims` on a `width`×`height` screen.
    pub fn new(prims: &[Prim], width: u32, height: u32) -> Bins {
        let cols = width.div_ceil(REGION as u32);
        let rows = height.div_ceil(REGION as u32);
        let mut regions = vec![Vec::new(); (cols * rows) as usize];
        for (k, p) in prims.iter().enumerate() {
            let [x0, y0, x1, y1] = p.bbox;
            if x1 < x0 || y1 < y0 {
                continue;
            }
            for j in y0 / REGION..=y1 / REGION {
                for i in x0 / REGION..=x1 / REGION {
                    regions[(j * i64::from(cols) + i) as usize].push(k as u32);
                }
            }
        }
        Bins {
            cols,
            rows,
            regions,
        }
    }

    /// The screen origin of region `r`.
    pub fn origin(&self, r: usize) -> (i64, i64) {
        let c = self.cols as usize;
        (((r % c) as i64) * REGION, ((r / c) as i64) * REGION)
    }

    /// Region-primitive pairs in all.
    pub fn pairs(&self) -> usize {
        self.regions.iter().map(Vec::len).sum()
    }
}
