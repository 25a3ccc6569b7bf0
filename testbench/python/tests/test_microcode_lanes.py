"""SIMD lane use from Python (issue 37): where() says how many PEs the next microinstruction
runs on, profile() gives each row's enabled PEs (min, mean, max) and the CALLs, annotate()
the annotated listing. The numbers are the CLI test's hand count
(sim/tests/cli_microcode_annotate.rs)."""

import pathlib

import numpy as np
import pytest

import pp5

HALF = (pathlib.Path(__file__).parents[2] / "fixtures" / "microcode" / "half.pp5uc").read_text()


@pytest.fixture
def board(tmp_path):
    half = tmp_path / "half.pp5uc"
    half.write_text(HALF)
    sources = [pp5.microcode_source(k) for k in ("standard", "flow")]
    b = pp5.Board(sources + [str(half)])
    x = np.broadcast_to(np.arange(128), (128, 128))
    b.set_field(0, 8, x)
    return b


def by_src(rows, key, line):
    return next(r for r in rows if r[key].endswith(f"half.pp5uc:{line}"))


def test_where_gives_the_enabled_pes(board):
    assert board.where()["lanes"] == 0
    board.run("SETENABS\n")
    assert board.where()["lanes"] == 128 * 128
    board.run("MEMintoENAB 0\n")
    assert board.where()["lanes"] == 128 * 64


def test_profile_and_annotate_give_lanes_and_calls(board):
    board.run("SETENABS\n")
    board.enable_profile()
    board.run("HALF 0 8\nMEMintoENAB 0\nHALF 0 9\n")
    assert (board.field(8, 2)[:, 1::2] == 0b11).all()
    assert (board.field(8, 2)[:, 0::2] == 0).all()
    p = board.profile()
    lanes = {
        line: by_src(p["lines"], "name", line)["lanes"] for line in range(2, 10)
    }
    assert lanes[2] == {"min": 8192, "mean": 12288.0, "max": 16384}  # IF
    assert lanes[5] == {"min": 0, "mean": 4096.0, "max": 8192}  # the ELSE part
    assert lanes[8] == {"min": 8192, "mean": 8192.0, "max": 8192}  # setone
    half = next(r for r in p["routines"] if r["name"] == "HALF")
    assert half["lanes"] == {"min": 0, "mean": 8192.0, "max": 16384}
    assert p["calls"] == [
        {"at": "HALF+1", "src": "half.pp5uc:3", "target": "setone", "count": 2}
    ]
    a = board.annotate()
    assert a["cycles"] == p["cycles"]
    call = by_src(a["uinsts"], "src", 3)
    assert call["call"] == {"target": "setone", "count": 2} and "branch" not in call
    iff = by_src(a["uinsts"], "src", 2)
    assert iff["executions"] == 2 and iff["branch"] == {"taken": 0, "not_taken": 2}
    assert by_src(a["uinsts"], "src", 8)["function"] == "setone"


def test_no_profile_no_annotation():
    assert pp5.Board().annotate() is None
