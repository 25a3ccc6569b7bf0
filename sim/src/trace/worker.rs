//! The waveform writer's background thread.
//!
//! The simulation thread walks the blocks and keeps, per cycle, one fixed-size frame of words
//! (every record's words and every walked bits signal's value); this thread finds the records
//! whose words changed and decodes them
//! ([`super::decode`]), formats the changes (VCD text or FST blocks) and writes the file.
//! Batches travel through a bounded channel (so memory stays bounded when the disk is slow)
//! and come back empty to be reused, so the steady state does not allocate.

use super::decode::Decoder;
use super::Sink;
use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Cycles per batch.
pub(crate) const BATCH_CYCLES: usize = 2048;
/// Batches in flight (the channel bound): 32K cycles, about 11 MB with the default
/// signals. The writer thread is on average faster than the simulation but falls behind
/// for a while now and then (a slow `write`, another process on its core); with a shorter
/// queue the simulation thread then blocks and must be woken (with 8 batches of 1024
/// cycles, an instrumented build found the channel full at 0, 29 and 275 of the about
/// 1,560 sends of three runs of the ALU stream on the 2-core development machine).
const BATCHES_IN_FLIGHT: usize = 16;

/// One sampled cycle of a [`Batch`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub cycle: u64,
    /// The first sample of the file (a VCD writes it as `$dumpvars`).
    pub first: bool,
    /// Every selected value is written (the first sample, or one after a failed walk),
    /// changed or not.
    pub force: bool,
}

/// Samples of up to [`BATCH_CYCLES`] cycles: their frames of words.
#[derive(Default)]
pub(crate) struct Batch {
    pub frames: Vec<Frame>,
    /// The words of every frame, one fixed-size frame of words per sample (see
    /// `sampler::SampleState`): frame `k`'s words are at `k * n..(k + 1) * n`. Only the
    /// frames in [`Batch::frames`] count; the vector keeps its length when the batch is
    /// cleared, so a frame is copied into place without growing it.
    pub record_words: Vec<u64>,
}

impl Batch {
    /// An empty batch with room for as much as this one holds (a new batch would otherwise
    /// grow its lists by doubling, copying them each time, while the simulation waits).
    fn empty_like(&self) -> Batch {
        Batch {
            frames: Vec::with_capacity(self.frames.len()),
            record_words: Vec::with_capacity(self.record_words.len()),
        }
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
    pub fn start<S: Sink + 'static>(sink: S, decoder: Decoder) -> io::Result<Worker> {
        let (tx, rx) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
        let (back_tx, back) = mpsc::channel::<Batch>();
        let error = Arc::new(Mutex::new(None));
        let err = error.clone();
        let failed = Arc::new(AtomicBool::new(false));
        let flag = failed.clone();
        let handle = std::thread::Builder::new()
            .name("pp5-wave-writer".into())
            .spawn(move || {
                let r = write_loop(sink, decoder, &rx, &back_tx);
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
    #[inline]
    pub fn take_error(&self) -> Option<io::Error> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.take_error_slow()
    }

    #[cold]
    #[inline(never)]
    fn take_error_slow(&self) -> Option<io::Error> {
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    /// Hand the current batch to the thread and get an empty one back.
    pub fn send(&mut self) -> io::Result<()> {
        if self.batch.frames.is_empty() {
            return Ok(());
        }
        let next = match self.back.try_recv() {
            Ok(b) => b,
            Err(_) => self.batch.empty_like(),
        };
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

/// How long the writer thread polls for the next batch before it blocks on the channel.
///
/// A blocked receiver must be woken by the sender: a system call on the simulation thread
/// and, in a virtual machine, an interrupt between processors, once per batch (`perf`
/// showed it on the simulation thread of a traced run). The writer usually finishes a batch
/// shortly before the next one is full, so polling for a while keeps it awake across the
/// gap; a simulation that stops producing (a stall, the end of the run) still lets it sleep.
const POLL_BEFORE_BLOCKING: Duration = Duration::from_millis(5);

/// The next batch: polled for up to [`POLL_BEFORE_BLOCKING`], then waited for. `None` once
/// the simulation side has hung up and every batch was taken.
fn next_batch(rx: &Receiver<Batch>) -> Option<Batch> {
    let mut since: Option<Instant> = None;
    loop {
        for _ in 0..64 {
            match rx.try_recv() {
                Ok(b) => return Some(b),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        if since.get_or_insert_with(Instant::now).elapsed() >= POLL_BEFORE_BLOCKING {
            return rx.recv().ok();
        }
    }
}

fn write_loop<S: Sink>(
    mut sink: S,
    mut decoder: Decoder,
    rx: &Receiver<Batch>,
    back: &Sender<Batch>,
) -> io::Result<()> {
    let malformed = || io::Error::other("malformed trace batch");
    let written = (|| {
        while let Some(mut batch) = next_batch(rx) {
            let mut w = 0usize;
            for f in &batch.frames {
                let rise = f.cycle * CYCLE_PS;
                sink.begin(rise, f.first)?;
                let n = decoder.frame_words();
                let words = batch.record_words.get(w..w + n).ok_or_else(malformed)?;
                w += n;
                decoder.clear();
                decoder.decode_frame(words, f.force)?;
                for &(slot, value) in decoder.bits() {
                    sink.bits(slot as usize, value)?;
                }
                for &(slot, start, end) in &decoder.texts {
                    let text = (decoder.text_bytes)
                        .get(start as usize..end as usize)
                        .ok_or_else(malformed)?;
                    sink.text(slot as usize, text)?;
                }
                sink.end(rise + HALF_CYCLE_PS, f.first)?;
            }
            batch.frames.clear();
            let _ = back.send(batch);
        }
        Ok(())
    })();
    let finished = sink.finish();
    written.and(finished)
}
