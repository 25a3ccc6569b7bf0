//! Fuzz input read as a sequence of choices: the targets that build structured input (a
//! stream, a microcode image, a block's signals) take numbers from it, and past its end every
//! number is 0, so any input, the empty one included, is a valid case.

/// Fuzz bytes consumed from the front.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    /// No bytes left.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | u64::from(self.u32()) << 32
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 != 0
    }

    /// A number in `0..n` (`n` > 0; 0 for `n` = 0), from as few bytes as `n` needs.
    pub fn below(&mut self, n: u32) -> u32 {
        match n {
            0 => 0,
            1..=256 => u32::from(self.u8()) % n,
            257..=65_536 => u32::from(self.u16()) % n,
            _ => self.u32() % n,
        }
    }

    /// One of `items` (`items` not empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }

    /// Up to `max` bytes as they come.
    pub fn take(&mut self, max: usize) -> &'a [u8] {
        let n = self.data.len().min(max);
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_end_every_number_is_zero() {
        let mut b = Bytes::new(&[7, 1, 0, 0]);
        assert_eq!(b.u8(), 7);
        assert_eq!(b.u16(), 1);
        assert_eq!(b.u32(), 0);
        assert!(b.is_empty());
        assert_eq!(b.below(10), 0);
        assert_eq!(b.pick(&[3, 4]), 3);
        assert_eq!(Bytes::new(&[13]).below(10), 3);
    }
}
