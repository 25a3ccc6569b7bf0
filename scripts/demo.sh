#!/usr/bin/env bash
# Run the built-in demo and open it in GTKWave if it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-pp5-demo.vcd}"
cargo run --release -- demo --wave "$out"
if command -v gtkwave >/dev/null 2>&1 && [ -n "${DISPLAY:-}" ]; then
  gtkwave "$out" "${out%.*}.gtkw" &
fi
