//! How the simulator's messages name a microinstruction: by the booted image's labels
//! (`ABS+3`), its store address, and, when the run has the microcode's sources, the source
//! line it came from (`ABS+3 (PC 233, my.pp5uc:12)`).

use pp5_rtl::igc::store::pc_text;
use pp5_rtl::igc::UinstNames;

/// The booted image's labels and, if known, each microinstruction's source position.
#[derive(Clone, Debug, Default)]
pub struct MicrocodeNames {
    /// `(label, address)`, sorted by address.
    labels: Vec<(String, u32)>,
    /// Per microinstruction address, `(routine+offset, file:line)` (`""` where no source
    /// sets it); `None` when the run has no sources (an image read from JSON).
    sources: Option<UinstNames>,
}

impl MicrocodeNames {
    /// No labels yet; `sources` gives each microinstruction's source position.
    pub fn new(sources: Option<&[(Box<str>, Box<str>)]>) -> Self {
        MicrocodeNames {
            labels: Vec::new(),
            sources: sources.map(UinstNames::from),
        }
    }

    /// The image's labels (in any order).
    pub fn set_labels(&mut self, labels: &[(String, u32)]) {
        self.labels = labels.to_vec();
        self.labels.sort_by_key(|l| l.1);
    }

    /// The labels, by address.
    pub fn labels(&self) -> &[(String, u32)] {
        &self.labels
    }

    /// The nearest label at or before `pc` and the offset from it (`None` before every
    /// label).
    pub fn label_of(&self, pc: u32) -> Option<(&str, u32)> {
        self.labels
            .iter()
            .rev()
            .find(|l| l.1 <= pc)
            .map(|(name, at)| (name.as_str(), pc - at))
    }

    /// The source position of the microinstruction at `pc`, if a source set it.
    pub fn position(&self, pc: u32) -> Option<&str> {
        self.sources
            .as_ref()?
            .get(pc as usize)
            .map(|p| &*p.1)
            .filter(|p| !p.is_empty())
    }

    /// `label+offset (PC 0x0e9, file:line)`, leaving out what is not known: `label (PC 0x0e9)`
    /// at a label, `PC 0x0e9` before every label (hexadecimal as the listing,
    /// [`pc_text`]).
    pub fn name(&self, pc: u32) -> String {
        let at = match self.label_of(pc) {
            Some((l, 0)) => format!("{l} "),
            Some((l, off)) => format!("{l}+{off} "),
            None => String::new(),
        };
        match self.position(pc) {
            Some(pos) => format!("{at}(PC {}, {pos})", pc_text(pc)),
            None if at.is_empty() => format!("PC {}", pc_text(pc)),
            None => format!("{at}(PC {})", pc_text(pc)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_by_label_offset_and_position() {
        let labels = [("b".into(), 5), ("a".into(), 2)];
        let mut n = MicrocodeNames::new(None);
        n.set_labels(&labels);
        assert_eq!(n.name(0), "PC 0x000");
        assert_eq!(n.name(2), "a (PC 0x002)");
        assert_eq!(n.name(4), "a+2 (PC 0x004)");
        assert_eq!(n.name(17), "b+12 (PC 0x011)");
        let pos = |p: &str| (Box::from("x"), Box::from(p));
        let mut n = MicrocodeNames::new(Some(&[pos(""), pos(""), pos("x.pp5uc:3")]));
        n.set_labels(&labels);
        assert_eq!(n.name(2), "a (PC 0x002, x.pp5uc:3)");
        assert_eq!(n.name(1), "PC 0x001");
        assert_eq!(n.label_of(6), Some(("b", 1)));
    }
}
