"""One stream run three ways, Python, the Rust API (`Testbench`, through the tb_run example)
and the CLI (`pp5 run --report json --dump-mem`), with the same cycles and memory.

With a boot, Python and the Rust testbench boot to idle before the stream, while `pp5 run`
puts the stream on the Ring right behind the boot's messages, so its stream starts a few
cycles earlier: the commands' cycles, the memory and the status agree, the start cycles
differ by one constant. The BS port has a Ring input of its own, so `pp5 run` delivers a
stream's BS messages during the boot: streams for both ports are compared without a boot
(`no_boot=True`, `--no-boot`), where every cycle agrees."""

import json
import subprocess

import numpy as np
import pytest

import pp5
from conftest import FIXTURES

IGC_STREAMS = ["add.pp5s", "flush.pp5s"]
STREAMS = IGC_STREAMS + ["double_buffer.pp5s", "bs_sector.pp5s"]


def run_cli(pp5_cli, path, tmp_path, *args):
    mem = tmp_path / "cli.mem"
    r = subprocess.run(
        [str(pp5_cli), "run", str(path), "--report", "json", "--dump-mem", str(mem), *args],
        capture_output=True,
        text=True,
    )
    assert r.returncode in (0, 4), (r.returncode, r.stderr)
    report = json.loads(r.stdout)
    return report, np.fromfile(mem, np.uint8).reshape(128, 128, 26)


def run_rust(tb_run, path, tmp_path, *args):
    mem = tmp_path / "tb.mem"
    r = subprocess.run([str(tb_run), *args, str(path), str(mem)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), np.fromfile(mem, np.uint8).reshape(128, 128, 26)


def py_commands(out):
    return [(c.name, c.start, c.cycles) for c in out.commands]


@pytest.mark.parametrize("name", IGC_STREAMS)
def test_python_rust_and_cli_agree(name, pp5_cli, tb_run, tmp_path):
    path = FIXTURES / name
    board = pp5.Board()
    start = board.cycle
    out = board.run(path)
    mem = board.memory()

    rust, rust_mem = run_rust(tb_run, path, tmp_path)
    assert rust["stop"] == "Done" and out.stop == "done"
    assert rust["boot_cycles"] == start
    assert rust["cycles"] == out.cycles
    assert rust["end_cycle"] == board.cycle
    assert rust["status"] == int(board.status())
    assert [(c["name"], c["start"], c["cycles"]) for c in rust["commands"]] == py_commands(out)
    assert np.array_equal(rust_mem, mem)

    cli, cli_mem = run_cli(pp5_cli, path, tmp_path)
    assert cli["stop"] == "Done"
    assert cli["boot_cycles"] == board.boot_cycles
    assert np.array_equal(cli_mem, mem)
    assert cli["status"] == int(board.status())
    assert cli["error_bits"] == out.error_bits
    cmds = [(c["name"], c["cycles"]) for c in cli["commands"]]
    assert cmds == [(c.name, c.cycles) for c in out.commands]
    shifts = {c.start - k["start"] for c, k in zip(out.commands, cli["commands"])}
    assert len(shifts) == 1, f"one constant offset, got {shifts}"
    # The offset is the overlap of the CLI's stream with the end of its boot: small.
    assert 0 <= shifts.pop() <= 8


@pytest.mark.parametrize("name", STREAMS)
def test_without_a_boot_every_cycle_agrees(name, pp5_cli, tb_run, tmp_path):
    path = FIXTURES / name
    board = pp5.Board(no_boot=True)
    out = board.run(path)
    cli, cli_mem = run_cli(pp5_cli, path, tmp_path, "--no-boot")
    rust, rust_mem = run_rust(tb_run, path, tmp_path, "--no-boot")
    assert cli["cycles"] == out.cycles == rust["cycles"] == board.cycle
    assert cli["boot_cycles"] is None and board.boot_cycles is None
    want = py_commands(out)
    assert [(c["name"], c["start"], c["cycles"]) for c in cli["commands"]] == want
    assert [(c["name"], c["start"], c["cycles"]) for c in rust["commands"]] == want
    assert np.array_equal(cli_mem, board.memory())
    assert np.array_equal(rust_mem, board.memory())
    bs = [(c.name, c.start, c.cycles) for c in out.bs_commands]
    assert [(c["name"], c["start"], c["cycles"]) for c in cli["bs_commands"]] == bs
    assert [d.msg for d in out.diagnostics] == [d["msg"] for d in cli["diagnostics"]]
