"""Parameter sweeps of render studies and board runs on Dask (docs/sweeps.md).

``pp5.sweep(grid)`` runs one ``pp5.render`` study per point of a grid of options, one Dask
task per point, on a ``distributed.LocalCluster`` of this machine (one worker process per
core) or wherever a client points (a scheduler address, a ``dask_jobqueue`` cluster), and
returns a ``pandas.DataFrame`` with a row per point: its options, its figures (``figures``)
and ``error`` (``None``, or why the point failed). ``pp5.sweep_runs(grid)`` is the same for
board runs (microcode sources x streams: ``run_figures``). ``python -m pp5.sweep spec.toml``
runs a sweep described in a file.

This module is callable: ``pp5.sweep(grid, ...)`` is ``pp5.sweep.sweep(grid, ...)``. Dask
and pandas (``pip install pp5[sweep]``) are imported when a sweep runs.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import sys
import time
import types
from typing import Any, Mapping, Optional, Sequence, Union

__all__ = ["sweep", "sweep_runs", "points", "figures", "run_figures", "run_point", "main"]

#: The kinds of point a sweep runs.
KINDS = ("render", "run")

#: Options of a board-run point (``kind="run"``).
RUN_OPTIONS = ("microcode", "stream", "max_cycles", "no_boot", "name")


def points(grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]) -> list[dict]:
    """The points of a grid: a dict whose ``list`` values are axes (their cartesian product,
    in order, the last axis varying fastest; any other value, a tuple included, is the same
    in every point), or a list of dicts (the points themselves)."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        axes = [grid[k] if isinstance(grid[k], list) else [grid[k]] for k in keys]
        for k, a in zip(keys, axes):
            if not a:
                raise ValueError(f"grid axis {k!r} is empty")
        return [dict(zip(keys, values)) for values in itertools.product(*axes)]
    if isinstance(grid, (str, bytes)) or not all(isinstance(p, Mapping) for p in grid):
        raise TypeError("a grid is a dict of lists or a list of dicts")
    return [dict(p) for p in grid]


#: The IGC timeout's status bit: a finding of the study, not a hardware error (as
#: ``RenderResult.hardware_errors`` counts them).
_TIMEOUT_BIT = 1 << 30


def figures(result) -> dict:
    """The figures of one study as a flat dict: a sweep's row without its options.
    ``result`` is a ``pp5.RenderResult`` or the JSON report as a dict (``as_dict()``, or
    ``pp5 render --report json`` read with ``json.load``). Utilisations are the mean and
    busiest unit's busy share of the frame; ``cycles_<system>`` the frame on each row of
    "what bounds the frame"."""
    d = result if isinstance(result, Mapping) else result.as_dict()
    gp = d["gp"]
    row = {
        "frame_cycles": d["frame_cycles"],
        "frame_us": d["frame_us"],
        "prims_per_sec": d["prims_per_sec"],
        "scene_triangles_per_sec": d["scene_triangles_per_sec"],
        "triangles": gp["triangles"],
        "prims": gp["prims"],
        "binned": gp["binned"],
        "mean_prim_area": gp["mean_prim_area"],
    }
    for stage, cycles in d["stage_cycles"].items():
        row[f"stage_{stage}"] = cycles
    row["region_cycles_max"] = d["region_cycles"]["max"]
    row["igc_timeout_renderers"] = len(d["igc_timeout"]["renderers"])
    row["hardware_errors"] = sum(
        1 for r in d["renderer_runs"] if r["error_bits"] & ~_TIMEOUT_BIT
    )
    system = d.get("system")
    names = {
        "full system": "full",
        "GPs unbounded": "gps_unbounded",
        "Ring unbounded": "ring_unbounded",
        "Renderers unbounded": "renderers_unbounded",
        "GPs and Ring unbounded (Renderers alone)": "renderers_alone",
    }
    for key in names.values():
        row[f"cycles_{key}"] = None
    for unit in ("gp", "ring", "renderer"):
        row[f"{unit}_util_mean"] = None
        row[f"{unit}_util_max"] = None
    row["bound"] = None
    row["verdict"] = None
    if system is not None:
        for r in system["rows"]:
            row[f"cycles_{names.get(r['system'], r['system'])}"] = r["frame_cycles"]
        for unit in ("gp", "ring", "renderer"):
            u = system[f"{unit}_util"]
            row[f"{unit}_util_mean"] = sum(u) / len(u) if u else None
            row[f"{unit}_util_max"] = max(u) if u else None
        row["bound"] = system["bound"]
        row["verdict"] = system["verdict"]
    return row


def run_figures(board, outcome) -> dict:
    """The figures of one board run (``pp5.Board``, its ``Outcome``) as a flat dict."""
    return {
        "boot_cycles": board.boot_cycles,
        "cycles": outcome.cycles,
        "stop": outcome.stop,
        "ok": outcome.ok,
        "commands": len(outcome.commands) + outcome.commands_not_kept,
        "command_cycles": sum(c for _, c in outcome.command_cycles),
        "waited": sum(c.waited for c in outcome.commands),
        "error_bits": ",".join(outcome.error_bits),
        "status": int(outcome.status),
        "diagnostics": len(outcome.diagnostics),
    }


