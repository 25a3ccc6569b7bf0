"""The benchmark (bench.py) run once: it prints cycles per second through Python against the
CLI on the same ~1 M-cycle stream. Not a timed test: nothing here fails on speed."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import bench  # noqa: E402


def test_benchmark_prints_python_against_the_cli(pp5_cli, capsys):
    with capsys.disabled():
        print()
        figures = bench.measure(pp5_cli, reps=5000, runs=3)
    assert figures["cycles"] > 900_000
