"""The Stream Parser stepped cycle by cycle through a message that ends in the middle of a
command: status bit 29, the error message to Ring address 0, the diagnostic, and parsing
restarting with the next message."""

import pp5


def test_message_cut_short_after_its_opcode(board):
    board.run("SETENABS\nCLEAR 0 32")
    words = board.image.encode("SCAIntoMEM_S1", [0, 8], [0x77])
    assert len(words) == 3 and words[0] >> 31 == 1, "opcode (P bit set), P word, C word"
    # The first message holds the opcode alone; the second a whole command.
    board.queue(f"message\nword {words[0]:#x}\nmessage\nSCAIntoMEM_S1 16 8 42\n")
    states = []
    for _ in range(100):
        board.step()
        state = board.signal("renderer.igc_port.parser.state")
        if not states or states[-1] != state:
            states.append(state)
        if board.status().igc_format_error:
            break
    else:
        raise AssertionError(f"no formatting error in 100 cycles; parser states {states}")
    # It read the opcode, waited for the P word, and met the next message instead.
    assert states == ["OPCODE", "PWORD", "OPCODE"], states
    assert board.signal("renderer.igc_port.parser.opcode") == words[0]
    status = board.status()
    assert status[29] and status.errors == ["29: IGC formatting error"]
    [diag] = [d for d in board.diagnostics if d.level == "error"]
    assert diag.msg == (
        "IGC formatting error (status bit 29): message ended in the middle of a command "
        f"(opcode {words[0]:#010x}, parser in PWORD); the command was dropped"
    )
    # The rest of the run: the error message goes out, the partial command is dropped, the
    # next message is parsed from its beginning.
    out = board.run()
    assert out.ok is False and out.error_bits == ["29: IGC formatting error"]
    [err] = [m for m in board.sent if m.kind == "ERROR"]
    assert err.port == "igc" and err.words[0] == 0, "error messages go to Ring address 0"
    assert err.id & 0xFF == 0x05, "the board ID in the ID's low byte"
    assert err.status.igc_format_error
    assert out.command_cycles == [("SCAIntoMEM", 9)]
    assert (board.field(16, 8) == 42).all()
    assert (board.field(0, 8) == 0).all(), "the dropped SCAIntoMEM wrote nothing"


def test_a_flushable_message_is_dropped_while_aeo_is_asserted(board):
    board.run("CLRENABS")
    assert board.status().aeo
    out = board.run("message flush\nSETENABS\nmessage\nINDON\n")
    assert [c.name for c in out.commands] == ["INDON"]
    assert any("flush-able message" in d.msg for d in out.diagnostics)
    assert board.status().indicator and not board.enable().any()
