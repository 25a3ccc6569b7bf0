#!/usr/bin/env bash
# The design-point study of docs/rendering.md ("The paper's design point on the whole system"):
# fields of random triangles (`pp5 render --scene random:n=N,size=S`, 1280x1024, round robin,
# 32 GPs at 16 M operations/s, 8 Ring channels: the defaults) for a grid of triangle counts N,
# sizes S and numbers of Renderers R, each scene timed twice: on the whole system (`--report
# json`: the GPs, the Ring, the Renderers and the frame buffer, with the study of what bounds
# the frame) and on the Renderers alone (`--renderers-only`).
#
#   scripts/render-study.sh            # the default grid: N 20000 100000 x S 0.01 0.02 0.04, R 16
#   scripts/render-study.sh --full     # N 20000 100000 200000 x S 0.01 0.02 0.04 0.08
#   scripts/render-study.sh --counts "20000" --sizes "0.01 0.02 0.04 0.08" --renderers "1 4 16"
#
# Options: --counts LIST, --sizes LIST, --renderers LIST (space-separated), --full, -j JOBS (runs
# at once, default 2), -o FILE.csv (default target/render-study/study.csv; the JSON of every run
# is kept beside it, in runs/), --alone-only (the Renderers alone, no whole-system study),
# --no-run (the CSV and the table from the JSON a previous run of the same grid left). PP5=path uses
# that binary; otherwise target/release/pp5, built (`cargo build --release --bin pp5`) when it is
# missing or older than the sources.
#
# Writes a CSV, one row per scene and system (`whole` or `alone`): scene, N, size, renderers,
# system, frame_us, prims_per_sec (drawn), scene_triangles_per_sec, prims (drawn), mean_prim_area,
# bound, gp_util, ring_util, renderer_util (means over the units; whole system only), gp_mops_1m
# (the GP rate, M operations/s per GP, at which the whole system would draw 1 M primitives/s in
# one frame: interpolated in the study's frame-against-GP-rate table, `system.sensitivity`, 4-64;
# "~" extrapolated beyond 64 on frame = a + b/rate) and the verdict; and prints a Markdown table.
# Cost: a whole-system study of 100,000 triangles simulates up to eight frames, a few minutes of
# CPU; the Renderers alone 15-30 s. The default grid took 9 minutes on a 2-core machine shared
# with a build; --full several times that.
set -euo pipefail
cd "$(dirname "$0")/.."

counts="20000 100000"
sizes="0.01 0.02 0.04"
renderers="16"
jobs=2
out=target/render-study/study.csv
alone_only=0
no_run=0
while [ $# -gt 0 ]; do
  case "$1" in
    --full) counts="20000 100000 200000"; sizes="0.01 0.02 0.04 0.08" ;;
    --counts) counts="$2"; shift ;;
    --sizes) sizes="$2"; shift ;;
    --renderers) renderers="$2"; shift ;;
    -j) jobs="$2"; shift ;;
    -o) out="$2"; shift ;;
    --alone-only) alone_only=1 ;;
    --no-run) no_run=1 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "render-study.sh: unknown argument $1 (--help lists the options)" >&2; exit 2 ;;
  esac
  shift
done

if [ -n "${PP5:-}" ]; then
  pp5=$PP5
else
  pp5=target/release/pp5
  if [ ! -x "$pp5" ] || [ -n "$(find derive rtl sim Cargo.toml Cargo.lock -newer "$pp5" \
      \( -name '*.rs' -o -name '*.toml' -o -name '*.lock' -o -name '*.pp5uc' \) -print -quit)" ]; then
    cargo build --release --quiet --bin pp5
  fi
fi
[ -x "$pp5" ] || { echo "render-study.sh: no pp5 binary at $pp5" >&2; exit 1; }

dir=$(dirname "$out")/runs
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per run: N size renderers system. The largest scenes first, so that two long runs
# do not end the grid alone.
for n in $counts; do for s in $sizes; do for r in $renderers; do
  [ "$alone_only" = 1 ] || echo "$n $s $r whole"
  echo "$n $s $r alone"
done; done; done | sort -k1,1nr -k4,4r >"$tmp/grid"

run_one() {
  local n=$1 s=$2 r=$3 sys=$4 extra=()
  [ "$sys" = alone ] && extra=(--renderers-only)
  local base="$dir/random-n$n-s$s-r$r-$sys"
  local t0=$SECONDS
  "$pp5" render --scene "random:n=$n,size=$s" --renderers "$r" --report json \
    "${extra[@]}" -o "$base.png" >"$base.json" 2>"$base.err" || {
    echo "render-study.sh: run failed (exit $?): N=$n size=$s R=$r $sys, see $base.err" >&2
    return 1
  }
  rm -f "$base.png"
  echo "  N=$n size=$s R=$r $sys: $((SECONDS - t0)) s" >&2
}
export -f run_one
export pp5 dir
if [ "$no_run" = 0 ]; then
  echo "render-study.sh: $(wc -l <"$tmp/grid") runs, $jobs at a time, with $pp5" >&2
  xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$tmp/grid"
