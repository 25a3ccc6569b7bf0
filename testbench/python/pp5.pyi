"""The Pixel-Planes 5 Renderer model (pp5-rtl) for Python testbenches.

One board per `Board`: microcode booted through the command stream as `pp5 run` does,
streams run on the same engine as the CLI and the Rust `Testbench`, pixel memory and
Enable/Carry as NumPy arrays indexed [y, x] (row y, column x: the orientation of the PNG
pictures and of `pp5 run --dump-mem`), registers by their waveform names. Tutorial:
docs/python.md.
"""

import os
from types import TracebackType
from typing import Any, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str
ARRAY_DIM: int
"""Width and height of the pixel-processor array: 128."""
MEM_BITS: int
"""Bits of pixel memory per pixel: 208 (26 bytes)."""
CYCLE_NS: float
"""One 40 MHz cycle in ns: 25.0."""

MicrocodePart = Union[str, os.PathLike]
Microcode = Union[None, "Image", str, os.PathLike, Sequence[MicrocodePart]]
"""None (the image `pp5 run` boots by default), an Image, a path (a str without a newline, or
os.PathLike: a .json image or a .pp5uc source), source text (a str holding a newline), or a
list of paths and sources assembled together in order (as a repeated `--microcode`)."""
StreamInput = Union[str, bytes, bytearray, os.PathLike]
"""Text in the .pp5s format (str), a binary Ring-message file's bytes (or UTF-8 text as
bytes), or a path to either."""
StopName = Literal["done", "max_cycles", "stuck", "deadlock", "interrupted", "breakpoint"]

class AsmError(ValueError):
    """Microcode that does not assemble; str() lists `file:line: message` per error."""

    errors: list[tuple[str, int, str]]
    more: int

class StreamError(ValueError):
    """A stream that does not parse or read; str() is `file:line: message`."""

    file: str
    line: int
    """1-based; 0 for a binary stream."""
    msg: str

class SimulationError(RuntimeError):
    """A run that cannot go on; str() is the CLI's `stopped:` text."""

    outcome: Outcome

class Deadlock(SimulationError):
    """No block can make progress and some block waits (the CLI exits 6)."""

    since: int
    waits: list[tuple[str, str, int]]
    """(block, what it waits for, since which cycle), as the CLI's report lists them."""

class Stuck(SimulationError):
    """The IGC is stuck: HANG, an illegal microinstruction, a microcode self-loop."""

class Status:
    """The 32-bit status word (seed 003 §III.4.1-5); int(status) is the word."""

    word: int
    aeo_stripes: tuple[bool, bool, bool, bool]
    """Bits 0-3: the stripe ORs of Enable (inverses of AEO0..AEO3)."""
    aeo: bool
    """AEO: no pixel enabled (bits 0-3 clear)."""
    fc_error: bool
    """Bit 4 (sticky): flow-control error (model extension)."""
    txready_bs: bool
    """Bit 6."""
    txready_igc: bool
    """Bit 7."""
    bs_semaphore: int
    """Bits 8-15."""
    igc_semaphore: int
    """Bits 16-23."""
    bs_sem_overflow: bool
    """Bit 24 (sticky)."""
    igc_sem_overflow: bool
    """Bit 25 (sticky)."""
    bs_rxfifo_overwritten: bool
    """Bit 26 (sticky)."""
    igc_rxfifo_overwritten: bool
    """Bit 27 (sticky)."""
    bs_format_error: bool
    """Bit 28 (sticky): formatting error or bogus command in the BS stream."""
    igc_format_error: bool
    """Bit 29 (sticky): formatting error in the IGC stream."""
    igc_timeout: bool
    """Bit 30 (sticky)."""
    indicator: bool
    """Bit 31: INDON / INDOFF."""
    errors: list[str]
    """Set error bits 24-30 as the CLI lists them: "29: IGC formatting error"."""
    def __getitem__(self, bit: int) -> bool: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

class Command:
    """An IGC command a run took (a row of the CLI's command table)."""

    index: int
    name: str
    operands: list[int]
    opcode: int
    start: int
    """First cycle of its routine."""
    cycles: int
    """From its first microinstruction through the one that dispatched the next command."""
    waited: int
    """Of those, cycles waiting on a semaphore, a transfer or the transmitter."""
    causes: dict[str, int]
    """Its cycles by cause (executing, semaphore_wait, ...), as --report json names them."""