def _path_or_text(v):
    """A stream or microcode option: a str without a newline naming an existing file is that
    file (a path), anything else is as given (text, bytes, a path, a list)."""
    if isinstance(v, str) and "\n" not in v and os.path.isfile(v):
        return pathlib.Path(v)
    if isinstance(v, list):
        return [_path_or_text(x) for x in v]
    return v


# glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_HEAP_TUNED = False


def _keep_heap() -> None:
    """Undo, in this process, what a Dask worker's environment does to the study's speed.

    A nanny starts its worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (Dask's
    ``distributed.nanny.pre-spawn-environ``, to hand freed memory back to the system). Setting
    it turns off glibc's sliding mmap threshold, so every allocation above 128 KiB (a
    Renderer's pixel memory, each simulated frame's boards) is a fresh ``mmap``, zeroed by
    the kernel page by page and unmapped when freed: a study ran about 20% slower in a worker
    than in a plain process (measured with ``testbench/python/sweep_bench.py``, docs/sweeps.md).
    Here the thresholds go back to where glibc's sliding threshold takes them (32 MiB, trimming
    above 64 MiB), so a worker keeps at most that much freed memory. A no-op where the C library
    has no ``mallopt`` (not glibc)."""
    global _HEAP_TUNED
    if _HEAP_TUNED:
        return
    _HEAP_TUNED = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):
        pass


def run_point(kind: str, point: Mapping[str, Any], threads: Optional[int] = None) -> dict:
    """Run one point and return its figures, or ``{"error": ...}`` if it failed (a bad option,
    a frame or run that stops): a sweep's task. ``threads`` is the study's simulation threads
    (``pp5.render(threads=)``) unless the point gives its own."""
    import pp5

    _keep_heap()

    started, cpu = time.perf_counter(), time.process_time()
    try:
        if kind == "render":
            opts = dict(point)
            if threads is not None:
                opts.setdefault("threads", threads)
            row = figures(pp5.render(**opts))
        elif kind == "run":
            unknown = set(point) - set(RUN_OPTIONS)
            if unknown:
                raise TypeError(
                    f"unknown option(s) of a board run: {', '.join(sorted(unknown))} "
                    f"(options: {', '.join(RUN_OPTIONS)})"
                )
            board_kw = {}
            if "max_cycles" in point:
                board_kw["max_cycles"] = point["max_cycles"]
            board = pp5.Board(
                _path_or_text(point.get("microcode")), no_boot=bool(point.get("no_boot")), **board_kw
            )
            run_kw = dict(board_kw)
            if "name" in point:
                run_kw["name"] = point["name"]
            if "stream" not in point:
                raise TypeError("a board run's point needs a stream")
            outcome = board.run(_path_or_text(point["stream"]), **run_kw)
            row = run_figures(board, outcome)
        else:
            raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
        row["error"] = None
    except Exception as e:  # noqa: BLE001  (a failed point is a row, not a lost sweep)
        row = {"error": f"{type(e).__name__}: {e}"}
        outcome = getattr(e, "outcome", None)
        if kind == "run" and outcome is not None:
            row.update({"cycles": outcome.cycles, "stop": outcome.stop, "ok": outcome.ok})
    row["seconds"] = time.perf_counter() - started
    row["cpu_seconds"] = time.process_time() - cpu
    return row


def _cell(v):
    """An option as a table cell: numbers, strings, booleans and None as they are; a screen
    (w, h) as "WxH", other sequences joined by commas, paths and the rest as text."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(x, int) for x in v):
        return f"{v[0]}x{v[1]}"
    if isinstance(v, (tuple, list)):
        return ",".join(str(_cell(x)) for x in v)
    return str(v)


class _Progress:
    """A counter on standard error: one line rewritten on a terminal, else a line per tenth
    of the points."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled = total, enabled
        self.done = self.failed = 0
        self.started = time.perf_counter()
        self.tty = enabled and sys.stderr.isatty()
        self.step = max(1, total // 10)

    def __call__(self, failed: bool):
        self.done += 1
        self.failed += failed
        if not self.enabled:
            return
        if self.tty or self.done % self.step == 0 or self.done == self.total:
            line = (
                f"pp5.sweep: {self.done}/{self.total} points, {self.failed} failed, "
                f"{time.perf_counter() - self.started:.1f} s"
            )
            end = "\n" if not self.tty or self.done == self.total else ""
            print(("\r" if self.tty else "") + line, end=end, file=sys.stderr, flush=True)


def _check_out(out):
    if out is None:
        return None
    out = pathlib.Path(out)
    if out.suffix not in (".csv", ".parquet"):
        raise ValueError(f"out={os.fspath(out)!r}: a .csv or .parquet file")
    if out.suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            try:
                import fastparquet  # noqa: F401
            except ImportError as e:
                raise ImportError("writing Parquet needs pyarrow or fastparquet") from e
    if not out.parent.is_dir():
        raise FileNotFoundError(f"out={os.fspath(out)!r}: no folder {os.fspath(out.parent)!r}")
    return out


def _client(client, workers, threads):
    """The client to run on, and what to close afterwards (what this call started)."""
    from distributed import Client, LocalCluster

    if client is None:
        env = {"RAYON_NUM_THREADS": str(threads)} if threads is not None else {}
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            env=env,
        )
        c = Client(cluster)
        return c, [c, cluster]
    if isinstance(client, Client):
        return client, []
    # A scheduler address, or a cluster object (LocalCluster, dask_jobqueue's SLURMCluster,
    # PBSCluster, ...).
    c = Client(client)
    return c, [c]


