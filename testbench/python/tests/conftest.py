"""Shared fixtures of the pp5 pytest suite: a booted board, a seeded random generator, and
the two other ways to run a stream (the `pp5` CLI and the Rust `Testbench`, through the
`tb_run` example), built by cargo if they are not there yet."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import pp5

REPO = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = REPO / "testbench" / "fixtures" / "streams"


def _target_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def _built(env: str, rel: str, cargo_args: list) -> pathlib.Path:
    """The path of a cargo-built executable: $env, or target/PROFILE/rel (PP5_PROFILE, default
    release; scripts/test.sh sets ci), built with that profile if absent."""
    if os.environ.get(env):
        return pathlib.Path(os.environ[env])
    profile = os.environ.get("PP5_PROFILE", "release")
    path = _target_dir() / profile / rel
    if not path.exists():
        cmd = ["cargo", "build", "--profile", profile, *cargo_args]
        subprocess.run(cmd, cwd=REPO, check=True)
    return path


@pytest.fixture(scope="session")
def pp5_cli() -> pathlib.Path:
    """The `pp5` binary (PP5_BIN, or target/PP5_PROFILE/pp5)."""
    return _built("PP5_BIN", "pp5", ["-p", "pp5-sim", "--bin", "pp5"])


@pytest.fixture(scope="session")
def tb_run() -> pathlib.Path:
    """The Rust-API runner testbench/examples/tb_run.rs (PP5_TB_RUN, or the built example)."""
    return _built("PP5_TB_RUN", "examples/tb_run", ["-p", "pp5-testbench", "--example", "tb_run"])


@pytest.fixture
def board() -> pp5.Board:
    """A board booted with the default microcode (standard + qee + flow), as `pp5 run`."""
    return pp5.Board()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20)


@pytest.fixture
def xy():
    """Pixel coordinate planes, indexed [y, x] like every array of the module."""
    y, x = np.mgrid[0:128, 0:128]
    return x, y
