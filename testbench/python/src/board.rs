//! `pp5.Board`: one Renderer board with microcode booted through its command stream, run from
//! Python. Every method wraps the engine `pp5 run` and the Rust `Testbench` use.

use crate::arrays;
use crate::breakpoints;
use crate::debugger;
use crate::errors::{os_error, value_error, Deadlock, SimulationError, Stuck};
use crate::image::{self, Image};
use crate::machine::{BuildError, Machine, CHUNK_CYCLES};
use crate::outcome::{outcome, Diagnostic, Marks, Outcome, SentMessage};
use crate::signals;
use crate::status::Status;
use crate::streams::sendable_arg;
use crate::tracing::{open_command, TraceRequest, Wave};
use numpy::{IntoPyArray, PyArray2, PyArray3};
use pp5_sim::engine::{StopReason, Until};
use pp5_sim::report::stop_text;
use pp5_sim::stream::RingEventKind;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// The probe pixels a trace shows when `Board(probes=...)` was not given: as `pp5 run`.
const DEFAULT_PROBES: [(usize, usize); 2] = [(0, 0), (1, 0)];

/// The CLI's default cycle limit (`pp5 run --max-cycles`), per `Board.run`.
const DEFAULT_MAX_CYCLES: u64 = 100_000_000;

/// One Pixel-Planes 5 Renderer board with its microcode loaded.
#[pyclass(module = "pp5")]
pub struct Board {
    m: Machine,
    /// Breakpoints set across runs (`add_breakpoint`, `add_watchpoint`).
    bps: breakpoints::Saved,
}

impl Board {
    fn from_machine(m: Machine) -> Board {
        Board {
            m,
            bps: breakpoints::Saved::default(),
        }
    }

    /// Raise the exception a stop reason calls for, or give the outcome.
    fn finish(&self, py: Python<'_>, marks: Marks, stop: StopReason) -> PyResult<Outcome> {
        let mut out = outcome(&self.m.sim, &self.m.log, marks, &stop);
        if matches!(stop, StopReason::Breakpoint(_)) {
            out.stop_report_json = breakpoints::stop_report_json(&self.m);
        }
        let err = match &stop {
            StopReason::Deadlock { since, waits } => {
                let e = Deadlock::new_err(stop_text(&stop));
                let v = e.value(py);
                v.setattr("since", *since)?;
                let waits: Vec<(String, String, u64)> = waits
                    .iter()
                    .map(|w| (w.block.clone(), w.waits_for.clone(), w.since))
                    .collect();
                v.setattr("waits", waits)?;
                e
            }
            StopReason::Stuck(_) => Stuck::new_err(stop_text(&stop)),
            _ => return Ok(out),
        };
        err.value(py).setattr("outcome", out)?;
        Err(err)
    }

    /// Run until a stop, releasing the GIL for each chunk of cycles and checking for
    /// Ctrl-C between chunks.
    fn run_loop(&mut self, py: Python<'_>, limit: u64) -> PyResult<StopReason> {
        loop {
            let m = &mut self.m;
            let r = py.detach(|| m.run_for(CHUNK_CYCLES, limit));
            match r {
                Err(e) => return Err(os_error("writing the waveform", &e)),
                Ok(Some(stop)) => {
                    self.m.stopped(&stop);
                    return Ok(stop);
                }
                Ok(None) => py.check_signals()?,
            }
        }
    }

    /// Run (as `run`) until the first of the saved breakpoints and `extra` is reached; the
    /// saved ones keep their hit counts.
    fn run_breaking(
        &mut self,
        py: Python<'_>,
        extra: Vec<Until>,
        max_cycles: Option<u64>,
    ) -> PyResult<Outcome> {
        let mut list = self.bps.untils();
        list.extend(extra);
        self.m.sim.set_breakpoints(list).map_err(value_error)?;
        if let Some(b) = &mut self.m.sim.breakpoint {
            b.set_hits(&self.bps.hits());
        }
        self.m.begin_run();
        let marks = Marks::of(&self.m.sim);
        let out = match self.m.still_stuck(false) {
            Some(stop) => self.finish(py, marks, stop),
            None => {
                let limit = max_cycles.map_or(u64::MAX, |n| marks.cycle.saturating_add(n));
                let stop = self.run_loop(py, limit);
                if let Some(b) = &self.m.sim.breakpoint {
                    self.bps.update_hits(&b.hits());
                }
                stop.and_then(|stop| self.finish(py, marks, stop))
            }
        };
        // A breakpoint of `run_until` does not outlive its run (the saved ones are set
        // again by the next).
        self.m.sim.breakpoint = None;
        out
    }

