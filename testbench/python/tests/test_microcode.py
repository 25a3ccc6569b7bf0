"""Microcode loaded through the stream decides what a command does and how long it takes:
an altered CLEAR writes ones and takes one more cycle."""

import numpy as np
import pytest

import pp5

STD_CLEAR = """\
clear:        i=0 l=dlen
clear_l:      r=0 w=mem[dst+i] i++ loopd clear_l
"""

ONES_CLEAR = """\
clear:        i=0 l=dlen
              next                           ; one extra cycle
clear_l:      r=1 w=mem[dst+i] i++ loopd clear_l
"""

STREAM = "SETENABS\nSCAIntoMEM_S1 0 16 1234\nCLEAR 0 8\n"


def altered_source() -> str:
    std = pp5.microcode_source("standard")
    assert STD_CLEAR in std, "the standard CLEAR changed"
    return std.replace(STD_CLEAR, ONES_CLEAR)


def test_standard_clear():
    board = pp5.Board()
    out = board.run(STREAM)
    assert (board.field(0, 16) == 1234 & 0xFF00).all()
    assert out.command_cycles[-1] == ("CLEAR", 1 + 8)


@pytest.mark.parametrize("form", ["text", "image", "path", "list"])
def test_altered_clear_writes_ones_in_one_more_cycle(form, tmp_path):
    src = altered_source()
    if form == "text":
        microcode = src
    elif form == "image":
        microcode = pp5.assemble(src, "ones_clear.pp5uc")
    elif form == "path":
        microcode = tmp_path / "ones_clear.pp5uc"
        microcode.write_text(src)
    else:  # several sources assembled together, as a repeated `pp5 run --microcode`
        path = tmp_path / "ones_clear.pp5uc"
        path.write_text(src)
        microcode = [path, pp5.microcode_source("flow")]
    board = pp5.Board(microcode)
    out = board.run(STREAM)
    assert out.ok, out
    assert (board.field(0, 16) == (1234 & 0xFF00) | 0xFF).all()
    assert out.command_cycles[-1] == ("CLEAR", 1 + 8 + 1)
    # The boot loaded the altered image through the stream: one MCWRITE per store word.
    assert board.boot_cycles is not None and board.boot_cycles > len(board.image.words)
    assert ("GCDSTEPS" in board.image) == (form == "list")


def test_image_round_trip_and_opcode_table(tmp_path):
    img = pp5.assemble(altered_source())
    path = tmp_path / "ones.json"
    img.save(path)
    again = pp5.Image.load(path)
    assert again.words == img.words
    clear = again.command("CLEAR")
    assert clear.args == [("dst", "addr"), ("dlen", "len")]
    assert again.command("SCAIntoMEM_S1").forms == ["SCAIntoMEM_S0", "SCAIntoMEM_S1", "SCAIntoMEM_TBL"]
    assert "CLEAR" in again.opcode_table()
    assert "I_CLEAR" in again.c_header()
    board = pp5.Board(str(path))  # a str without a newline is a path
    board.run(STREAM)
    assert (board.field(0, 8) == 0xFF).all()


def test_no_boot_writes_the_store_directly():
    board = pp5.Board(altered_source(), no_boot=True)
    assert board.boot_cycles is None and board.cycle == 0
    out = board.run(STREAM)
    assert out.command_cycles[-1] == ("CLEAR", 10)
    assert (board.field(0, 8) == 0xFF).all()


def test_an_illegal_field_is_an_assembler_error_with_file_and_line(tmp_path):
    bad = altered_source().replace("r=1 w=mem[dst+i]", "r=1 w=mem[dst+i] frob=3")
    line = 1 + bad[: bad.index("frob=3")].count("\n")
    path = tmp_path / "bad.pp5uc"
    path.write_text(bad)
    with pytest.raises(pp5.AsmError) as e:
        pp5.Board(path)
    assert f"{path}:{line}:" in str(e.value)
    assert e.value.errors[0][:2] == (str(path), line)
    assert isinstance(e.value, ValueError)
    with pytest.raises(pp5.AsmError, match=r"^<microcode>:\d+: "):
        pp5.assemble(bad)


def test_the_default_image_is_what_pp5_run_boots():
    img = pp5.Image.default()
    assert "GCDSTEPS" in img and "MEMplusMEM" in img
    assert np.array_equal(pp5.Board().memory(), np.zeros((128, 128, 26), np.uint8))
