#!/usr/bin/env bash
# The worked timing study of docs/rendering.md: triangles per second of a simulated
# Pixel-Planes 5 system against triangle size and against the number of Renderers, on fields of
# random small triangles (`pp5 render --scene random`), 1280x1024.
#
#   scripts/render-study.sh [TRIANGLES]      # default 20000 triangles per frame
#
# Prints a Markdown table: for each triangle size, the mean primitive area in pixels, and the
# frame time and drawn primitives per second for 1, 4 and 16 Renderers (round robin).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
pp5=${PP5:-target/release/pp5}
[ -x "$pp5" ] || cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| size | mean area (px) | N=1: frame ms, prims/s | N=4 | N=16 |\n|---|---|---|---|---|\n'
for size in 0.01 0.02 0.04 0.08; do
  row="| $size |"
  area=""
  for r in 1 4 16; do
    "$pp5" render --scene "random:n=$n,size=$size" --renderers "$r" --report json \
      -o "$dir/f.png" >"$dir/s.json" 2>/dev/null
    read -r a cell < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
area, us, pps = s["gp"]["mean_prim_area"], s["frame_us"], s["prims_per_sec"]
print("%.0f" % area, "%.1f ms, %.2f M" % (us / 1000, pps / 1e6))
' "$dir/s.json")
    area=$a
    row="$row $cell |"
  done
  echo "$row" | sed "s/^| $size |/| $size | $area |/"
done
