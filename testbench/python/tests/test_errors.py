"""Bad input from Python raises a clear exception; nothing panics across the FFI boundary or
takes the interpreter down."""

import os
import signal
import subprocess
import time

import numpy as np
import pytest

import pp5


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda b: b.run(42), TypeError, "stream: expected text"),
        (lambda b: b.run("FROB 1 2"), pp5.StreamError, r"^<stream>:1: "),
        (lambda b: b.run("SETENABS\nCLEAR 0 100000"), pp5.StreamError, r"^<stream>:2: "),
        (lambda b: b.run("CLEAR 300 8"), pp5.StreamError, r"^<stream>:1: "),
        (lambda b: b.run("CLEAR 200 16"), pp5.StreamError, "208"),
        (lambda b: b.run("word 1 2", name="mine.pp5s"), None, None),
        (lambda b: b.run(b"PP5R\x02\x00\x00\x00\x00\x00\x00\x00"), pp5.StreamError, "<stream>"),
        (
            lambda b: b.run(pp5.stream("message bs sent=data dest=0x40\nword 1 2\n")),
            pp5.StreamError,
            r"message 0 is one a board sent \(`sent=data`",
        ),
        (lambda b: b.queue("message igc sent=status\nword 1 2"), pp5.StreamError, r"^<stream>:1: "),
        (lambda b: b.run("INC 0 0 8", max_cycles=-1), OverflowError, None),
        (lambda b: b.step(-1), OverflowError, None),
        (lambda b: b.field(200, 16), ValueError, r"mem\[200:16\] is not inside"),
        (lambda b: b.field(-1, 8), ValueError, "not inside"),
        (lambda b: b.field(0, 0), ValueError, "field length 0"),
        (lambda b: b.field(0, 64), ValueError, "signed=True"),
        (lambda b: b.field(0, 10**30), OverflowError, None),
        (lambda b: b.field(2**63 - 1, 8), ValueError, "not inside"),
        (lambda b: b.set_field(2**63 - 1, 8, 0), ValueError, "not inside"),
        (lambda b: b.peek(0, 0, 2**63 - 4, 8), ValueError, "not inside"),
        (lambda b: b.peek(128, 0, 0, 8), ValueError, r"pixel \(128, 0\) is outside"),
        (lambda b: b.poke(0, -1, 0, 8, 1), ValueError, "outside the array"),
        (lambda b: b.poke(0, 0, 0, 8, 256), ValueError, "does not fit a 8-bit field"),
        (lambda b: b.set_field(0, 8, 256), ValueError, "does not fit"),
        (lambda b: b.set_field(0, 8, np.zeros((3, 3), int)), ValueError, "does not broadcast"),
        (lambda b: b.set_field(0, 8, np.zeros((128, 128))), TypeError, "dtype float64"),
        (lambda b: b.set_field(0, 8, "abc"), TypeError, "dtype"),
        (lambda b: b.set_enable(np.zeros((128, 128), int)), TypeError, "expected bool"),
        (lambda b: b.set_memory(np.full((128, 128, 26), 300)), ValueError, "0..=255"),
        (lambda b: b.set_memory(np.zeros((128, 128), np.uint8)), ValueError, "does not broadcast"),
        (lambda b: b.signal(5), TypeError, None),
        (lambda b: b.signal("renderer.nothing"), KeyError, "no signal named"),
        (lambda b: b.signals("renderer.nothing"), ValueError, "no signal has"),
        (lambda b: b.status()[32], ValueError, "bits 0..=31"),
        (lambda b: b.trace("x.txt"), ValueError, r"\.vcd or \.fst"),
        (lambda b: b.trace("x.vcd", scopes=["renderer.nope"]), ValueError, "the scopes are"),
        (lambda b: b.trace("x.vcd", emcs=[64]), ValueError, "EMC 64"),
        (lambda b: b.trace("x.vcd", window=(10, 5)), ValueError, "before the first"),
        (lambda b: b.image.encode("NOPE", []), ValueError, "not a macro"),
        (lambda b: b.image.encode("CLEAR", [0, 500]), ValueError, None),
    ],
)
def test_bad_input_raises(board, call, exc, match):
    if exc is None:  # a stream that parses: a raw message is fine input, here just a check
        call(board)
        return
    with pytest.raises(exc, match=match):
        call(board)
    # The board is unharmed.
    assert board.run("SETENABS\nINC 8 0 8").ok


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"microcode": 123}, TypeError, "microcode: expected"),
        ({"microcode": "no/such/file.pp5uc"}, OSError, "no/such/file.pp5uc"),
        ({"microcode": "bogus line\n"}, pp5.AsmError, r"^<microcode>:1: "),
        ({"microcode": []}, ValueError, "empty"),
        ({"probes": [(200, 0)]}, ValueError, "outside the array"),
        ({"probes": [(1, 2, 3)]}, ValueError, "length 2"),
        ({"no_boot": "yes"}, TypeError, None),
    ],
)
def test_bad_board_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        pp5.Board(**kwargs)


