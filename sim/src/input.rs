//! Reading the files a user gives (command streams, microcode, scenes) with bounded memory: a
//! file larger than [`MAX_INPUT_BYTES`] (or an endless one, such as `/dev/zero`) is refused
//! after reading at most that many bytes, instead of growing until the machine runs out.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// The largest input file read (64 MiB): about 3 million commands of a text stream, or 16
/// million Ring words of a binary one (docs/user-guide.md, "Limits").
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Why an input file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The operating system's error (the CLI exits 1).
    Io(io::Error),
    /// The file has more than [`MAX_INPUT_BYTES`] bytes (bad input: the CLI exits 3).
    TooLarge,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => e.fmt(f),
            ReadError::TooLarge => write!(
                f,
                "larger than the input limit of {} MiB",
                MAX_INPUT_BYTES >> 20
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// The bytes of `path`, at most `limit` of them.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// The bytes of `path`, at most [`MAX_INPUT_BYTES`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_limited(path, MAX_INPUT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_is_refused_after_reading_the_limit() {
        let dir = std::env::temp_dir().join(format!("pp5-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        std::fs::write(&p, [7u8; 100]).unwrap();
        assert_eq!(read_limited(&p, 100).unwrap().len(), 100);
        assert!(matches!(read_limited(&p, 99), Err(ReadError::TooLarge)));
        assert!(matches!(
            read_limited(&dir.join("missing"), 99),
            Err(ReadError::Io(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
        // An endless file stops at the limit.
        if Path::new("/dev/zero").exists() {
            assert!(matches!(
                read_limited(Path::new("/dev/zero"), 1 << 20),
                Err(ReadError::TooLarge)
            ));
        }
    }
}