    /// `next` or `finish`: the stop report, or None when the run ended first.
    fn step_to<'py>(&mut self, py: Python<'py>, u: Until) -> PyResult<Option<Bound<'py, PyAny>>> {
        let out = self.run_breaking(py, vec![u], Some(DEFAULT_MAX_CYCLES))?;
        match &out.stop_report_json {
            Some(j) => Ok(Some(py.import("json")?.call_method1("loads", (j,))?)),
            None => Ok(None),
        }
    }

    /// Refuse a breakpoint whose signals the board does not have (naming the near ones).
    fn check_breakpoint(&self, u: &Until) -> PyResult<()> {
        pp5_sim::engine::Breakpoints::new(vec![u.clone()], &self.m.sim.board)
            .check(&self.m.sim.trace_view())
            .map_err(value_error)
    }

    fn check_xy(x: i64, y: i64) -> PyResult<(usize, usize)> {
        arrays::check_xy(x, y)
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        // A waveform left open is closed with its .gtkw (nobody is left to hear an error).
        if let Some(w) = self.m.wave.take() {
            let _ = w.finish();
        }
    }
}

#[pymethods]
impl Board {
    /// Board(microcode=None, *, no_boot=False, probes=None)
    ///
    /// A board after Ring reset with `microcode` loaded through the command stream (NOOP,
    /// NOOP, RMODEON, one MCWRITE per store word, NOOP, RMODEOFF), exactly as `pp5 run`
    /// boots it, and run until idle. `microcode`: None (the image `pp5 run` boots by
    /// default), a `pp5.Image`, a path (str without a newline, or os.PathLike: a .json image
    /// or a .pp5uc source), source text (a str holding a newline), or a list of paths and
    /// sources assembled together in order (as a repeated `--microcode`). `no_boot=True`
    /// writes the store directly (`pp5 run --no-boot`). `probes`: pixels (x, y) traced as
    /// `renderer.pixel_X_Y` (default (0, 0) and (1, 0), added when a trace starts).
    /// `max_cycles`: the boot's cycle limit (None: none), as `pp5 run --max-cycles`; a boot
    /// that does not finish (microcode that never dispatches) raises `pp5.SimulationError`,
    /// and Ctrl-C stops it with KeyboardInterrupt.
    #[new]
    #[pyo3(signature = (microcode = None, *, no_boot = false, probes = None, max_cycles = Some(DEFAULT_MAX_CYCLES)))]
    fn new(
        py: Python<'_>,
        microcode: Option<&Bound<'_, PyAny>>,
        no_boot: bool,
        probes: Option<Vec<(i64, i64)>>,
        max_cycles: Option<u64>,
    ) -> PyResult<Board> {
        let (image, sources) = image::image_and_sources(py, microcode)?;
        let given = probes.is_some();
        let probes = match probes {
            Some(p) => p
                .into_iter()
                .map(|(x, y)| arrays::check_xy(x, y))
                .collect::<PyResult<Vec<_>>>()?,
            None => DEFAULT_PROBES.to_vec(),
        };
        let now: &[(usize, usize)] = if given { &probes } else { &[] };
        let built = py.detach(|| Machine::build(image, no_boot, now));
        let mut board = match built {
            Ok(mut m) => {
                // `renderer.igc.uinst.at` and `.src`, when the microcode's sources are known.
                if let Some(s) = &sources {
                    m.sim.trace.ctx.igc.set_uinsts(s.uinst_names());
                }
                m.sources = sources;
                if !given {
                    m.pending_probes = probes;
                }
                Board::from_machine(m)
            }
            Err(BuildError::Input(msg)) => return Err(value_error(msg)),
        };
        if !no_boot {
            // The boot runs as `run` does: a chunk at a time, Ctrl-C seen between chunks.
            let stop = board.run_loop(py, max_cycles.unwrap_or(u64::MAX))?;
            board.m.booted(&stop).map_err(SimulationError::new_err)?;
        }
        Ok(board)
    }

