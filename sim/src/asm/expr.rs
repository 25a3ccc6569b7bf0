//! Boolean expressions of the microcode assembler, turned into truth tables.
//!
//! Grammar (no spaces): `expr := term ('|' term)*`, `term := xterm ('^' xterm)*` — precedence
//! from loosest: `|`, `^`, `&`, then unary `~`; atoms are variable names, `0`, `1`,
//! `maj(x,y,z)` and parenthesised expressions.

/// Evaluate `src` for every assignment of `vars` (vars[0] is the most significant index bit)
/// and return the truth table, bit `i` = value at index `i`.
pub fn truth_table(src: &str, vars: &[char]) -> Result<u8, String> {
    let n = vars.len();
    let mut table = 0u8;
    for i in 0..(1u32 << n) {
        let val = |c: char| -> Option<bool> {
            vars.iter()
                .position(|&v| v == c)
                .map(|p| (i >> (n - 1 - p)) & 1 != 0)
        };
        let mut p = Parser {
            s: src.as_bytes(),
            pos: 0,
            val: &val,
        };
        let v = p.or()?;
        if p.pos != p.s.len() {
            return Err(format!(
                "unexpected `{}` at column {} of `{src}`",
                p.s[p.pos] as char,
                p.pos + 1
            ));
        }
        if v {
            table |= 1 << i;
        }
    }
    Ok(table)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    val: &'a dyn Fn(char) -> Option<bool>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.xor()?;
        while self.eat(b'|') {
            v |= self.xor()?;
        }
        Ok(v)
    }
    fn xor(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.eat(b'^') {
            v ^= self.and()?;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.unary()?;
        while self.eat(b'&') {
            v &= self.unary()?;
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<bool, String> {
        if self.eat(b'~') || self.eat(b'!') {
            return Ok(!self.unary()?);
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<bool, String> {
        let src = String::from_utf8_lossy(self.s).into_owned();
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let v = self.or()?;
                if !self.eat(b')') {
                    return Err(format!("missing `)` in `{src}`"));
                }
                Ok(v)
            }
            Some(b'0') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b'1') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'm') if self.s[self.pos..].starts_with(b"maj(") => {
                self.pos += 4;
                let x = self.or()?;
                let ok1 = self.eat(b',');
                let y = self.or()?;
                let ok2 = self.eat(b',');
                let z = self.or()?;
                if !(ok1 && ok2 && self.eat(b')')) {
                    return Err(format!(
                        "maj takes three arguments: `maj(x,y,z)` in `{src}`"
                    ));
                }
                Ok((x & y) | (x & z) | (y & z))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                self.pos += 1;
                (self.val)(c as char)
                    .ok_or_else(|| format!("unknown variable `{}` in `{src}`", c as char))
            }
            Some(c) => Err(format!(
                "unexpected `{}` at column {} of `{src}`",
                c as char,
                self.pos + 1
            )),
            None => Err(format!("expression `{src}` ends too early")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_of_known_functions() {
        let abc = ['a', 'b', 'c'];
        assert_eq!(truth_table("a^b^c", &abc), Ok(0x96));
        assert_eq!(truth_table("maj(a,b,c)", &abc), Ok(0xe8));
        assert_eq!(truth_table("(a&b)|(a&c)|(b&c)", &abc), Ok(0xe8));
        assert_eq!(truth_table("a", &abc), Ok(0xf0));
        assert_eq!(truth_table("~b", &abc), Ok(0x33));
        assert_eq!(truth_table("0", &abc), Ok(0));
        assert_eq!(truth_table("1", &abc), Ok(0xff));
        assert_eq!(truth_table("e&r", &['e', 'r']), Ok(0b1000));
        assert_eq!(truth_table("~e", &['e', 'r']), Ok(0b0011));
    }

    #[test]
    fn errors_are_reported() {
        let abc = ['a', 'b', 'c'];
        assert!(truth_table("a^", &abc).is_err());
        assert!(truth_table("x", &abc).is_err());
        assert!(truth_table("(a", &abc).is_err());
        assert!(truth_table("maj(a,b)", &abc).is_err());
        assert!(truth_table("a)", &abc).is_err());
    }
}
