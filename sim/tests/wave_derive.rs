//! `#[derive(Wave)]`: a block's registers as a struct are its waveform record, packing and
//! decode and declaration from the one description. A field added to the struct shows in the
//! VCD (read back with wellen) with no trace code written for it.

mod common;

use common::{wave_changes, Scratch};
use pp5_rtl::clock::{CYCLE_PS, HALF_CYCLE_PS};
use pp5_rtl::trace::{wave_view, Traced, Tracer, Wave, WaveEnum};
use pp5_sim::trace::{TraceConfig, WaveFormat, WaveWriter};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, WaveEnum)]
enum Phase {
    #[default]
    Idle,
    /// Shown as its name in SCREAMING_SNAKE_CASE.
    RunFast,
    #[wave(name = "hold")]
    Hold,
}

/// A test block's registers, shown as scope `blk`.
#[derive(Clone, Default, Wave)]
struct Regs {
    #[wave(bits = 4)]
    count: u8,
    #[wave(name, then(busy: 1 = phase != Phase::Idle))]
    phase: Phase,
    /// The field added to the block: no trace code names it.
    added: u16,
    inner: Inner,
    #[wave(skip)]
    _not_traced: u64,
}

#[derive(Clone, Default, Wave)]
struct Inner {
    flag: bool,
    #[wave(name, none = "-")]
    last: Option<Phase>,
}

impl Traced for Regs {
    fn trace<T: Tracer + ?Sized>(&self, t: &mut T) {
        t.record("blk", &self.words(), Regs::decode);
    }
}

const _: () = assert!(<Regs as Wave>::BITS == 4 + 2 + 16 + 1 + 2);

#[test]
fn a_field_added_to_the_registers_shows_in_the_vcd() {
    let dir = Scratch::new();
    let path = dir.path("derive.vcd");
    let mut r = Regs::default();
    let cfg = TraceConfig::default();
    let mut w = WaveWriter::create(&path, WaveFormat::Vcd, cfg, &r).expect("create");
    for cycle in 0..6u64 {
        r.count = cycle as u8 * 3;
        r.phase = [Phase::Idle, Phase::RunFast, Phase::Hold][cycle as usize % 3];
        r.added = 0x1234u16.wrapping_mul(cycle as u16 + 1);
        r.inner.flag = cycle % 2 == 1;
        r.inner.last = (cycle > 2).then_some(Phase::Hold);
        w.sample(cycle, &r).expect("sample");
    }
    w.finish().expect("finish");
    let mut wave = wellen::simple::read(&path).expect("wellen reads the VCD");
    let at = |c: u64| c * CYCLE_PS;
    let _ = HALF_CYCLE_PS;
    let added = wave_changes(&mut wave, "blk.added");
    let want: Vec<(u64, String)> = (0..6u64)
        .map(|c| {
            (
                at(c),
                format!("{:016b}", 0x1234u16.wrapping_mul(c as u16 + 1)),
            )
        })
        .collect();
    assert_eq!(added, want);
    let phase = wave_changes(&mut wave, "blk.phase");
    let names: Vec<&str> = phase.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(
        names,
        ["IDLE", "RUN_FAST", "hold", "IDLE", "RUN_FAST", "hold"]
    );
    let busy = wave_changes(&mut wave, "blk.busy");
    assert_eq!(busy.first().map(|c| c.1.as_str()), Some("0"));
    let last = wave_changes(&mut wave, "blk.inner.last");
    assert_eq!(
        last,
        [(at(0), "-".to_string()), (at(3), "hold".to_string())]
    );
    let count = wave_changes(&mut wave, "blk.count");
    assert_eq!(count.get(1), Some(&(at(1), "0011".to_string())));
}

#[test]
fn pack_and_decode_agree() {
    let r = Regs {
        count: 9,
        phase: Phase::Hold,
        added: 0xbeef,
        inner: Inner {
            flag: true,
            last: Some(Phase::RunFast),
        },
        _not_traced: 7,
    };
    let mut rec = pp5_rtl::trace::Recorder::default();
    r.trace(&mut rec);
    assert_eq!(rec.value("blk.count"), Some(9));
    assert_eq!(rec.text_value("blk.phase"), Some("hold"));
    assert_eq!(rec.value("blk.busy"), Some(1));
    assert_eq!(rec.value("blk.added"), Some(0xbeef));
    assert_eq!(rec.value("blk.inner.flag"), Some(1));
    assert_eq!(rec.text_value("blk.inner.last"), Some("RUN_FAST"));
    assert_eq!(rec.signals.len(), 6);
}

