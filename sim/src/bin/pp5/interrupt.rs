//! Ctrl-C (SIGINT), SIGTERM and SIGHUP stop a run: the first sets the interrupt flag, the
//! run stops at the next cycle and the program reports what was done and exits 130; a second
//! one while the first is handled ends the program at once (the signal's default action).
//!
//! A signal the program inherited as ignored stays ignored: `nohup pp5 run …` is not stopped
//! by the SIGHUP of a closed terminal, nor a background job (`pp5 run … &` in a shell without
//! job control) by a Ctrl-C meant for the foreground. What is ignored is read from
//! `/proc/self/status` (its `SigIgn` mask, as the process started); where there is no such
//! file (not Linux), every signal is handled.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// The signals that stop a run.
const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The signals ignored when the program started, as a mask (bit n - 1 = signal n).
fn inherited_ignored() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        })
        .unwrap_or(0)
}

/// The interrupt flag, set by the first stop signal; the handlers are installed on the
/// first call (later calls return the same flag).
pub fn flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let ignored = inherited_ignored();
        for sig in STOP_SIGNALS {
            if ignored >> (sig - 1) & 1 != 0 {
                continue;
            }
            // The order matters: on the second signal the flag is already set, and the
            // default action ends the program. A handler that cannot be installed leaves
            // the signal as it was (it still stops the program, without the summary).
            let _ = signal_hook::flag::register_conditional_default(sig, flag.clone());
            let _ = signal_hook::flag::register(sig, flag.clone());
        }
        flag
    })
    .clone()
}

/// A write past the file-size limit (`ulimit -f`) raises SIGXFSZ, whose default action ends
/// the program at once (exit 153, no message, its temporary file left). Caught here, the
/// signal does nothing, and the write fails with EFBIG ("File too large"): the program ends
/// as on a full disk, with one line naming the file, exit code 1, and no half-written file.
/// (A handler rather than "ignore": the program's children get the default action back.)
pub fn survive_file_size_limit() {
    let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_mask_is_read() {
        // Rust's runtime ignores SIGPIPE (13) before main.
        if std::path::Path::new("/proc/self/status").exists() {
            assert_ne!(inherited_ignored() >> 12 & 1, 0);
        }
    }
}