class BsCommand:
    """A BS port command a run took."""

    index: int
    name: str
    word: int
    start: int
    cycles: int
    causes: dict[str, int]

class Diagnostic:
    """What the CLI lists under `diagnostics:`."""

    cycle: int
    level: Literal["error", "fault", "warning", "note"]
    msg: str

class SentMessage:
    """A Ring message the board sent."""

    port: Literal["igc", "bs"]
    kind: Literal["STATUS", "ERROR", "DATA"]
    start: int
    end: int
    words: list[int]
    """Every word, the destination first."""
    id: Optional[int]
    """ID word of a status or error message."""
    status: Optional[Status]
    """Status word of a status or error message."""

class Outcome:
    """The result of Board.run."""

    stop: StopName
    stop_text: str
    """Why it stopped, in the CLI's words."""
    cycles: int
    """40 MHz cycles of this run."""
    start_cycle: int
    end_cycle: int
    commands: list[Command]
    """The run's IGC commands: the first 100,000 (as `pp5 run --report json`)."""
    commands_not_kept: int
    """IGC commands of the run past the 100,000 kept."""
    bs_commands: list[BsCommand]
    """The run's BS port commands: the first 100,000."""
    bs_commands_not_kept: int
    diagnostics: list[Diagnostic]
    sent: list[SentMessage]
    """The messages the board sent in the run: the first 10,000."""
    sent_not_kept: int
    status: Status
    error_bits: list[str]
    """Error bits 24-30 set at the end, as the CLI lists them."""
    stop_report_json: Optional[str]
    stop_report: Optional[dict[str, Any]]
    """Where a run stopped at a breakpoint or watchpoint stopped (as `pp5 run --report
    json`'s "stop_report"): "cycle" (before it runs), "next" (the microinstruction not yet
    run: "pc", "at", "src", "text"), "igc" (registers), "backtrace" (frames "next", "call",
    "command"), "loops", "watch" ({"signal", "old", "new"}); None for other stops."""
    ok: bool
    """stop == "done" and no error bit (what makes `pp5 run` exit 0)."""
    command_cycles: list[tuple[str, int]]
    """(name, cycles) per command, as the Rust testbench's Outcome."""
    def by_name(self) -> dict[str, tuple[int, int]]:
        """name -> (count, total cycles), as the CLI's `by command` table."""

class CommandInfo:
    """One command of an opcode table."""

    name: str
    cmd: int
    args: list[tuple[str, str]]
    """(name, kind) per argument; kinds as `pp5 asm` prints them (addr, len, ...)."""
    operand_class: Literal["plain", "scalar", "tree", "hardwired_c"]
    entry: Optional[int]
    long: bool
    forms: list[str]
    """Macro names a stream may use (SCAIntoMEM_S0, SCAIntoMEM_S1, SCAIntoMEM_TBL)."""

class Image:
    """An assembled microcode image: store words and the opcode table it declares."""

    @staticmethod
    def load(path: Union[str, os.PathLike]) -> Image:
        """A .json image (`pp5 asm -o`) or a .pp5uc source, by content."""
    @staticmethod
    def default() -> Image:
        """The image Board() boots by default: standard + qee + flow microcode."""
    uinsts: int
    words: list[tuple[int, int]]
    """(store address, word) in MCWRITE order."""
    labels: dict[str, int]
    commands: list[CommandInfo]
    def command(self, name: str) -> CommandInfo:
        """A command by mnemonic or macro name (KeyError if absent)."""
    def encode(self, macro: str, args: Sequence[int], coefs: Sequence[int] = ()) -> list[int]:
        """Stream words of one command: opcode, P word, coefficient words (raw bits)."""
    def opcode_table(self) -> str:
        """The table `pp5 asm` prints."""
    def c_header(self) -> str:
        """The C header `pp5 asm --header` writes (I_, P_, Ix_ macros)."""
    def to_json(self) -> str: ...
    def save(self, path: Union[str, os.PathLike]) -> None: ...
    def boot_messages(self) -> list[list[int]]:
        """Message bodies of the boot: NOOP, NOOP, RMODEON, MCWRITE..., NOOP, RMODEOFF."""
    def __contains__(self, name: str) -> bool: ...
    def __len__(self) -> int: ...