    /// Cycles the microcode boot took, as `pp5 run` reports them (None with `no_boot`).
    #[getter]
    fn boot_cycles(&self) -> Option<u64> {
        self.m.boot_cycles
    }

    /// The board's 40 MHz cycle counter (25 ns per cycle).
    #[getter]
    fn cycle(&self) -> u64 {
        self.m.sim.board.cycle
    }

    /// The microcode image the board booted (its opcode table names the commands).
    #[getter]
    fn image(&self) -> Image {
        Image::from(self.m.image.clone())
    }

    /// Whether every queued message was delivered and the board is idle.
    #[getter]
    fn done(&self) -> bool {
        self.m.sim.done()
    }

    /// run(stream=None, max_cycles=100_000_000, *, name="<stream>") -> Outcome
    ///
    /// Put `stream` on the Ring (text, a binary Ring-message file's bytes, or a path) behind
    /// anything queued, and clock the board until it is idle again or `max_cycles` more
    /// cycles have passed (None: no limit; Ctrl-C stops a run with KeyboardInterrupt, the
    /// board left consistent at a cycle boundary). The GIL is released while it runs.
    /// Raises `pp5.StreamError` for a stream that does not parse, `pp5.Deadlock` or
    /// `pp5.Stuck` (with `.outcome`) when the run cannot go on. Arrival times (`at=`) are
    /// board cycles, counted from the board's power-on (see `cycle`).
    #[pyo3(
        signature = (stream = None, max_cycles = Some(DEFAULT_MAX_CYCLES), *, name = "<stream>"),
        text_signature = "(self, stream=None, max_cycles=100_000_000, *, name='<stream>')"
    )]
    fn run(
        &mut self,
        py: Python<'_>,
        stream: Option<&Bound<'_, PyAny>>,
        max_cycles: Option<u64>,
        name: &str,
    ) -> PyResult<Outcome> {
        let mut reset = false;
        if let Some(s) = stream {
            let s = sendable_arg(py, s, &self.m.image.table, name)?;
            reset = s
                .events
                .iter()
                .any(|e| matches!(e.kind, RingEventKind::Reset));
            self.m.queue(&s);
        }
        self.m.begin_run();
        let marks = Marks::of(&self.m.sim);
        if let Some(stop) = self.m.still_stuck(reset) {
            return self.finish(py, marks, stop);
        }
        let limit = max_cycles.map_or(u64::MAX, |n| marks.cycle.saturating_add(n));
        let stop = self.run_loop(py, limit)?;
        self.finish(py, marks, stop)
    }

    /// queue(stream, *, name="<stream>")
    ///
    /// Put `stream` on the Ring without clocking the board (then `step` or `run`).
    #[pyo3(signature = (stream, *, name = "<stream>"))]
    fn queue(&mut self, py: Python<'_>, stream: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
        let s = sendable_arg(py, stream, &self.m.image.table, name)?;
        self.m.queue(&s);
        Ok(())
    }

    /// step(n=1) -> int
    ///
    /// Clock the board `n` cycles (the Ring delivering what is queued), whatever it is doing,
    /// and return the cycle counter. No deadlock detection: see `run`.
    #[pyo3(signature = (n = 1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<u64> {
        let mut left = n;
        while left > 0 {
            let k = left.min(CHUNK_CYCLES);
            let m = &mut self.m;
            py.detach(|| m.step(k))
                .map_err(|e| os_error("writing the waveform", &e))?;
            left -= k;
            if left > 0 {
                py.check_signals()?;
            }
        }
        Ok(self.m.sim.board.cycle)
    }

    /// run_until(label=None, *, cycle=None, hits=1, signal=None, value=None, condition=None, after=False, max_cycles=100_000_000) -> Outcome
    ///
    /// Run (as `run`, on what is queued) until a breakpoint, as gdb stops: `label` (a
    /// microcode label or a command's name, `+OFFSET` and `#N` allowed, and ` if COND`)
    /// stops *before* the IGC executes that microinstruction for the `hits`-th time (the IGC
    /// is at it, its effects are absent; `after=True`: after the cycle that ran it, as
    /// `pp5 run --until-after`); `condition` ("renderer.igc.l == 3": signals by their
    /// waveform names, `== != < <= > >=`, `&&`) makes it stop only where that holds; `cycle`
    /// stops before cycle `cycle` runs; `signal` is a watchpoint: stop when the signal
    /// changes, or, with `value` (an int or a name), when it becomes equal to it (`signal`
    /// may also be a condition). A pixel's memory reads as `renderer.pixel_X_Y.mem[A]` or
    /// `mem[A:LEN]`. With none of them, run to a breakpoint set by `add_breakpoint` or
    /// `add_watchpoint` (those also stop this run). The outcome's `stop` is "breakpoint"
    /// when one was reached, and `stop_report` says where (a dict, as `pp5 run --report
    /// json`'s). An unknown label or signal raises ValueError naming the nearest known ones.
    #[pyo3(signature = (label = None, *, cycle = None, hits = 1, signal = None, value = None, condition = None, after = false, max_cycles = Some(DEFAULT_MAX_CYCLES)))]
    #[allow(clippy::too_many_arguments)]
    fn run_until(
        &mut self,
        py: Python<'_>,
        label: Option<&str>,
        cycle: Option<u64>,
        hits: u64,
        signal: Option<&str>,
        value: Option<&Bound<'_, PyAny>>,
        condition: Option<&str>,
        after: bool,
        max_cycles: Option<u64>,
    ) -> PyResult<Outcome> {
        let value = value.map(|v| v.str().map(|s| s.to_string())).transpose()?;
        let one = breakpoints::until_of(
            &self.m,
            label,
            cycle,
            hits,
            signal,
            value.as_deref(),
            condition,
            after,
        )
        .map_err(value_error)?;
        if one.is_none() && self.bps.list.is_empty() {
            return Err(value_error(
                "run_until: give label=, cycle= or signal=, or set breakpoints first \
                 (add_breakpoint, add_watchpoint)",
            ));
        }
        self.run_breaking(py, one.into_iter().collect(), max_cycles)
    }

    /// add_breakpoint(spec, *, hits=1, condition=None, after=False) -> int
    ///
    /// Set a breakpoint that stays for every later run (gdb's `break`): `spec` is
    /// `LABEL[+OFFSET][#N] [if COND]` as `run_until`'s label; from its `hits`-th time on it
    /// stops every time it is reached. Returns its number (`delete_breakpoint`).
    #[pyo3(signature = (spec, *, hits = 1, condition = None, after = false))]
    fn add_breakpoint(
        &mut self,
        spec: &str,
        hits: u64,
        condition: Option<&str>,
        after: bool,
    ) -> PyResult<u64> {
        let u = breakpoints::label_breakpoint(&self.m, spec, hits, condition, after)
            .map_err(value_error)?;
        self.check_breakpoint(&u)?;
        Ok(self.bps.add(u))
    }

    /// add_watchpoint(signal, value=None) -> int
    ///
    /// Set a watchpoint that stays for every later run (gdb's `watch`): stop when `signal`
    /// changes, or when it becomes equal to `value`; `signal` may be a condition
    /// ("renderer.igc.l == 3 && renderer.igc.i > 1"). Returns its number.
    #[pyo3(signature = (signal, value = None))]
    fn add_watchpoint(&mut self, signal: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let value = value.map(|v| v.str().map(|s| s.to_string())).transpose()?;
        let u = breakpoints::watchpoint(signal, value.as_deref()).map_err(value_error)?;
        self.check_breakpoint(&u)?;
        Ok(self.bps.add(u))
    }

    /// breakpoints() -> list[dict]
    ///
    /// The breakpoints set by `add_breakpoint` and `add_watchpoint`: {"id", "spec", "hits"}.
    fn breakpoints<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.bps
            .list
            .iter()
            .map(|(id, u, hits)| {
                let d = PyDict::new(py);
                d.set_item("id", id)?;
                d.set_item("spec", u.spec())?;
                d.set_item("hits", hits)?;
                Ok(d)
            })
            .collect()
    }

    /// delete_breakpoint(id=None)
    ///
    /// Delete breakpoint `id` (every one with None); ValueError if there is no such one.
    #[pyo3(signature = (id = None))]
    fn delete_breakpoint(&mut self, id: Option<u64>) -> PyResult<()> {
        if !self.bps.delete(id) {
            return Err(value_error(format!("no breakpoint {}", id.unwrap_or(0))));
        }
        Ok(())
    }

    /// next() -> dict | None
    ///
    /// gdb's `next`: run until the IGC is about to execute a microinstruction past the
    /// current one in the same routine, stepping over a CALL and, at a loop's last line,
    /// over the rest of the loop (gdb's `until`); or one the routine returns to, or the next
    /// command's first. Returns the stop report (as `run_until`'s `stop_report`), or None
    /// when the run ended first. The breakpoints set stop it too.
    fn next<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.step_to(py, Until::Next)
    }

    /// finish() -> dict | None
    ///
    /// gdb's `finish`: run until the routine the IGC is in returns: a CALLed subroutine to
    /// the microinstruction after its CALL (not yet run), a command's routine to its
    /// dispatch (the IGC waits for a command, or is about to run the next one). Returns the
    /// stop report, or None when the run ended first.
    #[pyo3(name = "finish")]
    fn finish_routine<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.step_to(py, Until::Finish)
    }

    /// step_microinstruction() -> dict
    ///
    /// Clock the board until the IGC has executed one more microinstruction (as `run`, with
    /// deadlock detection and the cycle limit), and return `where()`.
    fn step_microinstruction<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.m.sim.set_breakpoint(Until::NextUinst);
        self.m.begin_run();
        let marks = Marks::of(&self.m.sim);
        let stop = self.run_loop(py, marks.cycle.saturating_add(DEFAULT_MAX_CYCLES));
        self.m.sim.breakpoint = None;
        let stop = stop?;
        if !matches!(stop, StopReason::Breakpoint(_)) {
            self.finish(py, marks, stop)?;
        }
        self.where_(py)
    }

    /// where() -> dict
    ///
    /// Where the IGC is in the microcode: the microinstruction at its PC, the one it executes
    /// in the cycle `board.cycle` numbers (as gdb's `where` shows the next instruction), as
    /// {"pc": int, "at": "MEMplusMEM+3", "src": "standard.pp5uc:141" or None, "text": the
    /// source line or None, "state": the IGC's state, "lanes": the PEs enabled now (Enable
    /// and active in the flow-control unit), those it runs on}. The waveform's `renderer.igc.pc`,
    /// `renderer.igc.uinst.at` and `.src` at time `board.cycle` and the listing
    /// (`pp5 asm --listing`) name the same microinstruction.
    #[pyo3(name = "where")]
    fn where_<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = debugger::where_is(&self.m);
        let d = PyDict::new(py);
        d.set_item("pc", w.pc)?;
        d.set_item("at", w.at)?;
        d.set_item("src", w.src)?;
        d.set_item("text", w.text)?;
        d.set_item("state", w.state)?;
        d.set_item("lanes", w.lanes)?;
        Ok(d)
    }

    /// enable_profile()
    ///
    /// From now on, charge every cycle to the microinstruction the IGC executed (or was
    /// stalled on): for `profile()` and `coverage()`.
    fn enable_profile(&mut self) {
        self.m.sim.enable_profile();
    }

    /// profile() -> dict | None
    ///
    /// Where the cycles went since `enable_profile()`: {"cycles", "routines", "lines",
    /// "calls"}, each row {"name", "text" (lines), "cycles", "causes", "lanes": {"min",
    /// "mean", "max"} (the PEs enabled when it ran; absent for a row that executed
    /// nothing)}, most cycles first (as `pp5 run --profile --report json`). None when no
    /// profile is kept.
    fn profile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(json) = debugger::profile_json(&self.m) else {
            return Ok(None);
        };
        Ok(Some(py.import("json")?.call_method1("loads", (json,))?))
    }

    /// annotate() -> dict | None
    ///
    /// The annotated listing since `enable_profile()` (as `pp5 run --annotate --report
    /// json`): {"cycles", "outside", "uinsts"}, every microinstruction in source order with
    /// "executions", "cycles", "percent", "causes", "lanes", "branch", "call". None when no
    /// profile is kept.
    fn annotate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(json) = debugger::annotate_json(&self.m) else {
            return Ok(None);
        };
        Ok(Some(py.import("json")?.call_method1("loads", (json,))?))
    }

    /// coverage(path, *, test="pp5")
    ///
    /// Write the microcode coverage since `enable_profile()` as an lcov tracefile at `path`
    /// (as `pp5 run --coverage`; `genhtml` renders it).
    #[pyo3(signature = (path, *, test = "pp5"))]
    fn coverage(&self, path: std::path::PathBuf, test: &str) -> PyResult<()> {
        let text = debugger::coverage_text(&self.m, test, &path).map_err(value_error)?;
        pp5_sim::out_file::write(&path, text).map_err(|e| os_error(&path.display().to_string(), &e))
    }

    /// memory() -> numpy.ndarray[uint8, (128, 128, 26)]
    ///
    /// All pixel memory, indexed [y, x, byte]: byte k holds bits 8k..8k+7 (bit 8k in its
    /// LSB), the layout of `pp5 run --dump-mem`. A copy: writing it changes nothing.
    fn memory<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<u8>> {
        arrays::memory(&self.m.sim.board.array).into_pyarray(py)
    }

    /// set_memory(values)
    ///
    /// Write all pixel memory from bytes indexed [y, x, byte] (anything that broadcasts to
    /// (128, 128, 26), values 0..=255).
    fn set_memory(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = arrays::memory_values(values)?;
        arrays::set_memory(&mut self.m.sim.board.array, &v);
        self.m.touched();
        Ok(())
    }

    /// field(addr, len, signed=False) -> numpy.ndarray[int64, (128, 128)]
    ///
    /// `mem[addr:len]` of every pixel, indexed [y, x]; `signed` sign-extends from bit
    /// addr+len-1. len is 1..=63 (1..=64 signed), the field inside the 208 bits.
    #[pyo3(signature = (addr, len, signed = false))]
    fn field<'py>(
        &self,
        py: Python<'py>,
        addr: i64,
        len: i64,
        signed: bool,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let (a, l) = arrays::check_field(addr, len, signed)?;
        Ok(arrays::field(&self.m.sim.board.array, a, l, signed).into_pyarray(py))
    }

    /// set_field(addr, len, values)
    ///
    /// Write `mem[addr:len]` of every pixel: `values` is an int (every pixel) or an integer
    /// array that broadcasts to (128, 128), indexed [y, x]; each value must fit `len` bits,
    /// as unsigned (0..2**len) or signed (-2**(len-1)..).
    fn set_field(&mut self, addr: i64, len: i64, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let (a, l) = arrays::check_field(addr, len, true)?;
        let v = arrays::field_values(values, l)?;
        arrays::set_field(&mut self.m.sim.board.array, a, l, &v);
        self.m.touched();
        Ok(())
    }

    /// peek(x, y, addr, len) -> int
    ///
    /// `mem[addr:len]` (len 1..=64, unsigned) of pixel (x, y).
    fn peek(&self, x: i64, y: i64, addr: i64, len: i64) -> PyResult<u64> {
        let (x, y) = Self::check_xy(x, y)?;
        let (a, l) = arrays::check_field(addr, len, true)?;
        Ok(self.m.sim.board.array.peek(x, y, a, l))
    }

    /// poke(x, y, addr, len, value)
    ///
    /// Write `mem[addr:len]` of pixel (x, y); `value` must fit `len` bits (unsigned or signed).
    fn poke(&mut self, x: i64, y: i64, addr: i64, len: i64, value: i128) -> PyResult<()> {
        let (x, y) = Self::check_xy(x, y)?;
        let (a, l) = arrays::check_field(addr, len, true)?;
        let (lo, hi) = (-(1i128 << (l - 1)), (1i128 << l) - 1);
        if value < lo || value > hi {
            return Err(value_error(format!(
                "value {value} does not fit a {l}-bit field ({lo}..={hi})"
            )));
        }
        self.m.sim.board.array.poke(x, y, a, l, value as u64);
        self.m.touched();
        Ok(())
    }

    /// enable() -> numpy.ndarray[bool, (128, 128)]
    ///
    /// The Enable registers, indexed [y, x].
    fn enable<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        arrays::plane_array(&self.m.sim.board.array.enable).into_pyarray(py)
    }

    /// carry() -> numpy.ndarray[bool, (128, 128)]
    ///
    /// The Carry registers, indexed [y, x].
    fn carry<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        arrays::plane_array(&self.m.sim.board.array.carry).into_pyarray(py)
    }

    /// set_enable(values)
    ///
    /// Write the Enable registers (a bool, or a bool array broadcasting to (128, 128),
    /// [y, x]); AEO and the status stripe bits follow.
    fn set_enable(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = arrays::bool_values(values, "enable")?;
        let a = &mut self.m.sim.board.array;
        a.enable.0 = arrays::array_plane(&v);
        a.refresh_aeo();
        self.m.touched();
        Ok(())
    }

    /// set_carry(values)
    ///
    /// Write the Carry registers (a bool, or a bool array broadcasting to (128, 128), [y, x]).
    fn set_carry(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = arrays::bool_values(values, "carry")?;
        self.m.sim.board.array.carry.0 = arrays::array_plane(&v);
        self.m.touched();
        Ok(())
    }

    /// signal(name) -> int | str
    ///
    /// The value of a register or signal by its waveform name (`renderer.igc.pc`,
    /// `renderer.igc_port.parser.state`): an int, or a str for FSM states and decoded
    /// fields. A KeyError names the signals near an unknown name.
    fn signal(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        signals::signal(py, &self.m.sim.trace_view(), name)
    }

    /// signals(prefix="") -> dict[str, int | str]
    ///
    /// Every signal whose path is `prefix` or lies under it (all, by default), as the
    /// waveform names them.
    #[pyo3(signature = (prefix = ""))]
    fn signals<'py>(&self, py: Python<'py>, prefix: &str) -> PyResult<Bound<'py, PyDict>> {
        signals::signals(py, &self.m.sim.trace_view(), prefix)
    }

    /// status() -> Status
    ///
    /// The 32-bit status word, with its bits by name.
    fn status(&self) -> Status {
        Status {
            word: self.m.sim.board.status(),
        }
    }

    /// Every diagnostic since the board was built (the CLI's `diagnostics:`; at most 1000
    /// are kept, `dropped_diagnostics` counts the rest).
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        self.m.sim.diagnostics.iter().map(Diagnostic::of).collect()
    }

    /// The Ring messages the board sent since it was built (status and error messages,
    /// BS_TRANSMIT data), in the order their last word went out: the first 10,000
    /// (`sent_not_kept` counts the rest).
    #[getter]
    fn sent(&self) -> Vec<SentMessage> {
        self.m.sent.kept.iter().map(SentMessage::of).collect()
    }

    /// Messages the board sent past the 10,000 that `sent` keeps.
    #[getter]
    fn sent_not_kept(&self) -> u64 {
        self.m.sent.not_kept
    }

    /// Diagnostics not kept because 1000 already were.
    #[getter]
    fn dropped_diagnostics(&self) -> u64 {
        self.m.sim.diagnostics.dropped
    }

    /// trace(path, scopes=None, window=None, emcs=None, view=None) -> Trace
    ///
    /// Write a waveform of what the board does from now on to `path` (.vcd or .fst) and,
    /// when the trace is closed (`Trace.close()`, the end of a `with` block, or the board
    /// going away), a GTKWave save file beside it (.gtkw). `scopes`: path prefixes to trace
    /// (default all); `window`: (first, last) board cycles to record; `emcs`: EMC numbers
    /// 0..=63 (or "all") whose QEE is traced as `renderer.emc[K].qee` (default: EMC 0 and the
    /// probe pixels' EMCs); `view`: cycles the .gtkw shows across the wave pane.
    #[pyo3(signature = (path, scopes = None, window = None, emcs = None, view = None))]
    fn trace(
        slf: Bound<'_, Self>,
        path: std::path::PathBuf,
        scopes: Option<Vec<String>>,
        window: Option<(u64, u64)>,
        emcs: Option<&Bound<'_, PyAny>>,
        view: Option<u64>,
    ) -> PyResult<Trace> {
        let mut this = slf.borrow_mut();
        if let Some(w) = &this.m.wave {
            return Err(value_error(format!(
                "a trace to {} is open: close it first",
                w.path.display()
            )));
        }
        let mask = match emcs {
            None => None,
            Some(e) => Some(emc_mask(e)?),
        };
        let m = &mut this.m;
        for (x, y) in std::mem::take(&mut m.pending_probes) {
            m.sim.trace.add_probe(x, y, &m.sim.board);
        }
        if mask.is_some() {
            m.sim.trace.ctx.emcs = mask;
        }
        let req = TraceRequest {
            path: path.clone(),
            scopes: scopes.unwrap_or_default(),
            window,
            view_cycles: view,
        };
        let decl = req.check(&m.sim.trace_view()).map_err(value_error)?;
        m.sim.trace.set_keyed(true, &m.sim.board);
        let wave = Wave::start(req, decl, &m.sim.trace_view())
            .map_err(|e| os_error(&path.display().to_string(), &e))?;
        m.wave = Some(wave);
        drop(this);
        Ok(Trace {
            board: slf.unbind(),
            path,
        })
    }

    /// close_trace() -> tuple[str, str] | None
    ///
    /// Close the open waveform and write its .gtkw; returns the two paths (None if no trace
    /// was open).
    fn close_trace(&mut self) -> PyResult<Option<(String, String)>> {
        let Some(w) = self.m.wave.take() else {
            return Ok(None);
        };
        self.m.sim.trace.set_keyed(false, &self.m.sim.board);
        let path = w.path.display().to_string();
        let (wave, gtkw) = w.finish().map_err(|e| os_error(&path, &e))?;
        Ok(Some((
            wave.display().to_string(),
            gtkw.display().to_string(),
        )))
    }

    /// copy() -> Board
    ///
    /// An independent copy of the board as it is now (memory, registers, queued input,
    /// logs), without its waveform: to try several continuations from one state.
    fn copy(&self) -> Board {
        Board::from_machine(Machine {
            sim: self.m.sim.clone(),
            image: self.m.image.clone(),
            wave: None,
            boot_cycles: self.m.boot_cycles,
            pending_probes: self.m.pending_probes.clone(),
            sources: self.m.sources.clone(),
            log: self.m.log.clone(),
            sent: self.m.sent.clone(),
            stuck_loop: self.m.stuck_loop,
        })
    }

    fn __copy__(&self) -> Board {
        self.copy()
    }

    fn __repr__(&self) -> String {
        format!(
            "<pp5.Board cycle={} boot_cycles={} status={:#010x}{}>",
            self.m.sim.board.cycle,
            self.m
                .boot_cycles
                .map_or("None".to_string(), |b| b.to_string()),
            self.m.sim.board.status(),
            match &self.m.wave {
                Some(w) => format!(" tracing to {}", w.path.display()),
                None => String::new(),
            }
        )
    }
}

