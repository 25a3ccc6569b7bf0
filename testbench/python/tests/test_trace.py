"""Board.trace writes a VCD or FST of what follows, with a .gtkw beside it, as `pp5 run
--vcd/--fst` does; the names in it are the names `Board.signal` takes."""

import re

import pytest

import pp5


def vcd_vars(text):
    """Full names of the VCD's variables (scopes joined by dots)."""
    scope, names = [], set()
    for line in text.splitlines():
        tok = line.split()
        if tok[:2] == ["$scope", "module"]:
            scope.append(tok[2])
        elif tok[:1] == ["$upscope"]:
            scope.pop()
        elif tok[:1] == ["$var"]:
            names.add(".".join(scope + [re.sub(r"\[.*\]$", "", tok[4])]))
    return names


def test_vcd_and_gtkw_of_what_follows(board, tmp_path):
    path = tmp_path / "run.vcd"
    start = board.cycle
    with board.trace(path, scopes=["renderer.igc", "renderer.pixel_0_0"]) as t:
        assert t.gtkwave_command == f"gtkwave {path} {path.with_suffix('.gtkw')}"
        board.run("SETENABS\nINC 8 0 8\n")
    text = path.read_text()
    names = vcd_vars(text)
    assert "renderer.igc.pc" in names and "renderer.igc_port.parser.state" not in names
    # Probe pixels: the defaults (0,0) and (1,0) were added when the trace started.
    assert any(n.startswith("renderer.pixel_0_0.") for n in names)
    assert board.signal("renderer.pixel_1_0.enable") == 1
    gtkw = path.with_suffix(".gtkw").read_text()
    assert "renderer.igc.pc" in gtkw and str(path.name) in gtkw
    # The executed microinstruction's routine and source line, beside its address.
    rows = [l for l in gtkw.splitlines() if l.startswith("renderer.igc.")]
    at = rows.index("renderer.igc.uinst.at")
    assert rows[at - 1].startswith("renderer.igc.upc") and rows[at + 1] == "renderer.igc.uinst.src"
    assert re.search(r"^sINC\+\d+ ", text, re.M)
    assert re.search(r"^sstandard\.pp5uc:\d+ ", text, re.M)
    where = board.where()
    assert board.signal("renderer.igc.uinst.at") == where["at"]
    assert board.signal("renderer.igc.uinst.src") == where["src"]
    # The signals the trace declares are the ones Board.signal reads.
    igc = board.signals("renderer.igc")
    assert {n for n in names if n.startswith("renderer.igc.")} <= set(igc)
    # Time is hardware time: the file starts where the trace started (after the boot).
    first = int(re.search(r"^#(\d+)", text, re.M).group(1))
    assert first == start * int(pp5.CYCLE_NS * 1000)
    assert board.close_trace() is None


def test_fst_with_probes_and_window(tmp_path):
    board = pp5.Board(probes=[(3, 4)])
    assert board.signal("renderer.pixel_3_4.enable") == 0
    start = board.cycle
    t = board.trace(tmp_path / "w.fst", window=(start + 5, start + 30), emcs=[0, 5], view=50)
    board.run("SETENABS\nINC 8 0 8\n")
    wave, gtkw = t.close()
    assert wave.endswith("w.fst") and gtkw.endswith("w.gtkw")
    assert (tmp_path / "w.fst").stat().st_size > 0
    assert "renderer.emc[5].qee" in (tmp_path / "w.gtkw").read_text()
    assert board.signal("renderer.pixel_3_4.enable") == 1


def test_one_trace_at_a_time(board, tmp_path):
    board.trace(tmp_path / "a.vcd")
    with pytest.raises(ValueError, match="is open"):
        board.trace(tmp_path / "b.vcd")
    board.step(10)
    assert board.close_trace()[0].endswith("a.vcd")
    # Dropping a board with an open trace still closes it with its .gtkw.
    other = pp5.Board()
    other.trace(tmp_path / "c.vcd")
    other.step(3)
    del other
    assert (tmp_path / "c.gtkw").exists()
