"""Simulated cycles per second through Python against the `pp5` CLI, on the same stream.

    python testbench/python/bench.py [--reps 5000] [--runs 5] [--pp5 target/release/pp5]

The stream is `pp5 bench`'s ALU-heavy one (`pp5 bench --save-streams DIR --reps N`: 5000
rounds are about 1 M cycles). Each run boots the default microcode and runs the stream, the
CLI as `pp5 run STREAM` (a whole process: start, assemble, boot, run, print the summary) and
Python as `pp5.Board()` + `board.run(stream)` in this process, alternating; the fastest of
`--runs` runs of each is reported, and Python's cost over the CLI. Not a test: the numbers
depend on the machine (tests/test_bench.py runs it once and prints them).
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

import pp5

REPO = pathlib.Path(__file__).resolve().parents[2]


def measure(pp5_cli: pathlib.Path, reps: int, runs: int, out=None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [str(pp5_cli), "bench", "--save-streams", tmp, "--reps", str(reps)],
            check=True,
            capture_output=True,
        )
        stream = pathlib.Path(tmp) / "alu.bin"
        data = stream.read_bytes()
        cli, py, py_run = [], [], []
        cycles = None
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run([str(pp5_cli), "run", str(stream)], check=True, stdout=subprocess.DEVNULL)
            cli.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            board = pp5.Board()
            t1 = time.perf_counter()
            outcome = board.run(data)
            t2 = time.perf_counter()
            assert outcome.ok, outcome
            py.append(t2 - t0)
            py_run.append(t2 - t1)
            cycles = board.cycle
    figures = {
        "cycles": cycles,
        "cli_s": min(cli),
        "python_s": min(py),
        "python_run_s": min(py_run),
    }
    figures["cli_cps"] = cycles / figures["cli_s"]
    figures["python_cps"] = cycles / figures["python_s"]
    figures["python_run_cps"] = outcome.cycles / figures["python_run_s"]
    figures["python_cost"] = figures["python_s"] / figures["cli_s"] - 1
    print(
        f"stream: pp5 bench's ALU stream, {reps} rounds: {cycles} cycles "
        f"(boot included; fastest of {runs} runs each)\n"
        f"  pp5 run (whole process)      {figures['cli_s']:.4f} s  {figures['cli_cps']:>14,.0f} cycles/s\n"
        f"  pp5.Board() + board.run()    {figures['python_s']:.4f} s  {figures['python_cps']:>14,.0f} cycles/s\n"
        f"  board.run() alone            {figures['python_run_s']:.4f} s  "
        f"{figures['python_run_cps']:>14,.0f} cycles/s\n"
        f"  Python's cost over the CLI: {100 * figures['python_cost']:+.1f}% of the CLI's time",
        file=out or sys.stdout,
    )
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pp5", type=pathlib.Path, default=REPO / "target" / "release" / "pp5")
    a = ap.parse_args()
    measure(a.pp5, a.reps, a.runs)


if __name__ == "__main__":
    main()