/// The EMC selection of `Board.trace(emcs=...)`: "all" or numbers 0..=63.
fn emc_mask(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(s) = obj.cast::<PyString>() {
        return if s.to_str()?.eq_ignore_ascii_case("all") {
            Ok(u64::MAX)
        } else {
            Err(value_error(
                "emcs: a list of EMC numbers 0..=63, or \"all\"",
            ))
        };
    }
    let ks: Vec<i64> = obj.extract()?;
    ks.into_iter().try_fold(0u64, |m, k| {
        if (0..pp5_rtl::emc_array::NUM_EMCS as i64).contains(&k) {
            Ok(m | 1 << k)
        } else {
            Err(value_error(format!(
                "emcs: EMC {k} does not exist: EMCs are numbered 0..=63"
            )))
        }
    })
}

/// An open waveform of a board: a context manager (`with board.trace("x.vcd"): ...`) whose
/// exit, like `close()`, closes the file and writes the .gtkw.
#[pyclass(module = "pp5")]
pub struct Trace {
    board: Py<Board>,
    path: std::path::PathBuf,
}

#[pymethods]
impl Trace {
    /// close() -> tuple[str, str] | None
    ///
    /// Close the waveform and write its .gtkw; returns (waveform path, .gtkw path).
    fn close(&self, py: Python<'_>) -> PyResult<Option<(String, String)>> {
        self.board.borrow_mut(py).close_trace()
    }

    /// The shell command that opens the waveform with its save file in GTKWave.
    #[getter]
    fn gtkwave_command(&self) -> String {
        open_command(&self.path, &self.path.with_extension("gtkw"))
    }

    /// The waveform's path.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _t: Option<&Bound<'_, PyAny>>,
        _v: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}