fi

python3 - "$dir" "$out" "$counts" "$sizes" "$renderers" "$alone_only" <<'EOF'
import csv, json, sys
d, out, counts, sizes, renderers, alone_only = sys.argv[1:]
counts, sizes, renderers = counts.split(), sizes.split(), renderers.split()
systems = ["alone"] if alone_only == "1" else ["whole", "alone"]

def mean(xs):
    return sum(xs) / len(xs) if xs else None

def rate_for(sens, n, target=1e6):
    # The GP rate (M ops/s) at which the frame draws n primitives in n/target seconds: linear
    # interpolation in frame time against 1/rate between the study's rates; beyond the fastest
    # rate, extrapolated on frame = a + b/rate through the two fastest (marked "~"); None if
    # even infinitely fast GPs would not do (a >= the frame wanted) or the slowest rate does.
    want = n / target * 40e6  # cycles
    pts = sorted(sens)
    for (r0, c0), (r1, c1) in zip(pts, pts[1:]):
        if (c0 - want) * (c1 - want) <= 0 and c0 != c1:
            x0, x1 = 1 / r0, 1 / r1
            x = x0 + (want - c0) * (x1 - x0) / (c1 - c0)
            return "%.1f" % (1 / x)
    (r0, c0), (r1, c1) = pts[-2], pts[-1]
    if want < c1:
        b = (c0 - c1) / (1 / r0 - 1 / r1)
        a = c1 - b / r1
        if want > a and b > 0:
            return "~%.0f" % (b / (want - a))
    return None

rows = []
for n in counts:
    for s in sizes:
        for r in renderers:
            for sysname in systems:
                j = json.load(open(f"{d}/random-n{n}-s{s}-r{r}-{sysname}.json"))
                y = j.get("system")
                row = {
                    "scene": j["scene"], "N": n, "size": s, "renderers": r, "system": sysname,
                    "frame_us": round(j["frame_us"], 1),
                    "prims_per_sec": round(j["prims_per_sec"]),
                    "scene_triangles_per_sec": round(j["scene_triangles_per_sec"]),
                    "prims": j["gp"]["prims"],
                    "mean_prim_area": round(j["gp"]["mean_prim_area"], 1),
                    "bound": "", "gp_util": "", "ring_util": "", "renderer_util": "",
                    "gp_mops_1m": "", "verdict": "",
                }
                if y:
                    g = rate_for(y["sensitivity"], j["gp"]["prims"])
                    row.update(
                        bound=y["bound"],
                        gp_util=round(mean(y["gp_util"]), 3),
                        ring_util=round(mean(y["ring_util"]), 3),
                        renderer_util=round(mean(y["renderer_util"]), 3),
                        gp_mops_1m="" if g is None else g,
                        verdict=y["verdict"],
                    )
                rows.append(row)
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)

def pct(x):
    return "" if x == "" else "%.0f%%" % (100 * x)

print("| N | size | mean area (px) | R | whole system: frame, drawn/s, scene triangles/s "
      "| bound; GPs, Ring, Renderers (mean utilisation) | GP rate for 1 M/s "
      "| Renderers alone: frame, drawn/s |")
print("|---|---|---|---|---|---|---|---|")
by = {(x["N"], x["size"], x["renderers"], x["system"]): x for x in rows}
for n in counts:
    for s in sizes:
        for r in renderers:
            a = by[(n, s, r, "alone")]
            wh = by.get((n, s, r, "whole"))
            alone = "%.1f ms, %.2f M" % (a["frame_us"] / 1000, a["prims_per_sec"] / 1e6)
            if wh:
                whole = "%.1f ms, %.2f M, %.2f M" % (
                    wh["frame_us"] / 1000, wh["prims_per_sec"] / 1e6,
                    wh["scene_triangles_per_sec"] / 1e6)
                util = "%s; %s, %s, %s" % (wh["bound"], pct(wh["gp_util"]),
                                           pct(wh["ring_util"]), pct(wh["renderer_util"]))
                g = ("%s M ops/s" % wh["gp_mops_1m"] if wh["gp_mops_1m"] != ""
                     else "not reached" if wh["frame_us"] > wh["prims"]
                     else "below the table's rates")
            else:
                whole = util = g = "-"
            print(f"| {int(n):,} | {s} | {a['mean_prim_area']:.0f} | {r} | {whole} | {util} "
                  f"| {g} | {alone} |")
print(f"\n(CSV: {out}; each run's JSON in {d})", file=sys.stderr)
EOF