def test_stream_helpers():
    data = pp5.stream("SETENABS\nCLEAR 0 8\n")
    assert data[:4] == b"PP5R"
    assert "CLEAR 0 8" in pp5.disassemble(data)
    with pytest.raises(pp5.StreamError) as e:
        pp5.stream("SETENABS\nCLEAR 0 8 9\n", name="x.pp5s")
    assert str(e.value).startswith("x.pp5s:2: ")
    assert (e.value.file, e.value.line) == ("x.pp5s", 2)
    # A binary file that claims an absurd message length is refused, not allocated.
    absurd = b"PP5R" + (1).to_bytes(4, "little") + (0).to_bytes(4, "little") + (2**31).to_bytes(4, "little")
    with pytest.raises(pp5.StreamError, match="<stream>"):
        pp5.disassemble(absurd)
    with pytest.raises(TypeError):
        pp5.stream(3.5)


def test_a_message_over_the_limit_needs_oversize(board):
    words = " ".join(["0"] * 1100)
    with pytest.raises(pp5.StreamError, match="1024"):
        board.run(f"message\nword {words}\n")


def test_random_garbage_never_crashes(board, rng):
    vocab = ["CLEAR", "SETENABS", "word", "message", "flush", "bs", "at=", "0x", "-1",
             "99999999999", "INC", "1", "8", "TREEIntoMEM_L3", "1.5e40", "nan", "reset", "#", "\\"]
    for k in range(200):
        if k % 2:
            data = b"PP5R" + rng.integers(0, 256, int(rng.integers(0, 64)), dtype=np.uint8).tobytes()
        else:
            lines = [" ".join(rng.choice(vocab, int(rng.integers(1, 6)))) for _ in range(4)]
            data = "\n".join(lines)
        try:
            board.run(data, max_cycles=20_000)
        except (pp5.StreamError, pp5.SimulationError):
            pass
    for k in range(50):
        src = "\n".join(" ".join(rng.choice(["clear:", "r=1", "w=mem[dst+i]", "loopd", ".command",
                                             "X(a:addr)", "->", "i++", "l=dlen", "q"], 4))
                        for _ in range(3))
        with pytest.raises(pp5.AsmError):
            pp5.assemble(src + "\n")


@pytest.mark.parametrize("microcode", [os.devnull, "; nothing\n"])
def test_an_empty_microcode_boot_stops_at_its_cycle_limit(microcode):
    """Issue 27 item 8: microcode that never dispatches: the boot stops at its cycle limit
    as `pp5 run` does (exit 5), with SimulationError."""
    with pytest.raises(pp5.SimulationError, match="boot did not finish: .*cycle limit"):
        pp5.Board(microcode, max_cycles=200_000)


def test_ctrl_c_stops_an_endless_boot():
    # A real SIGINT from another process, as Ctrl-C sends it: the C-level handler needs no
    # thread of ours to get the GIL (a timer thread calling `interrupt_main` can wait for it
    # a long time on a loaded machine while the boot runs). Python's own handler, whatever
    # the test runs under: a process started in the background without job control inherits
    # SIGINT ignored.
    # A boot that does not stop at Ctrl-C is ended after 60 s (the suite fails, rather than
    # hang).
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    pid = os.getpid()
    kill = subprocess.Popen(["sh", "-c", f"sleep 0.5; kill -INT {pid}; sleep 60; kill {pid}"])
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            pp5.Board("; nothing\n", max_cycles=None)
    finally:
        kill.kill()
        kill.wait()
        signal.signal(signal.SIGINT, old)
    assert time.monotonic() - t0 < 30


def test_a_field_value_too_large_says_what_poke_says(board):
    """Issue 27 item 8: one message for one fault, whatever the size of the int."""
    for big in (2**70, 2**200, -(2**70), 300):
        with pytest.raises(ValueError, match=rf"value {big} does not fit a 8-bit field"):
            board.set_field(0, 8, big)
        if abs(big) < 2**100:
            with pytest.raises(ValueError, match=rf"value {big} does not fit a 8-bit field"):
                board.poke(0, 0, 0, 8, big)


def test_control_characters_in_messages_are_escaped(board):
    with pytest.raises(pp5.StreamError) as e:
        board.run("CL\0EAR 0 8\n")
    assert "\0" not in str(e.value) and "\\u{0}" in str(e.value)
    with pytest.raises(pp5.AsmError) as e:
        pp5.Board("idle: dispatch\nbo\x1bgus\n")
    assert "\x1b" not in str(e.value) and "\\u{1b}" in str(e.value)
