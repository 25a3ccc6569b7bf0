#!/usr/bin/env bash
# The test command (README "Run the tests"; .ci/run runs it): the Rust tests, then the `pp5`
# Python module built into a virtual environment (.venv, made if absent; nothing is installed
# outside it) and its pytest suite (testbench/python/tests). Both build with the `ci`
# profile into target/ci: optimised, without release's LTO (Cargo.toml says why).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --profile ci

venv="${PP5_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# dask[distributed] and pandas: pp5.sweep (the module's `sweep` extra) and its tests; pyarrow:
# the sweep's Parquet output (the extra `parquet`); dask-jobqueue: the Slurm recipe, tested
# through a stand-in sbatch.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9.4,<2" pytest numpy \
  "dask[distributed]" pandas pyarrow dask-jobqueue
# maturin builds the cdylib with the same profile into target/ (the rlibs the tests just
# built are reused) and installs it into the venv.
VIRTUAL_ENV="$(cd "$venv" && pwd)" "$venv/bin/maturin" develop --profile ci --quiet \
  -m testbench/python/Cargo.toml
# The suite's `pp5` binary and tb_run example: the ones the tests just built.
PP5_PROFILE=ci "$venv/bin/python" -m pytest testbench/python/tests
