"""The microcode author's view from Python (issue 28): breakpoints by label and by cycle,
single steps through the microcode, where the IGC is, and the profile and coverage of a
user's own microcode file."""

import json
import os

import pytest

import pp5

MINE = """\
.command FIVE(dst:addr) -> five
five:    i=0 l=#5
five_l:  r=1 w=mem[dst+i] i++ loop five_l
         dispatch
"""


@pytest.fixture
def board(tmp_path):
    mine = tmp_path / "mine.pp5uc"
    mine.write_text(MINE)
    sources = [pp5.microcode_source(k) for k in ("standard", "flow")]
    return pp5.Board(sources + [str(mine)])


def test_run_until_a_label_stops_at_its_nth_execution(board):
    board.queue("SETENABS\nFIVE 10\n")
    out = board.run_until("five_l", hits=3)
    assert out.stop == "breakpoint", out.stop_text
    assert "3rd time" in out.stop_text
    assert board.peek(0, 0, 10, 5) == 0b00111
    w = board.where()
    assert w["at"] == "FIVE+1" and w["src"].endswith("mine.pp5uc:3"), w
    assert w["text"].startswith("five_l:")
    # The run goes on from there.
    out = board.run()
    assert out.stop == "done" and board.peek(0, 0, 10, 5) == 0b11111


def test_run_until_a_cycle_and_single_steps(board):
    start = board.cycle
    board.queue("SETENABS\nFIVE 10\n")
    out = board.run_until(cycle=start + 3)
    assert out.stop == "breakpoint" and board.cycle == start + 3
    seen = []
    for _ in range(12):
        seen.append(board.step_microinstruction()["at"])
    # where() names the microinstruction at the PC, the next to run: FIVE+0 never shows
    # there, since the IGC waits at SETENABS's dispatch until FIVE arrives and then runs
    # FIVE+0 in the dispatching step; the loop at FIVE+1 runs five times.
    assert seen[0] == "SETENABS+0" and seen.count("FIVE+1") == 5, seen
    assert "FIVE+2" in seen, seen


def test_unknown_labels_are_value_errors_naming_the_nearest(board):
    with pytest.raises(ValueError, match="five_l"):
        board.run_until("five_ll")
    with pytest.raises(ValueError):
        board.run_until()
    with pytest.raises(ValueError):
        board.run_until("five_l", cycle=10)


def test_profile_and_coverage(board, tmp_path):
    assert board.profile() is None
    board.enable_profile()
    start = board.cycle
    board.run("SETENABS\nFIVE 10\n")
    p = board.profile()
    assert p["cycles"] == board.cycle - start
    assert sum(r["cycles"] for r in p["routines"]) == p["cycles"]
    body = next(r for r in p["lines"] if r["name"].endswith("mine.pp5uc:3"))
    assert body["cycles"] == 5 and body["causes"]["executing"] == 5
    info = tmp_path / "five.info"
    board.coverage(info, test="five")
    text = info.read_text()
    assert "DA:3,5\n" in text and "BRDA:3,0,0,4\n" in text and "TN:five\n" in text


def test_coverage_names_files_genhtml_can_read(tmp_path):
    """Issue 37 item 8: text sources were `SF:<microcode 0>`, which genhtml cannot open; a
    shipped file's text is named by that file, any other text is written beside the
    tracefile."""
    own = "five2:   i=0 l=#5\n         dispatch\n.command FIVE2() -> five2\n"
    board = pp5.Board([pp5.microcode_source(k) for k in ("standard", "qee", "flow")] + [own])
    board.enable_profile()
    board.run("SETENABS\nFIVE2\n")
    info = tmp_path / "c.info"
    board.coverage(info)
    sf = [l[3:] for l in info.read_text().splitlines() if l.startswith("SF:")]
    assert len(sf) == 4, sf
    for f in sf:
        assert os.path.isfile(f), f
    assert any(f.endswith("sim/microcode/standard.pp5uc") for f in sf), sf
    mine = tmp_path / "c.microcode-3.pp5uc"
    assert str(mine) in sf or os.path.realpath(mine) in sf, sf
    assert mine.read_text() == own


def test_an_image_without_sources_has_no_coverage(tmp_path):
    board = pp5.Board(pp5.assemble(pp5.microcode_source("standard")))
    board.enable_profile()
    board.run("SETENABS\n")
    assert board.profile()["cycles"] > 0
    with pytest.raises(ValueError, match="no sources"):
        board.coverage(tmp_path / "x.info")
    assert json.dumps(board.where())
