//! Assembly errors: each names the file and line it is at.

use std::collections::BinaryHeap;
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
    /// An earlier line the error is about (what this line defines or sets again was first
    /// defined or set there), shown after it as a note, as compilers show a previous
    /// definition.
    pub note: Option<AsmNote>,
    /// Where on the line: the source line and the quoted token's place in it, shown under
    /// the message with a caret as compilers do (found when the message quotes a token of
    /// the line between backticks).
    pub at: Option<Caret>,
}

/// A place on a source line: the line's text, the 1-based column (in characters) and the
/// length of what is marked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caret {
    pub text: String,
    pub column: usize,
    pub len: usize,
}

impl Caret {
    /// The first token `msg` quotes between backticks, where it stands on `text` (a token
    /// that is not on the line marks nothing).
    pub fn of(msg: &str, text: &str) -> Option<Caret> {
        let token = msg.split('`').nth(1).filter(|t| !t.trim().is_empty())?;
        let at = text.find(token)?;
        Some(Caret {
            text: text.trim_end().to_string(),
            column: text[..at].chars().count() + 1,
            len: token.chars().count(),
        })
    }
}

impl fmt::Display for Caret {
    /// The line and a caret under the token, as rustc shows them (tabs kept, so the caret
    /// lines up under them).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pad: String = self
            .text
            .chars()
            .take(self.column - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "  | {}\n  | {pad}{}",
            self.text,
            "^".repeat(self.len.max(1))
        )
    }
}

/// A note pointing at another source line: `file:line: note: msg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmNote {
    /// The source file, as named to the assembler.
    pub file: String,
    /// 1-based line in `file`.
    pub line: usize,
    /// What is there (`first set here`).
    pub msg: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.msg)?;
        if let Some(c) = &self.at {
            write!(f, "\n{c}")?;
        }
        if let Some(n) = &self.note {
            write!(f, "\n{}:{}: note: {}", n.file, n.line, n.msg)?;
        }
        Ok(())
    }
}

/// Most errors one assembly keeps and prints: past it, errors are only counted ("and N more
/// errors"), so a long file of bad lines costs bounded memory (docs/user-guide.md, "Limits").
pub const MAX_ASM_ERRORS: usize = 100;

/// The errors of one assembly: the fatal ones first (those that make the rest of the file
/// moot, such as code that does not fit the control store), then the first
/// [`MAX_ASM_ERRORS`] by line, and how many more there were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors {
    /// The errors kept: the fatal ones, then the others sorted by line (those of one line in
    /// the order found).
    pub errors: Vec<AsmError>,
    /// How many errors were found past those kept.
    pub more: usize,
}

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        match self.more {
            0 => Ok(()),
            1 => write!(f, "\nand 1 more error"),
            n => write!(f, "\nand {n} more errors"),
        }
    }
}

impl std::error::Error for AsmErrors {}

impl AsmErrors {
    /// Mark on each error's source line (of `src`, the text assembled) the token its message
    /// quotes ([`Caret::of`]).
    pub fn mark_columns(&mut self, src: &str) {
        let lines: Vec<&str> = src.lines().collect();
        for e in &mut self.errors {
            if let Some(text) = e.line.checked_sub(1).and_then(|k| lines.get(k)) {
                e.at = Caret::of(&e.msg, text);
            }
        }
    }
}

/// One error as it is kept: (line, order found, message, the line and text of its note).
type Kept = (usize, u64, String, Option<(usize, String)>);

/// The errors of one assembly as they are found, in the order of its passes: the fatal ones
/// all kept, of the others the [`MAX_ASM_ERRORS`] first by (line, order found), the rest
/// counted.
pub(super) struct Errs<'a> {
    file: &'a str,
    /// Fatal errors, in the order found (few: one per pass at most).
    fatal: Vec<Kept>,
    /// Max-heap on (line, order found): its top is the first to drop.
    kept: BinaryHeap<Kept>,
    found: u64,
    more: usize,
}

