//! `pp5.Status`: the 32-bit status word (seed 003 §III.4.1-5) with its bits by name.

use pp5_rtl::status::{self as st, bit_name, ERROR_MASK};
use pyo3::prelude::*;

/// The Renderer's status word. `int(status)` is the word; the properties name its bits
/// (status-bit numbers as in the seed's table).
#[pyclass(module = "pp5", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub struct Status {
    /// The 32-bit word.
    #[pyo3(get)]
    pub word: u32,
}

impl Status {
    fn bit(&self, b: u32) -> bool {
        self.word >> b & 1 != 0
    }
}

#[pymethods]
impl Status {
    /// Bits 0-3: the four stripe ORs of Enable (the inverses of AEO0..AEO3).
    #[getter]
    fn aeo_stripes(&self) -> [bool; 4] {
        std::array::from_fn(|k| self.bit(st::ST_AEO_STRIPES + k as u32))
    }
    /// AEO, the global NOR of the Enable registers: no stripe bit set.
    #[getter]
    fn aeo(&self) -> bool {
        self.word & 0xf == 0
    }
    /// Bit 4 (sticky): flow-control error (model extension).
    #[getter]
    fn fc_error(&self) -> bool {
        self.bit(st::ST_FC_ERROR)
    }
    /// Bit 6: TxReady on the BS port.
    #[getter]
    fn txready_bs(&self) -> bool {
        self.bit(st::ST_TXREADY_BS)
    }
    /// Bit 7: TxReady on the IGC port.
    #[getter]
    fn txready_igc(&self) -> bool {
        self.bit(st::ST_TXREADY_IGC)
    }
    /// Bits 8-15: the BS semaphore counter.
    #[getter]
    fn bs_semaphore(&self) -> u32 {
        self.word >> st::ST_BS_SEM & 0xff
    }
    /// Bits 16-23: the IGC semaphore counter.
    #[getter]
    fn igc_semaphore(&self) -> u32 {
        self.word >> st::ST_IGC_SEM & 0xff
    }
    /// Bit 24 (sticky): the BS semaphore overflowed.
    #[getter]
    fn bs_sem_overflow(&self) -> bool {
        self.bit(st::ST_BS_SEM_OVF)
    }
    /// Bit 25 (sticky): the IGC semaphore overflowed.
    #[getter]
    fn igc_sem_overflow(&self) -> bool {
        self.bit(st::ST_IGC_SEM_OVF)
    }
    /// Bit 26 (sticky): the BS RxFIFO was overwritten.
    #[getter]
    fn bs_rxfifo_overwritten(&self) -> bool {
        self.bit(st::ST_BS_RXFIFO_OVW)
    }
    /// Bit 27 (sticky): the IGC RxFIFO was overwritten.
    #[getter]
    fn igc_rxfifo_overwritten(&self) -> bool {
        self.bit(st::ST_IGC_RXFIFO_OVW)
    }
    /// Bit 28 (sticky): a formatting error or bogus command in the BS stream.
    #[getter]
    fn bs_format_error(&self) -> bool {
        self.bit(st::ST_BS_FORMAT)
    }
    /// Bit 29 (sticky): a formatting error in the IGC command stream.
    #[getter]
    fn igc_format_error(&self) -> bool {
        self.bit(st::ST_IGC_FORMAT)
    }
    /// Bit 30 (sticky): IGC timeout.
    #[getter]
    fn igc_timeout(&self) -> bool {
        self.bit(st::ST_IGC_TIMEOUT)
    }
    /// Bit 31: the IGC indicator (INDON / INDOFF).
    #[getter]
    fn indicator(&self) -> bool {
        self.bit(st::ST_INDICATOR)
    }
    /// The error bits 24-30 that are set, as the CLI's summary lists them
    /// (`"29: IGC formatting error"`); see `fc_error` for bit 4.
    #[getter]
    fn errors(&self) -> Vec<String> {
        error_bits(self.word)
    }
    /// Whether bit `n` (0..=31) is set.
    fn __getitem__(&self, n: i64) -> PyResult<bool> {
        if !(0..32).contains(&n) {
            return Err(crate::errors::value_error(format!(
                "status bit {n}: the status word has bits 0..=31"
            )));
        }
        Ok(self.bit(n as u32))
    }
    fn __int__(&self) -> u32 {
        self.word
    }
    fn __index__(&self) -> u32 {
        self.word
    }
    fn __repr__(&self) -> String {
        let errs = error_bits(self.word);
        format!(
            "Status({:#010x}{})",
            self.word,
            if errs.is_empty() {
                String::new()
            } else {
                format!(", errors: {}", errs.join(", "))
            }
        )
    }
}

/// The set error bits 24-30 of `word`, as `pp5 run`'s summary lists them (the ones that make
/// it exit with code 4).
pub fn error_bits(word: u32) -> Vec<String> {
    (24..31)
        .filter(|b| word & ERROR_MASK & (1 << b) != 0)
        .map(|b| format!("{b}: {}", bit_name(b)))
        .collect()
}
