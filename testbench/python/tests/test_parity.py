"""One stream run three ways, Python, the Rust API (`Testbench`, through the tb_run example)
and the CLI (`pp5 run --report json --dump-mem`), with the same cycles and memory.

All three boot the same way (`pp5_sim::session::prepare` and `boot`): the microcode through
the stream, the board run until idle, then the user's stream, on both Ring ports. So every
cycle agrees, with a boot and without one (`no_boot=True`, `--no-boot`)."""

import json
import subprocess

import numpy as np
import pytest

import pp5
from conftest import FIXTURES

STREAMS = ["add.pp5s", "flush.pp5s", "double_buffer.pp5s", "bs_sector.pp5s"]


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


def check_all_agree(board, out, cli, cli_mem, rust, rust_mem):
    """Every cycle, the memory, the status and the diagnostics of the three runs agree."""
    assert out.stop == "done" and rust["stop"] == "Done" and cli["stop"] == "Done"
    assert cli["boot_cycles"] == rust["boot_cycles"] == board.boot_cycles
    assert cli["cycles"] == rust["end_cycle"] == board.cycle
    assert cli["user_cycles"] == rust["cycles"] == out.cycles
    want = py_commands(out)
    assert [(c["name"], c["start"], c["cycles"]) for c in cli["commands"]] == want
    assert [(c["name"], c["start"], c["cycles"]) for c in rust["commands"]] == want
    bs = [(c.name, c.start, c.cycles) for c in out.bs_commands]
    assert [(c["name"], c["start"], c["cycles"]) for c in cli["bs_commands"]] == bs
    assert cli["status"] == rust["status"] == int(board.status())
    assert cli["error_bits"] == out.error_bits
    assert [d.msg for d in out.diagnostics] == [d["msg"] for d in cli["diagnostics"]]
    assert np.array_equal(cli_mem, board.memory())
    assert np.array_equal(rust_mem, board.memory())


@pytest.mark.parametrize("name", STREAMS)
def test_python_rust_and_cli_agree_on_every_cycle(name, pp5_cli, tb_run, tmp_path):
    path = FIXTURES / name
    board = pp5.Board()
    assert board.cycle == board.boot_cycles
    out = board.run(path)
    cli, cli_mem = run_cli(pp5_cli, path, tmp_path)
    rust, rust_mem = run_rust(tb_run, path, tmp_path)
    check_all_agree(board, out, cli, cli_mem, rust, rust_mem)
    # The stream starts once the boot is over.
    assert min(c.start for c in out.commands + out.bs_commands) >= board.boot_cycles


@pytest.mark.parametrize("name", STREAMS)
def test_without_a_boot_every_cycle_agrees(name, pp5_cli, tb_run, tmp_path):
    path = FIXTURES / name
    board = pp5.Board(no_boot=True)
    out = board.run(path)
    cli, cli_mem = run_cli(pp5_cli, path, tmp_path, "--no-boot")
    rust, rust_mem = run_rust(tb_run, path, tmp_path, "--no-boot")
    assert board.boot_cycles is None and cli["boot_cycles"] is None
    check_all_agree(board, out, cli, cli_mem, rust, rust_mem)