impl<'a> Errs<'a> {
    /// No errors yet in `file`.
    pub fn new(file: &'a str) -> Self {
        Errs {
            file,
            fatal: Vec::new(),
            kept: BinaryHeap::new(),
            found: 0,
            more: 0,
        }
    }

    /// An error at `line`.
    pub fn push(&mut self, line: usize, msg: String) {
        self.keep((line, self.found, msg, None));
    }

    /// An error at `line` about an earlier line: `note` is shown at `note_line`
    /// (`first set here`).
    pub fn push_noted(&mut self, line: usize, msg: String, note_line: usize, note: &str) {
        self.keep((line, self.found, msg, Some((note_line, note.to_string()))));
    }

    /// An error that makes the others moot: always kept, and shown before them.
    pub fn push_fatal(&mut self, line: usize, msg: String) {
        self.fatal.push((line, self.found, msg, None));
        self.found += 1;
    }

    fn keep(&mut self, e: Kept) {
        self.kept.push(e);
        self.found += 1;
        if self.kept.len() > MAX_ASM_ERRORS {
            self.kept.pop();
            self.more += 1;
        }
    }

    /// `Err` with the fatal errors first, then the others sorted by line (those of one line
    /// in the order found), if any.
    pub fn finish(self) -> Result<(), AsmErrors> {
        if self.kept.is_empty() && self.fatal.is_empty() {
            return Ok(());
        }
        let file = self.file;
        let error = |(line, _, msg, note): Kept| AsmError {
            file: file.to_string(),
            line,
            msg: shown_message(&msg),
            note: note.map(|(line, msg)| AsmNote {
                file: file.to_string(),
                line,
                msg,
            }),
            at: None,
        };
        let errors = self
            .fatal
            .into_iter()
            .chain(self.kept.into_sorted_vec())
            .map(error)
            .collect();
        Err(AsmErrors {
            errors,
            more: self.more,
        })
    }
}

/// A message as it is shown: the source's text it quotes between backticks as the stream
/// parser's messages quote a token ([`crate::stream::shown`]: control characters escaped, a
/// token of more than a few dozen characters cut, with its length), the rest with its
/// control characters escaped. A megabyte field makes a one-line message, a NUL is `\u{0}`.
fn shown_message(msg: &str) -> String {
    msg.split('`')
        .enumerate()
        .map(|(k, part)| {
            if k % 2 == 1 {
                crate::stream::shown(part)
            } else {
                crate::stream::escaped(part)
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_errors_are_counted_and_the_first_lines_kept() {
        let mut errs = Errs::new("f");
        for line in (1..=MAX_ASM_ERRORS + 50).rev() {
            errs.push(line, format!("bad {line}"));
        }
        errs.push(1, "second on line 1".into());
        let e = errs.finish().unwrap_err();
        assert_eq!((e.errors.len(), e.more), (MAX_ASM_ERRORS, 51));
        assert_eq!(e.errors[0].msg, "bad 1");
        assert_eq!(e.errors[1].msg, "second on line 1");
        assert_eq!(e.errors.last().unwrap().line, MAX_ASM_ERRORS - 1);
        assert!(e.to_string().ends_with("\nand 51 more errors"), "{e}");
    }

    /// A NUL or an escape sequence in the source is not echoed raw (issue 27 item 8).
    #[test]
    fn control_characters_in_messages_are_escaped() {
        let src = "x:  bogus\u{0}thing\n    \u{1b}[31mred\n";
        let e = super::super::assemble(src, "ctl.pp5uc").unwrap_err();
        let text = e.to_string();
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
        assert!(text.contains("bogus\\u{0}thing"), "{text}");
        assert!(text.contains("\\u{1b}[31mred"), "{text}");
        // A huge field is quoted by its first characters and its length.
        let src = format!("x:  {}\n", "b".repeat(100_000));
        let e = super::super::assemble(&src, "big.pp5uc")
            .unwrap_err()
            .to_string();
        assert!(e.len() < 200, "{} bytes", e.len());
        assert!(e.contains("… (100000 characters)`"), "{e}");
    }
}