class Trace:
    """An open waveform; a context manager that closes it (and writes the .gtkw) on exit."""

    path: str
    gtkwave_command: str
    """The shell command that opens the waveform with its save file."""
    def close(self) -> Optional[tuple[str, str]]:
        """Close the waveform, write the .gtkw; (waveform path, .gtkw path)."""
    def __enter__(self) -> Trace: ...
    def __exit__(
        self,
        t: Optional[type[BaseException]],
        v: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

class Board:
    """One Renderer board with its microcode loaded through the command stream."""

    def __init__(
        self,
        microcode: Microcode = None,
        *,
        no_boot: bool = False,
        probes: Optional[Sequence[tuple[int, int]]] = None,
        max_cycles: Optional[int] = 100_000_000,
    ) -> None:
        """Boot `microcode` as `pp5 run` does (NOOP, NOOP, RMODEON, MCWRITE..., NOOP,
        RMODEOFF through the Ring) and run until idle; `no_boot` writes the store directly
        (`--no-boot`). `probes`: pixels traced as renderer.pixel_X_Y (default (0,0), (1,0),
        added when a trace starts; given ones are added at once). `max_cycles`: the boot's
        cycle limit (None: none); a boot that does not finish raises SimulationError."""
    boot_cycles: Optional[int]
    """Cycles of the boot, as `pp5 run` reports them (None with no_boot)."""
    cycle: int
    """The board's 40 MHz cycle counter."""
    image: Image
    done: bool
    """Every queued message delivered and the board idle."""
    diagnostics: list[Diagnostic]
    dropped_diagnostics: int
    sent: list[SentMessage]
    """The Ring messages the board sent since it was built: the first 10,000."""
    sent_not_kept: int
    """Messages the board sent past the 10,000 kept."""
    def run(
        self,
        stream: Optional[StreamInput] = None,
        max_cycles: Optional[int] = 100_000_000,
        *,
        name: str = "<stream>",
    ) -> Outcome:
        """Queue `stream` and clock until idle (or max_cycles more cycles; None: no limit).
        Releases the GIL; Ctrl-C raises KeyboardInterrupt, leaving the board consistent.
        Raises StreamError, Deadlock, Stuck. `at=` times are board cycles."""
    def queue(self, stream: StreamInput, *, name: str = "<stream>") -> None:
        """Put a stream on the Ring without clocking."""
    def step(self, n: int = 1) -> int:
        """Clock n cycles whatever the board does; returns the cycle counter."""
    def run_until(
        self,
        label: Optional[str] = None,
        *,
        cycle: Optional[int] = None,
        hits: int = 1,
        signal: Optional[str] = None,
        value: Optional[Union[int, str]] = None,
        condition: Optional[str] = None,
        after: bool = False,
        max_cycles: Optional[int] = 100_000_000,
    ) -> Outcome:
        """Run until a breakpoint: before the IGC executes `label` (a label or command name,
        `+OFFSET`, `#N`, ` if COND` allowed) for the hits-th time (`after=True`: after it ran),
        where `condition` holds; before `cycle`; or when `signal` changes (becomes `value`).
        Breakpoints set by add_breakpoint/add_watchpoint stop it too. stop == "breakpoint"
        when reached, with `stop_report`. An unknown label or signal raises ValueError naming
        the nearest ones."""
    def add_breakpoint(
        self,
        spec: str,
        *,
        hits: int = 1,
        condition: Optional[str] = None,
        after: bool = False,
    ) -> int:
        """A breakpoint kept for every later run (gdb's `break`); returns its number."""
    def add_watchpoint(self, signal: str, value: Optional[Union[int, str]] = None) -> int:
        """A watchpoint kept for every later run (gdb's `watch`); returns its number."""
    def breakpoints(self) -> list[dict[str, Any]]:
        """The breakpoints kept: {"id", "spec", "hits"}."""
    def delete_breakpoint(self, id: Optional[int] = None) -> None:
        """Delete breakpoint `id` (all with None)."""
    def next(self) -> Optional[dict[str, Any]]:
        """gdb's `next`: over a CALL, and at a loop's last line over the rest of the loop;
        returns the stop report (None if the run ended first)."""
    def finish(self) -> Optional[dict[str, Any]]:
        """gdb's `finish`: until the routine returns (a command's routine: dispatches);
        returns the stop report (None if the run ended first)."""
    def step_microinstruction(self) -> dict[str, Any]:
        """Clock until the IGC has executed one more microinstruction; returns where() (the
        next one, at the PC)."""
    def where(self) -> dict[str, Any]:
        """The microinstruction at the IGC's PC, the one it executes in the cycle
        `board.cycle` numbers: {"pc", "at", "src", "text", "state", "lanes"} ("lanes": the PEs
        enabled now, Enable and flow-control active, which it runs on)."""
    def enable_profile(self) -> None:
        """Charge every cycle from now on to its microinstruction (profile(), coverage())."""
    def profile(self) -> Optional[dict[str, Any]]:
        """Cycles per routine and source line since enable_profile(), by cause, with the PEs
        enabled when they ran ("lanes": min, mean, max), and the CALLs ("calls")."""
    def annotate(self) -> Optional[dict[str, Any]]:
        """The annotated listing since enable_profile(): every microinstruction in source
        order with its executions, cycles, share, causes, lanes, branch outcomes and calls."""
    def coverage(self, path: Union[str, os.PathLike], *, test: str = "pp5") -> None:
        """Write the microcode coverage as an lcov tracefile (genhtml renders it)."""
    def memory(self) -> npt.NDArray[np.uint8]:
        """All pixel memory, shape (128, 128, 26), [y, x, byte]: bits 8k..8k+7 in byte k."""
    def set_memory(self, values: npt.ArrayLike) -> None: ...
    def field(self, addr: int, len: int, signed: bool = False) -> npt.NDArray[np.int64]:
        """mem[addr:len] of every pixel, shape (128, 128), [y, x]."""
    def set_field(self, addr: int, len: int, values: npt.ArrayLike) -> None:
        """Write mem[addr:len]: an int or an integer array broadcasting to (128, 128)."""
    def peek(self, x: int, y: int, addr: int, len: int) -> int: ...
    def poke(self, x: int, y: int, addr: int, len: int, value: int) -> None: ...
    def enable(self) -> npt.NDArray[np.bool_]:
        """Enable registers, (128, 128), [y, x]."""
    def carry(self) -> npt.NDArray[np.bool_]:
        """Carry registers, (128, 128), [y, x]."""
    def set_enable(self, values: npt.ArrayLike) -> None: ...
    def set_carry(self, values: npt.ArrayLike) -> None: ...
    def signal(self, name: str) -> Union[int, str]:
        """A register or signal by its waveform name, e.g. "renderer.igc.pc"."""
    def signals(self, prefix: str = "") -> dict[str, Union[int, str]]:
        """Every signal under a scope prefix (all by default)."""
    def status(self) -> Status: ...
    def trace(
        self,
        path: Union[str, os.PathLike],
        scopes: Optional[Sequence[str]] = None,
        window: Optional[tuple[int, int]] = None,
        emcs: Union[None, Sequence[int], Literal["all"]] = None,
        view: Optional[int] = None,
    ) -> Trace:
        """Write a .vcd or .fst of what follows (and a .gtkw when closed)."""
    def close_trace(self) -> Optional[tuple[str, str]]: ...
    def copy(self) -> Board:
        """An independent copy of the board now, without its waveform."""
    def __copy__(self) -> Board: ...

def assemble(source: str, name: str = "<microcode>") -> Image:
    """Assemble microcode source text; AsmError lists `name:line: message`."""

def assemble_files(parts: Sequence[Union[str, os.PathLike, tuple[str, str]]]) -> Image:
    """Assemble paths or (name, source) parts as one, in order."""

def microcode_source(which: Literal["standard", "qee", "flow", "shade"]) -> str:
    """One shipped microcode file's source text (standard.pp5uc, qee.pp5uc, flow.pp5uc,
    shade.pp5uc), to copy and alter."""

def stream(text: StreamInput, microcode: Microcode = None, name: str = "<stream>") -> bytes:
    """Assemble a text stream into a binary Ring-message file (`pp5 stream -o`)."""

def disassemble(data: StreamInput, microcode: Microcode = None) -> str:
    """A stream as .pp5s text (`pp5 stream IN`)."""

Vec3 = Union[str, tuple[float, float, float]]
"""A point or direction: "x,y,z" or three numbers."""

class RenderResult:
    """The figures of one render study (`render`): `pp5 render --report json` as attributes."""

    scene: str
    screen: tuple[int, int]
    renderers: int
    frame_cycles: int
    """The frame's 40 MHz cycles (the full system's, or the Renderers' alone)."""
    frame_us: float
    prims_per_sec: float
    """Drawn (front-facing, in view) primitives per second."""
    scene_triangles_per_sec: float
    gp: dict[str, Any]
    """The GP's statistics: triangles, outside, clipped, back_facing, degenerate, prims, binned, mean_prim_area."""
    stages: dict[str, int]
    """IGC cycles by stage: setup, primitives, shading, output, input_wait."""
    system_rows: Optional[list[dict[str, Any]]]
    """What bounds the frame: system, frame_cycles, frame_us, prims_per_sec, anomaly per row (None with renderers_only)."""
    gp_util: Optional[list[float]]
    ring_util: Optional[list[float]]
    renderer_util: Optional[list[float]]
    bound: Optional[str]
    """"GPs", "Ring", "Renderers" or "none" (None with renderers_only)."""
    verdict: Optional[str]
    sensitivity: Optional[list[list[float]]]
    igc_timeout: dict[str, Any]
    hardware_errors: list[tuple[int, int]]
    """(Renderer, error bits) of each Renderer that set error bits (the CLI exits 4)."""
    picture: npt.NDArray[np.uint8]
    """The frame, uint8[height, width, 3] RGB."""
    notes: list[str]
    """The lines about the files written, as the CLI prints them on standard error."""
    def report(self, format: Literal["table", "json", "csv"] = "table") -> str:
        """The report as `pp5 render --report FORMAT` prints it."""
    def as_dict(self) -> dict[str, Any]:
        """The JSON report as a new dict."""

def render(
    scene: Union[str, os.PathLike, None] = None,
    *,
    obj: Union[str, os.PathLike, None] = None,
    screen: Union[str, tuple[int, int], None] = None,
    renderers: Optional[int] = None,
    policy: Optional[Literal["round-robin", "next-free"]] = None,
    gps: Optional[int] = None,
    gp_mops: Optional[float] = None,
    ring_channels: Optional[int] = None,
    renderers_only: bool = False,
    eye: Optional[Vec3] = None,
    target: Optional[Vec3] = None,
    up: Optional[Vec3] = None,
    fov: Optional[float] = None,
    light: Optional[Vec3] = None,
    ambient: Optional[float] = None,
    specular: Optional[float] = None,
    shininess: Optional[int] = None,
    output: Union[str, os.PathLike, None] = None,
    save_streams: Union[str, os.PathLike, None] = None,
    wave: Union[str, os.PathLike, None] = None,
    region: Union[str, tuple[int, int], None] = None,
    system_wave: Union[str, os.PathLike, None] = None,
    timeline: Union[str, os.PathLike, None] = None,
    coverage: Union[str, os.PathLike, None] = None,
    threads: Optional[int] = None,
) -> RenderResult:
    """The timing study of `pp5 render` (same options and defaults: None is the CLI's
    default); the GIL is released while it runs. docs/sweeps.md."""

Grid = Union[dict[str, Any], Sequence[dict[str, Any]]]
"""A dict whose list values are axes (their cartesian product), or a list of points."""

def sweep(
    grid: Grid,
    client: Any = None,
    *,
    kind: Literal["render", "run"] = "render",
    out: Union[str, os.PathLike, None] = None,
    threads_per_point: Optional[int] = 1,
    workers: Optional[int] = None,
    retries: int = 2,
    progress: bool = True,
) -> Any:
    """A sweep of `render` studies (or board runs) on Dask: a pandas.DataFrame, a row per
    point (its options, figures, error, seconds, cpu_seconds). `pp5.sweep` is also the module
    pp5.sweep (`python -m pp5.sweep spec.toml`). docs/sweeps.md."""

def sweep_runs(grid: Grid, client: Any = None, **kwargs: Any) -> Any:
    """`sweep(grid, client, kind="run")`: microcode sources x streams on pp5.Board."""
