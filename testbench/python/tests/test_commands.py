"""The standard microcode, command by command, against NumPy over all 16,384 pixels."""

import numpy as np

import pp5


def test_arithmetic_matches_numpy(board, rng):
    a = rng.integers(0, 256, (128, 128))
    b = rng.integers(0, 256, (128, 128))
    board.set_field(0, 8, a)
    board.set_field(8, 8, b)
    out = board.run(
        """
        SETENABS
        MEMplusMEM 16 0 8 8 8
        MEMminusMEM 24 0 8 8 8
        MEMxorMEM 32 0 8 8
        INVERT 40 0 8
        NEGATE 48 0 8
        INC 56 8 8
        """
    )
    assert out.ok, out
    assert np.array_equal(board.field(16, 8), (a + b) & 0xFF)
    assert np.array_equal(board.field(24, 8), (a - b) & 0xFF)
    assert np.array_equal(board.field(32, 8), a ^ b)
    assert np.array_equal(board.field(40, 8), ~a & 0xFF)
    assert np.array_equal(board.field(48, 8), -a & 0xFF)
    assert np.array_equal(board.field(56, 8), (b + 1) & 0xFF)
    # The sources are untouched, and the signed view is the two's complement one.
    assert np.array_equal(board.field(0, 8), a)
    assert np.array_equal(board.field(24, 8, signed=True), ((a - b + 128) & 0xFF) - 128)
    # Cycles come from the microcode: 1 + dlen for each of these (docs/commands.md).
    assert out.command_cycles == [
        ("SETENABS", 1),
        ("MEMplusMEM", 9),
        ("MEMminusMEM", 9),
        ("MEMxorMEM", 9),
        ("INVERT", 9),
        ("NEGATE", 9),
        ("INC", 9),
    ]


def test_writes_are_conditioned_by_enable(board, rng):
    a = rng.integers(0, 1 << 12, (128, 128))
    mask = rng.random((128, 128)) < 0.5
    board.set_field(0, 12, a)
    board.set_field(100, 12, 7)
    board.set_enable(mask)
    assert board.status().aeo is False
    board.run("INC 100 0 12")
    assert np.array_equal(board.field(100, 12), np.where(mask, (a + 1) & 0xFFF, 7))
    assert np.array_equal(board.enable(), mask)


def test_compares_into_enable(board, rng):
    a = rng.integers(0, 1 << 10, (128, 128))
    b = rng.integers(0, 1 << 10, (128, 128))
    board.set_field(0, 10, a)
    board.set_field(10, 10, b)
    board.run("SETENABS\nMEMgeMEM 0 10 10")
    assert np.array_equal(board.enable(), a >= b)
    board.run("SETENABS\nMEMgtSCA_S1 0 10 500")
    assert np.array_equal(board.enable(), a > 500)
    board.run("SETENABS\nMEMeqSCA_S1 0 10 0x155\nENABIntoMEM 200")
    assert np.array_equal(board.field(200, 1).astype(bool), a == 0x155)
    # AEO (status bits 0-3 clear) exactly when no pixel is enabled.
    assert board.status().aeo == (not (a == 0x155).any())


def test_scalar_and_lookup_table_writes(board):
    board.run("SETENABS\nCLEAR 0 64\nSCAIntoMEM_S1 0 16 -2\nSCAIntoMEM_S1 16 32 123456789")
    assert (board.field(0, 16) == 0xFFFE).all()
    assert (board.field(0, 16, signed=True) == -2).all()
    assert (board.field(16, 32) == 123456789).all()


def test_qee_linear_expression(board, xy):
    x, y = xy
    out = board.run(
        """
        FBITS 0
        SETENABS
        TREEIntoMEM_L3 0 16 3 -2 5
        """
    )
    assert out.ok, out
    assert np.array_equal(board.field(0, 16, signed=True), 3 * x - 2 * y + 5)
    # Fractional coefficients at FBITS 10: the result is truncated downward (floor).
    board.run("FBITS 10\nTREEIntoMEM_L3 16 16 -0.5 0.25 0.0")
    assert np.array_equal(board.field(16, 16, signed=True), np.floor(-0.5 * x + 0.25 * y))
    # A half-plane into Enable: enable &&= (x - y >= 0).
    board.run("FBITS 0\nSETENABS\nTREEgeZERO_L3 1 -1 0")
    assert np.array_equal(board.enable(), x >= y)


def test_peek_and_poke_agree_with_the_arrays(board):
    board.poke(3, 4, 0, 8, 200)
    board.run("SETENABS\nINC 8 0 8")
    assert board.peek(3, 4, 8, 8) == 201
    assert board.field(8, 8)[4, 3] == 201  # [y, x]
    assert board.memory()[4, 3, 1] == 201  # byte 1 = bits 8..15
    mem = board.memory()
    mem[:, :, 25] = 0xA5
    board.set_memory(mem)
    assert (board.field(200, 8) == 0xA5).all()
    assert pp5.MEM_BITS == 208 and board.memory().shape == (128, 128, 26)
