//! Assembly errors: each names the file and line it is at.

use std::fmt;

/// An assembly error at a source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The source file, as named to the assembler.
    pub file: String,
    /// 1-based line in `file`.
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)
    }
}

/// All errors of one assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// The errors of one assembly as they are found, in the order of its passes.
pub(super) struct Errs<'a> {
    file: &'a str,
    list: Vec<AsmError>,
}

impl<'a> Errs<'a> {
    /// No errors yet in `file`.
    pub fn new(file: &'a str) -> Self {
        Errs {
            file,
            list: Vec::new(),
        }
    }

    /// An error at `line`.
    pub fn push(&mut self, line: usize, msg: String) {
        self.list.push(AsmError {
            file: self.file.to_string(),
            line,
            msg,
        })
    }

    /// `Err` with the errors sorted by line (those of one line in the order found), if any.
    pub fn finish(self) -> Result<(), AsmErrors> {
        let mut errs = self.list;
        if errs.is_empty() {
            return Ok(());
        }
        errs.sort_by_key(|e| e.line);
        Err(AsmErrors(errs))
    }
}