def sweep(
    grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]],
    client: Any = None,
    *,
    kind: str = "render",
    out: Union[str, os.PathLike, None] = None,
    threads_per_point: Optional[int] = 1,
    workers: Optional[int] = None,
    retries: int = 2,
    progress: bool = True,
):
    """Run every point of ``grid`` (``points``) as a Dask task and return a
    ``pandas.DataFrame``, a row per point in the grid's order: its options, its figures
    (``figures`` for ``kind="render"``, the options of ``pp5.render``; ``run_figures`` for
    ``kind="run"``, the options ``microcode``, ``stream``, ``max_cycles``, ``no_boot``),
    ``error`` (``None``, or the exception's type and text: a failed point is a row),
    ``seconds`` and ``cpu_seconds`` (the point's wall and CPU time on its worker: the worker
    process's CPU time over the point).

    ``client``: ``None`` starts a ``distributed.LocalCluster`` of ``workers`` processes (default:
    one per core) of one thread each, closed at the end; a scheduler address
    (``"tcp://host:8786"``), a ``distributed.Client``, or a cluster object (such as
    ``dask_jobqueue.SLURMCluster``) runs there. ``threads_per_point``: each study's
    simulation threads (1: one point per core; ``None``: every core of the worker's machine).
    A task whose worker dies is run again on another (Dask's rule); ``retries`` more times if
    it raises. ``out``: also write the table as ``.csv`` or ``.parquet``. Progress is counted
    on standard error unless ``progress=False``."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    if threads_per_point is not None and threads_per_point < 1:
        raise ValueError("threads_per_point: 1 or more, or None")
    pts = points(grid)
    out = _check_out(out)
    import pandas as pd
    from distributed import as_completed

    c, close = _client(client, workers, threads_per_point)
    try:
        token = f"{os.getpid()}-{time.time_ns()}"
        futures = {}
        for i, p in enumerate(pts):
            f = c.submit(
                run_point,
                kind,
                p,
                threads_per_point if kind == "render" else None,
                key=f"pp5-{kind}-{i}-{token}",
                retries=retries,
                pure=False,
            )
            futures[f] = i
        results: list[Optional[dict]] = [None] * len(pts)
        tick = _Progress(len(pts), progress)
        for f in as_completed(list(futures)):
            i = futures[f]
            try:
                row = f.result()
            except Exception as e:  # noqa: BLE001  (a task Dask gave up on: KilledWorker, ...)
                row = {"error": f"{type(e).__name__}: {e}"}
            results[i] = row
            tick(row.get("error") is not None)
    finally:
        for x in close:
            x.close()
    rows = []
    for p, r in zip(pts, results):
        row = {k: _cell(v) for k, v in p.items()}
        row.update(r or {})
        rows.append(row)
    df = pd.DataFrame(rows)
    # A figure that is an integer in every point that has it stays one (a failed point's
    # missing value is <NA>, not a float NaN).
    for col in df.columns:
        vals = [r[col] for r in rows if r.get(col) is not None]
        if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            df[col] = df[col].astype("Int64")
    last = [c for c in ("error", "seconds", "cpu_seconds") if c in df.columns]
    df = df[[col for col in df.columns if col not in last] + last]
    if out is not None:
        _write_table(df, out)
    return df


def _write_table(df, out: pathlib.Path) -> None:
    """Write ``df`` to ``out`` (.csv or .parquet) whole or not at all: under a temporary name
    beside it, renamed into place when complete, so a failed write (a full disk, an
    interrupt) leaves the file that was there, and no partial one."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if out.suffix == ".csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def sweep_runs(
    grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]], client: Any = None, **kwargs
):
    """``sweep(grid, client, kind="run", ...)``: board runs (``pp5.Board(microcode,
    no_boot=...)`` then ``board.run(stream, max_cycles)``), microcode sources x streams,
    a row per point with ``run_figures``. A str naming an existing file is that file."""
    return sweep(grid, client, kind="run", **kwargs)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m pp5.sweep SPEC.toml [--out FILE] [--scheduler ADDRESS]``."""
    from .spec import main as spec_main

    return spec_main(argv)


class _CallableModule(types.ModuleType):
    """``pp5.sweep`` is this module and ``pp5.sweep(grid, ...)`` runs ``sweep``."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
