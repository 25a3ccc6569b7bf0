"""The GIL is released while a board runs, and Ctrl-C (KeyboardInterrupt) stops a long run
cleanly, leaving the board consistent."""

import _thread
import threading
import time

import pytest

import pp5

# A stream whose one message arrives at cycle 10**12 (about 7 hours of hardware time): the
# board idles until then, which takes far longer than any test waits.
FOREVER = "message igc at=1000000000000\nINDON\n"


def test_another_thread_runs_python_while_a_board_runs():
    busy, other = pp5.Board(), pp5.Board()
    result = {}

    # Real work, not waiting: a board that only waits for a message passes those cycles at
    # once (docs/timing.md, "Still cycles"), too fast to overlap with anything. 200,000 INCs
    # are about 1.8 M cycles: a quarter of a second or more.
    work = "SETENABS\n" + "INC 8 0 8\n" * 200_000 + "INDON\n"

    def long_run():
        result["out"] = busy.run(work, max_cycles=None)

    worker = threading.Thread(target=long_run)
    worker.start()
    # While the worker's run holds the board, touching it from here fails at once: proof
    # that this thread runs Python code during the run (the GIL is free).
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            busy.cycle
        except RuntimeError as e:
            assert "borrow" in str(e)
            break
        time.sleep(0.001)
    else:
        pytest.fail("the run never overlapped with this thread")
    # A second board runs to the end meanwhile, on this thread.
    out = other.run("SETENABS\nINC 8 0 8\n")
    assert out.ok and worker.is_alive()
    worker.join()
    assert result["out"].ok and busy.status().indicator


def test_keyboard_interrupt_stops_a_long_run_cleanly():
    board = pp5.Board()
    start = board.cycle
    timer = threading.Timer(0.3, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            board.run(FOREVER, max_cycles=None)
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 5, "stopped within a few chunks of cycles"
    # The board stopped at a cycle boundary and works: its state reads, and runs continue.
    assert board.cycle > start + 100_000
    assert not board.done
    assert board.signal("renderer.igc.state") == "WAIT_CMD"
    out = board.run(max_cycles=1000)
    assert out.stop == "max_cycles" and out.cycles == 1000


def test_keyboard_interrupt_stops_stepping():
    board = pp5.Board()
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            board.step(10**15)
    finally:
        timer.cancel()
    assert board.cycle > 100_000
