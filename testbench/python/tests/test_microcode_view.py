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
    # Stopped before the third execution (gdb's convention): two bits written.
    assert board.peek(0, 0, 10, 5) == 0b00011
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


# Breakpoints as gdb has them (issue 37): before the microinstruction runs, conditions,
# watchpoints, several at once, next and finish, and the stop report.

CALLS = """\
.command TWICE(dst:addr) -> twice
twice:   i=0
         CALL tw_sub
         CALL tw_sub
         dispatch
tw_sub:  r=1 w=mem[dst+i] i++
         RETURN
"""


def test_a_breakpoint_stops_before_its_microinstruction_with_a_stop_report(board):
    board.queue("SETENABS\nFIVE 10\n")
    out = board.run_until("five_l", hits=3)
    r = out.stop_report
    # The IGC is at five_l, its third execution not run: two bits written; the waveform's
    # PC, where() and the report's cycle agree.
    assert board.peek(0, 0, 10, 5) == 0b00011
    assert r["cycle"] == board.cycle == out.end_cycle
    assert board.signal("renderer.igc.pc") == r["next"]["pc"] == board.where()["pc"]
    assert r["next"]["at"] == "FIVE+1" and r["next"]["src"].endswith("mine.pp5uc:3"), r
    assert r["next"]["text"].startswith("five_l:")
    assert (r["igc"]["l"], r["igc"]["i"], r["igc"]["state"]) == (3, 2, "RUN"), r
    assert r["igc"]["command"] == "FIVE" and r["igc"]["opr"][0] == 10
    assert [f["kind"] for f in r["backtrace"]] == ["next", "command"], r
    assert r["spec"] == "five_l#3" and "about to execute five_l" in r["reason"]
    # The "after" form: after the next execution.
    out = board.run_until("five_l", after=True)
    assert board.peek(0, 0, 10, 5) == 0b00111
    assert "executed five_l" in out.stop_text
    assert board.run().stop == "done" and board.peek(0, 0, 10, 5) == 0b11111


def test_conditional_breakpoints_and_watchpoints(board):
    board.queue("SETENABS\nFIVE 10\nFIVE 20\n")
    out = board.run_until("five_l", condition="renderer.igc.l == 2")
    assert board.peek(0, 0, 10, 5) == 0b00111 and out.stop_report["igc"]["l"] == 2
    # A register: the second FIVE loads l = 5.
    out = board.run_until(signal="renderer.igc.l", value=5)
    r = out.stop_report
    assert r["igc"]["l"] == 5 and r["next"]["at"] == "FIVE+1", r
    # A condition's watch reports its truth: 0, then 1.
    assert (r["watch"]["signal"], r["watch"]["new"]) == ("renderer.igc.l == 5", 1), r
    out = board.run_until(signal="renderer.igc.l")
    w = out.stop_report["watch"]
    assert (w["signal"], w["old"], w["new"]) == ("renderer.igc.l", 5, 4), w
    # A pixel's memory bit changing.
    out = board.run_until(signal="renderer.pixel_0_0.mem[22]")
    w = out.stop_report["watch"]
    assert (w["old"], w["new"]) == (0, 1) and board.peek(0, 0, 20, 5) == 0b00111, w
    # A text signal, and a condition as the signal.
    out = board.run_until(signal="renderer.igc.state", value="WAIT_CMD")
    assert board.where()["state"] == "WAIT_CMD" and board.peek(0, 0, 20, 5) == 0b11111
    with pytest.raises(ValueError, match="did you mean `renderer.igc.l`"):
        board.run_until(signal="renderer.igc.ll")
    with pytest.raises(ValueError):
        board.run_until("five_l", cycle=3)


def test_several_breakpoints_kept_across_runs(board):
    board.queue("SETENABS\nFIVE 10\n")
    b = board.add_breakpoint("five_l#2")
    w = board.add_watchpoint("renderer.igc.l == 1")
    out = board.run_until()
    assert out.stop_report["breakpoint"] == 0 and board.peek(0, 0, 10, 5) == 0b00001
    # From its second time on it stops every time.
    board.run_until()
    assert board.peek(0, 0, 10, 5) == 0b00011
    assert [x["hits"] for x in board.breakpoints()] == [3, 0]
    board.delete_breakpoint(b)
    out = board.run_until()
    assert out.stop_report["watch"]["signal"] == "renderer.igc.l == 1"
    assert board.peek(0, 0, 10, 5) == 0b01111
    assert [x["id"] for x in board.breakpoints()] == [w]
    board.delete_breakpoint()
    assert board.breakpoints() == [] and board.run().stop == "done"


def test_next_steps_over_a_loop_and_a_call_and_finish_returns(tmp_path):
    mine = tmp_path / "calls.pp5uc"
    mine.write_text(MINE + CALLS)
    sources = [pp5.microcode_source(k) for k in ("standard", "flow")]
    board = pp5.Board(sources + [str(mine)])
    board.queue("SETENABS\nFIVE 10\nTWICE 20\n")
    board.run_until("five_l")
    # Over the rest of the bit loop: at the dispatch, all five bits written.
    r = board.next()
    assert r["next"]["at"] == "FIVE+2" and board.peek(0, 0, 10, 5) == 0b11111, r
    # Into the next command, then over a CALL.
    assert board.next()["next"]["at"] == "TWICE+0"
    assert board.next()["next"]["at"] == "TWICE+1"
    r = board.next()
    assert r["next"]["at"] == "TWICE+2" and board.peek(0, 0, 20, 2) == 0b01, r
    # Into the subroutine: the backtrace names the CALL; finish returns after it.
    r = board.run_until("tw_sub").stop_report
    assert [f["kind"] for f in r["backtrace"]] == ["next", "call", "command"], r
    assert r["backtrace"][1]["at"] == "TWICE+2"
    r = board.finish()
    assert r["next"]["at"] == "TWICE+3" and board.peek(0, 0, 20, 2) == 0b11, r
    # finish in a command's routine: until it dispatches.
    r = board.finish()
    assert r["igc"]["state"] == "WAIT_CMD", r
    assert board.next() is None
