"""A semaphore deadlock raised as `pp5.Deadlock`, with the CLI's text, caught, and resolved."""

import subprocess

import pytest

import pp5

STREAM = "SETENABS\nPIGC\nINDON\n"


def cli_stop_text(pp5_cli, path, *args):
    """The `stopped:` text of `pp5 run`: its first line and the indented lines after it."""
    r = subprocess.run([str(pp5_cli), "run", str(path), *args], capture_output=True, text=True)
    assert r.returncode == 6, (r.returncode, r.stdout, r.stderr)  # 6: deadlock
    lines = r.stdout.splitlines()
    assert lines[0].startswith("stopped: ")
    text = [lines[0][len("stopped: ") :]]
    for line in lines[1:]:
        if not line.startswith("  "):
            break
        text.append(line)
    return "\n".join(text)


def test_pigc_without_a_v_is_a_deadlock(board):
    with pytest.raises(pp5.Deadlock) as e:
        board.run(STREAM)
    err = e.value
    assert isinstance(err, pp5.SimulationError) and isinstance(err, RuntimeError)
    assert str(err).startswith("deadlock: no block can make progress since cycle ")
    [(block, waits_for, since)] = err.waits
    assert block == "igc"
    assert waits_for.startswith("the IGC semaphore to be non-zero (PIGC; no BS_VIGC")
    assert err.since >= since
    out = err.outcome
    assert out.stop == "deadlock" and out.stop_text == str(err)
    assert [c.name for c in out.commands] == ["SETENABS", "PIGC"]
    assert out.commands[1].causes["semaphore_wait"] > 0
    assert any(d.msg.startswith("deadlock: igc waits for") for d in out.diagnostics)
    # The board is still there, waiting: a BS_VIGC on the BS port releases the PIGC.
    assert board.signal("renderer.igc.state") == "WAIT_SEM"
    out = board.run("message bs\nBS_VIGC\n")
    assert out.stop == "done" and [c.name for c in out.commands] == ["INDON"]
    # While the PIGC waited, the IGC timeout (64K 20 MHz cycles) fired: a sticky error bit.
    assert out.error_bits == ["30: IGC timeout"]
    assert board.status().indicator


def test_the_deadlock_text_is_the_clis(pp5_cli, tmp_path):
    path = tmp_path / "pigc.pp5s"
    path.write_text(STREAM)
    # Without a boot both start at cycle 0, so even the cycle numbers agree.
    board = pp5.Board(no_boot=True)
    with pytest.raises(pp5.Deadlock) as e:
        board.run(path)
    assert str(e.value) == cli_stop_text(pp5_cli, path, "--no-boot")


def test_hang_is_stuck(board):
    with pytest.raises(pp5.Stuck, match=r"^IGC stuck: the IGC executed HANG") as e:
        board.run("HANG\n")
    assert e.value.outcome.stop == "stuck"


def test_a_stuck_board_raises_at_once_on_the_next_run(board):
    """Issue 27 item 8: after Stuck the next run raises at once, not after the IGC timeout
    (131,082 cycles), and a smaller max_cycles does not turn it into stop="max_cycles"."""
    with pytest.raises(pp5.Stuck):
        board.run("HANG\n")
    for limit in (100_000_000, 1_000):
        before = board.cycle
        with pytest.raises(pp5.Stuck, match=r"executed HANG") as e:
            board.run("NOOP\n", max_cycles=limit)
        assert e.value.outcome.stop == "stuck"
        assert board.cycle - before < 100
    with pytest.raises(pp5.Stuck):
        board.run_until(cycle=board.cycle + 10_000)
    # A Ring reset brings it back.
    out = board.run("reset\n")
    assert out.stop == "done"


SPIN = ".command SPIN() -> spin\nspin: jump spin\n"


def test_a_microcode_self_loop_raises_at_once_on_the_next_run():
    """Issue 27 item 8: microcode that loops on one microinstruction (`spin: jump spin`)
    raises pp5.Stuck, and every later run raises it again at once, with new input or not,
    whatever its max_cycles (the new input once made it wait out the IGC timeout, 131,082
    cycles, or return stop="max_cycles" first)."""
    board = pp5.Board([pp5.microcode_source("standard"), SPIN])
    with pytest.raises(pp5.Stuck, match=r"loops on microinstruction spin") as e:
        board.run("SPIN\n")
    assert e.value.outcome.stop == "stuck"
    for stream, limit in ((None, 100_000_000), ("SETENABS\n", 1_000), ("SETENABS\n", None)):
        before = board.cycle
        again = r"spin \(PC 0x[0-9a-f]{3}\), a jump to itself, .*only a Ring reset"
        with pytest.raises(pp5.Stuck, match=again) as e:
            board.run(stream, max_cycles=limit)
        assert e.value.outcome.stop == "stuck"
        assert board.cycle - before < 100
    with pytest.raises(pp5.Stuck):
        board.run_until(cycle=board.cycle + 10_000)
    # A Ring reset ends the loop; the SETENABS queued behind it are dropped with the FIFO.
    out = board.run("reset\nSETENABS\n")
    assert out.stop == "done"
