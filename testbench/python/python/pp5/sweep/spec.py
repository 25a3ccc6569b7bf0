"""A sweep described in a TOML file, for ``python -m pp5.sweep SPEC.toml`` (docs/sweeps.md):

.. code-block:: toml

    kind = "render"               # or "run" (board runs: microcode x streams)
    out = "frame-time.csv"        # .csv or .parquet; relative to the current folder
    scheduler = "tcp://head:8786" # optional: a running Dask scheduler (default: this machine)
    workers = 2                   # optional: worker processes of the local cluster
    threads_per_point = 1         # optional (default 1; 0: every core)
    retries = 2                   # optional

    [grid]                        # lists are axes, anything else is the same in every point
    scene = ["spheres", "terrain"]
    gps = [4, 8, 16, 32]
    ring_channels = [1, 2, 4, 8]
    screen = "640x512"

or, instead of ``[grid]``, the points one by one: ``[[points]]`` tables.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
from typing import Optional, Sequence

KEYS = {"kind", "out", "scheduler", "workers", "threads_per_point", "retries", "grid", "points"}


def load(path) -> dict:
    """The spec in the TOML file ``path``, checked."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    with open(path, "rb") as f:
        spec = tomllib.load(f)
    unknown = set(spec) - KEYS
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(unknown))} (keys: {', '.join(sorted(KEYS))})")
    if ("grid" in spec) == ("points" in spec):
        raise ValueError(f"{path}: give [grid] or [[points]], one of them")
    return spec


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pp5.sweep",
        description="Run a parameter sweep of pp5 render studies (or board runs) described in "
        "a TOML file on Dask, and write its table (docs/sweeps.md).",
    )
    parser.add_argument("spec", help="the sweep's TOML file")
    parser.add_argument("--out", help="the table (.csv or .parquet; default: the spec's out)")
    parser.add_argument("--scheduler", help="a Dask scheduler's address (default: the spec's, else a local cluster)")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
    a = parser.parse_args(argv)
    try:
        spec = load(a.spec)
    except (OSError, ValueError) as e:
        print(f"pp5.sweep: {e}", file=sys.stderr)
        return 2
    out = a.out or spec.get("out")
    if out is None:
        print(f"pp5.sweep: {a.spec}: no out file (give out = \"FILE.csv\" or --out)", file=sys.stderr)
        return 2
    threads = spec.get("threads_per_point", 1)
    from . import sweep

    try:
        df = sweep(
            spec.get("grid", spec.get("points")),
            a.scheduler or spec.get("scheduler"),
            kind=spec.get("kind", "render"),
            out=out,
            threads_per_point=None if threads == 0 else threads,
            workers=spec.get("workers"),
            retries=spec.get("retries", 2),
            progress=not a.quiet,
        )
    except (OSError, ValueError, TypeError, ImportError) as e:
        print(f"pp5.sweep: {e}", file=sys.stderr)
        return 2
    failed = int(df["error"].notna().sum())
    print(f"{os.fspath(out)}: {len(df)} points, {failed} failed")
    return 1 if failed else 0
