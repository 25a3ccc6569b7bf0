//! FST back end through `fst-writer` 0.3.
//!
//! `fst-writer` keeps value changes in memory until a flush writes a value-change block; we
//! flush when the buffer passes [`FLUSH_BYTES`], and only right before a new time step (the
//! library supports flushing only there). Text signals are [`FST_TEXT_BITS`]-bit vectors
//! (see the module documentation of [`super`]), because `fst-writer` 0.3 has no
//! variable-length string signals.

use super::{DeclItem, Sink, FST_TEXT_BITS, FST_TEXT_CHARS};
use fst_writer::{
    FstBodyWriter, FstFileType, FstHeaderWriter, FstInfo, FstScopeType, FstSignalId, FstSignalType,
    FstVarDirection, FstVarType, FstWriteError,
};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

const BUF_BYTES: usize = 1 << 20;

/// Write a value-change block once this much change data is buffered.
pub(crate) const FLUSH_BYTES: usize = 32 << 20;

fn fst_err(e: FstWriteError) -> io::Error {
    match e {
        FstWriteError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

pub(crate) struct FstSink {
    body: Option<FstBodyWriter<BufWriter<File>>>,
    clk: FstSignalId,
    ids: Vec<FstSignalId>,
    /// Width of each slot.
    widths: Vec<u32>,
    buf: Vec<u8>,
    flush_at: usize,
    /// A time step was written since the start or the last flush.
    stepped: bool,
}

impl FstSink {
    pub(crate) fn create(path: &Path, items: &[DeclItem], nslots: usize) -> io::Result<FstSink> {
        Self::create_with_flush(path, items, nslots, FLUSH_BYTES)
    }

    pub(crate) fn create_with_flush(
        path: &Path,
        items: &[DeclItem],
        nslots: usize,
        flush_at: usize,
    ) -> io::Result<FstSink> {
        let info = FstInfo {
            // fst-writer writes this field as the header's *time zero* (libfst's `timezero`),
            // which GTKWave adds to every timestamp: our times are absolute already, so 0
            // (a trace that starts after the boot has its first time change there).
            start_time: 0,
            timescale_exponent: -12,
            version: concat!("pp5-sim ", env!("CARGO_PKG_VERSION")).to_string(),
            date: String::new(),
            file_type: FstFileType::Verilog,
        };
        let out = BufWriter::with_capacity(BUF_BYTES, File::create(path)?);
        let mut h = FstHeaderWriter::new(out, &info).map_err(fst_err)?;
        let mut clk = None;
        let mut ids: Vec<Option<FstSignalId>> = vec![None; nslots];
        let mut widths = vec![0; nslots];
        for item in items {
            match item {
                DeclItem::Scope(name) => {
                    h.scope(name, "", FstScopeType::Module).map_err(fst_err)?
                }
                DeclItem::Up => h.up_scope().map_err(fst_err)?,
                DeclItem::Clk => {
                    clk = Some(
                        h.var(
                            "clk",
                            FstSignalType::bit_vec(1),
                            FstVarType::Wire,
                            FstVarDirection::Implicit,
                            None,
                        )
                        .map_err(fst_err)?,
                    )
                }
                DeclItem::Var {
                    slot,
                    name,
                    width,
                    is_text,
                } => {
                    let bits = if *is_text { FST_TEXT_BITS } else { *width };
                    let id = h
                        .var(
                            name,
                            FstSignalType::bit_vec(bits),
                            FstVarType::Wire,
                            FstVarDirection::Implicit,
                            None,
                        )
                        .map_err(fst_err)?;
                    if let Some(s) = ids.get_mut(*slot) {
                        *s = Some(id);
                        widths[*slot] = bits;
                    }
                }
            }
        }
        let body = h.finish().map_err(fst_err)?;
        let clk = clk.ok_or_else(|| io::Error::other("declaration without clk"))?;
        let ids = ids
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| io::Error::other("declaration misses a signal"))?;
        Ok(FstSink {
            body: Some(body),
            clk,
            ids,
            widths,
            buf: Vec::with_capacity(FST_TEXT_BITS as usize),
            flush_at,
            stepped: false,
        })
    }

    fn body(&mut self) -> io::Result<&mut FstBodyWriter<BufWriter<File>>> {
        self.body
            .as_mut()
            .ok_or_else(|| io::Error::other("FST file already closed"))
    }

    fn change(&mut self, id: FstSignalId) -> io::Result<()> {
        let body = self
            .body
            .as_mut()
            .ok_or_else(|| io::Error::other("FST file already closed"))?;
        body.signal_change(id, &self.buf).map_err(fst_err)
    }

    fn slot_id(&self, slot: usize) -> io::Result<FstSignalId> {
        self.ids
            .get(slot)
            .copied()
            .ok_or_else(|| io::Error::other("unknown signal slot"))
    }
}

impl Sink for FstSink {
    fn begin(&mut self, time_ps: u64, _first: bool) -> io::Result<()> {
        let flush_at = self.flush_at;
        let stepped = self.stepped;
        let body = self.body()?;
        // Flushing is only supported right before a new, later time step.
        if stepped && body.size() >= flush_at {
            body.flush().map_err(fst_err)?;
        }
        body.time_change(time_ps).map_err(fst_err)?;
        self.buf.clear();
        self.buf.push(b'1');
        let clk = self.clk;
        self.change(clk)
    }

    fn bits(&mut self, slot: usize, value: u64) -> io::Result<()> {
        let id = self.slot_id(slot)?;
        let width = self.widths.get(slot).copied().unwrap_or(0);
        self.buf.clear();
        self.buf
            .extend((0..width).rev().map(|i| b'0' + ((value >> i) & 1) as u8));
        self.change(id)
    }

    fn text(&mut self, slot: usize, value: &str) -> io::Result<()> {
        let id = self.slot_id(slot)?;
        self.buf.clear();
        let bytes = value.as_bytes();
        for k in 0..FST_TEXT_CHARS as usize {
            let byte = bytes.get(k).copied().unwrap_or(0);
            self.buf
                .extend((0..8).rev().map(|i| b'0' + ((byte >> i) & 1)));
        }
        self.change(id)
    }

    fn end(&mut self, fall_ps: u64, _first: bool) -> io::Result<()> {
        self.body()?.time_change(fall_ps).map_err(fst_err)?;
        self.stepped = true;
        self.buf.clear();
        self.buf.push(b'0');
        let clk = self.clk;
        self.change(clk)
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.body.take() {
            Some(body) => {
                let mut out = body.finish().map_err(fst_err)?;
                out.flush()
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Value-change blocks flushed in the middle of a run read back as one continuous trace.
    #[test]
    fn flushed_blocks_read_back() {
        let dir = std::env::temp_dir().join(format!("pp5-fst-flush-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("flush.fst");
        let items = vec![
            DeclItem::Scope("top".into()),
            DeclItem::Clk,
            DeclItem::Var {
                slot: 0,
                name: "v".into(),
                width: 8,
                is_text: false,
            },
            DeclItem::Var {
                slot: 1,
                name: "s".into(),
                width: 0,
                is_text: true,
            },
            DeclItem::Up,
        ];
        // Flush after every few bytes: many blocks.
        let mut sink = FstSink::create_with_flush(&path, &items, 2, 16).unwrap();
        for cycle in 0..50u64 {
            let t = cycle * 25_000;
            sink.begin(t, cycle == 0).unwrap();
            sink.bits(0, cycle * 7).unwrap();
            if cycle % 5 == 0 {
                sink.text(1, if cycle % 10 == 0 { "EVEN" } else { "ODD" })
                    .unwrap();
            }
            sink.end(t + 12_500, cycle == 0).unwrap();
        }
        sink.finish().unwrap();

        let mut w = wellen::simple::read(&path).unwrap();
        let h = w.hierarchy();
        let v = h.lookup_var(&["top"], "v").unwrap();
        let clk = h.lookup_var(&["top"], "clk").unwrap();
        let (v, clk) = (h[v].signal_ref(), h[clk].signal_ref());
        w.load_signals(&[v, clk]);
        let tt = w.time_table().to_vec();
        let vs: Vec<(u64, String)> = w
            .get_signal(v)
            .unwrap()
            .iter_changes()
            .map(|(i, x)| (tt[i as usize], x.to_bit_string().unwrap()))
            .collect();
        let expected: Vec<(u64, String)> = (0..50u64)
            .map(|c| (c * 25_000, format!("{:08b}", (c * 7) & 0xFF)))
            .collect();
        assert_eq!(vs, expected);
        let clk_changes = w.get_signal(clk).unwrap().iter_changes().count();
        assert_eq!(clk_changes, 100);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
