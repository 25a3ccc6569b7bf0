//! The waveform writer's background thread.
//!
//! The simulation thread only walks the blocks and copies each cycle's values into a batch;
//! this thread compares them with the previous cycle's, formats the changes (VCD text or FST
//! blocks) and writes the file. Batches travel through a bounded channel (so memory stays
//! bounded when the disk is slow) and come back empty to be reused, so the steady state does
//! not allocate.

use super::{Sink, Slot};
use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Cycles per batch.
pub(crate) const BATCH_CYCLES: usize = 256;
/// Batches in flight (the channel bound).
const BATCHES_IN_FLIGHT: usize = 16;

/// Samples of up to [`BATCH_CYCLES`] cycles.
#[derive(Default)]
pub(crate) struct Batch {
    /// (cycle, first sample of the file).
    pub frames: Vec<(u64, bool)>,
    /// The value of every slot, `nslots` per frame (text slots hold 0).
    pub bits: Vec<u64>,
    /// Text changes: (frame index, slot, new text).
    pub texts: Vec<(u32, u32, String)>,
}

impl Batch {
    fn clear(&mut self) {
        self.frames.clear();
        self.bits.clear();
        self.texts.clear();
    }
}

/// The simulation side of the writer thread.
pub(crate) struct Worker {
    tx: Option<SyncSender<Batch>>,
    back: Receiver<Batch>,
    handle: Option<JoinHandle<()>>,
    error: Arc<Mutex<Option<io::Error>>>,
    failed: Arc<AtomicBool>,
    /// The batch being filled.
    pub batch: Batch,
}

impl Worker {
    /// Start the thread that owns `sink`.
    pub fn start(sink: Box<dyn Sink + Send>, slots: Vec<Slot>) -> io::Result<Worker> {
        let (tx, rx) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
        let (back_tx, back) = mpsc::channel::<Batch>();
        let error = Arc::new(Mutex::new(None));
        let err = error.clone();
        let failed = Arc::new(AtomicBool::new(false));
        let flag = failed.clone();
        let handle = std::thread::Builder::new()
            .name("pp5-wave-writer".into())
            .spawn(move || {
                let r = write_loop(sink, &slots, &rx, &back_tx);
                if let Err(e) = r {
                    if let Ok(mut slot) = err.lock() {
                        slot.get_or_insert(e);
                    }
                    flag.store(true, Ordering::Release);
                    // Keep receiving so the simulation thread never blocks on a full channel.
                    for _ in rx.iter() {}
                }
            })?;
        Ok(Worker {
            tx: Some(tx),
            back,
            handle: Some(handle),
            error,
            failed,
            batch: Batch::default(),
        })
    }

    /// A write error the thread has met, if any (taken: reported once).
    pub fn take_error(&self) -> Option<io::Error> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    /// Hand the current batch to the thread and get an empty one back.
    pub fn send(&mut self) -> io::Result<()> {
        if self.batch.frames.is_empty() {
            return Ok(());
        }
        let next = self.back.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        match &self.tx {
            Some(tx) => tx
                .send(full)
                .map_err(|_| io::Error::other("the waveform writer thread stopped")),
            None => Err(io::Error::other("wave writer already finished")),
        }
    }

    /// Send what is left, let the thread finish the file, and report any error.
    pub fn finish(&mut self) -> io::Result<()> {
        let sent = self.send();
        self.tx = None;
        if let Some(h) = self.handle.take() {
            if h.join().is_err() {
                return Err(io::Error::other("the waveform writer thread panicked"));
            }
        }
        sent?;
        match self.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether [`Worker::finish`] has run.
    pub fn finished(&self) -> bool {
        self.handle.is_none()
    }
}

fn write_loop(
    mut sink: Box<dyn Sink + Send>,
    slots: &[Slot],
    rx: &Receiver<Batch>,
    back: &Sender<Batch>,
) -> io::Result<()> {
    let n = slots.len();
    let mut last = vec![0u64; n];
    // Non-text slots, and a scratch list of the ones that changed in a frame (collected
    // without branches: the changes are data-dependent and would mispredict).
    let bit_slots: Vec<usize> = (0..n).filter(|&s| !slots[s].is_text).collect();
    let mut changed = vec![0usize; bit_slots.len()];
    let written = (|| {
        for mut batch in rx.iter() {
            let mut t = 0;
            for (f, &(cycle, first)) in batch.frames.iter().enumerate() {
                let rise = cycle * CYCLE_PS;
                sink.begin(rise, first)?;
                let Some(vals) = batch.bits.get(f * n..(f + 1) * n) else {
                    return Err(io::Error::other("malformed trace batch"));
                };
                let mut k = 0;
                for &s in &bit_slots {
                    changed[k] = s;
                    k += (first || vals[s] != last[s]) as usize;
                }
                last.copy_from_slice(vals);
                for &s in &changed[..k] {
                    sink.bits(s, slots[s].width, vals[s])?;
                }
                while let Some((tf, slot, text)) = batch.texts.get(t) {
                    if *tf as usize != f {
                        break;
                    }
                    sink.text(*slot as usize, text)?;
                    t += 1;
                }
                sink.end(rise + HALF_CYCLE_PS, first)?;
            }
            batch.clear();
            let _ = back.send(batch);
        }
        Ok(())
    })();
    let finished = sink.finish();
    written.and(finished)
}
