//! Standard output that may be a pipe its reader closes (`pp5 run … | head`): a closed pipe
//! ends the output quietly, and the program finishes its other work and exits as it would have.

use crate::{Fail, EXIT_IO};
use std::sync::atomic::{AtomicBool, Ordering};

/// Standard output went away (its reader, `head` say, closed the pipe): what is still to be
/// printed is dropped.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Write to standard output: a closed pipe is not an error (see [`STDOUT_GONE`]), any other
/// failure is an I/O error (exit code 1).
pub fn write(args: std::fmt::Arguments) -> Result<(), Fail> {
    with(|w| w.write_fmt(args))
}

/// Write to standard output through a buffer, as [`write`] does (a closed pipe ends the
/// output quietly): for outputs too long to build as one string first.
pub fn with(f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<(), Fail> {
    use std::io::Write as _;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    match f(&mut w).and_then(|()| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_GONE.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(Fail(EXIT_IO, format!("standard output: {e}"))),
    }
}