/// A register struct whose field shows as a computed signal (`get`).
#[derive(Wave)]
#[wave(part)]
struct Fifo {
    #[wave(bits = 4, rename = "level", ty = usize, get = self.words.len())]
    words: Vec<u8>,
    #[wave(skip)]
    _total: u64,
}

/// A record of two blocks' registers, held by reference.
#[derive(Wave)]
struct Both<'a> {
    fifo: &'a Fifo,
    regs: &'a Inner,
}

#[test]
fn computed_signals_and_parts_by_reference() {
    let fifo = Fifo {
        words: vec![1, 2, 3],
        _total: 0,
    };
    let regs = Inner {
        flag: true,
        last: None,
    };
    let mut rec = pp5_rtl::trace::Recorder::default();
    Both {
        fifo: &fifo,
        regs: &regs,
    }
    .record(&mut rec, "port");
    assert_eq!(rec.value("port.fifo.level"), Some(3));
    assert_eq!(rec.value("port.regs.flag"), Some(1));
    assert_eq!(rec.text_value("port.regs.last"), Some("-"));
    assert_eq!(rec.signals.len(), 3);
}

/// A record of `Regs` in an order of its own, with a computed signal: a view, no copy.
#[wave_view(Regs)]
struct RegsView {
    #[wave(bits = 16)]
    added: u16,
    #[wave(bits = 5, get = self.count + 1, then(odd: 1 = count_plus_one & 1))]
    count_plus_one: u8,
    #[wave(name)]
    phase: Phase,
}

// The view's layout is its description's, checked at compile time like a record's.
const _: () = assert!(<RegsView<'static> as Wave>::BITS == 16 + 5 + 2);

#[test]
fn a_view_shows_its_blocks_registers_in_its_own_order() {
    let r = Regs {
        count: 15,
        phase: Phase::RunFast,
        added: 0xabcd,
        ..Regs::default()
    };
    let mut rec = pp5_rtl::trace::Recorder::default();
    RegsView(&r).record(&mut rec, "view");
    let names: Vec<&str> = rec.signals.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "view.added",
            "view.count_plus_one",
            "view.odd",
            "view.phase"
        ]
    );
    assert_eq!(rec.value("view.added"), Some(0xabcd));
    assert_eq!(rec.value("view.count_plus_one"), Some(16));
    assert_eq!(rec.value("view.odd"), Some(0));
    assert_eq!(rec.text_value("view.phase"), Some("RUN_FAST"));
    assert_eq!(RegsView::WORDS, 1);
}

/// A block whose record's signals are computed by a method that counts its calls.
#[derive(Default)]
struct Counted {
    base: u64,
    calls: std::cell::Cell<u32>,
}

impl Counted {
    fn lanes(&self) -> [u64; 3] {
        self.calls.set(self.calls.get() + 1);
        [self.base, self.base + 1, self.base + 2]
    }
}

/// A view over two words whose array signal is one `get` (with `each`).
#[wave_view(Counted)]
struct CountedView {
    #[wave(bits = 40, each = "lane{}", get = self.lanes())]
    lanes: [u64; 3],
}

#[test]
fn a_records_words_evaluate_each_get_once() {
    let c = Counted {
        base: 0xff_0000_0001,
        ..Counted::default()
    };
    assert_eq!(CountedView::WORDS, 2);
    let words = CountedView(&c).words();
    assert_eq!(c.calls.get(), 1, "one call for two words");
    let mut rec = pp5_rtl::trace::Recorder::default();
    CountedView::decode(&words, &mut rec);
    assert_eq!(rec.value("lane0"), Some(0xff_0000_0001));
    assert_eq!(rec.value("lane1"), Some(0xff_0000_0002));
    assert_eq!(rec.value("lane2"), Some(0xff_0000_0003));
}

/// A record that shows another record decoded from its own raw bits.
#[derive(Wave)]
struct Raw {
    #[wave(bits = 3, hide, then(
        "": Inner = Inner { flag: raw & 1 != 0, last: (raw >> 1 != 0).then_some(Phase::Hold) },
        again: Inner = Inner { flag: raw & 1 == 0, last: None },
    ))]
    raw: u8,
}

#[test]
fn a_derived_record_shows_its_signals_in_the_records_scope_or_its_own() {
    let mut rec = pp5_rtl::trace::Recorder::default();
    Raw { raw: 0b011 }.record(&mut rec, "raw");
    let names: Vec<&str> = rec.signals.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        ["raw.flag", "raw.last", "raw.again.flag", "raw.again.last"]
    );
    assert_eq!(rec.value("raw.flag"), Some(1));
    assert_eq!(rec.text_value("raw.last"), Some("hold"));
    assert_eq!(rec.value("raw.again.flag"), Some(0));
    assert_eq!(rec.text_value("raw.again.last"), Some("-"));
}
