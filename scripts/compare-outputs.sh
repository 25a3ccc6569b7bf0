#!/usr/bin/env bash
# Does a change alter anything a user sees? Builds `pp5` at two revisions and runs both on the
# same jobs, then diffs every output byte for byte: waveforms (VCD and FST) and their .gtkw,
# reports (text, JSON, CSV), images, memory dumps, messages sent, render outputs.
#
#   scripts/compare-outputs.sh [OLD [NEW]]
#
# OLD defaults to main's first parent (HEAD~1); NEW to the working tree (uncommitted changes
# included). A revision is built from a clean `git worktree` of it into
# target/compare/<sha>/ (the `ci` profile: optimised, no LTO, so a build takes a minute or
# two, not five); the working tree is built into target/compare/work/. Exit 0 when every output
# is identical, 1 with the list of differing files (and the first lines of each diff) when not;
# a VCD that differs only in the order of its lines within a timestamp is listed as such.
#
# The jobs: the demo (VCD and FST), every stream under testbench/fixtures/streams/ (VCD and FST,
# with --report table, json and csv, --tx-out, --dump-mem), the double-buffer example, one
# `pp5 render --wave` region (VCD) with its PNG and JSON report, and the R700 example
# (waves/examples/r700.pp5s, VCD and FST, four probes; and VCDs of it in a window late in the
# run and with --scope renderer.igc). Set PP5_COMPARE_KEEP=1 to keep the output directories
# (printed) for a closer look.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
old=${1:-HEAD~1}
new=${2:-}

build() { # REV-or-empty -> prints the path of its pp5 binary
  local rev=$1 dir src
  if [ -z "$rev" ]; then
    dir=$root/target/compare/work
    src=$root
  else
    local sha
    sha=$(git rev-parse --verify "$rev^{commit}")
    dir=$root/target/compare/$sha
    src=$dir/src
    if [ ! -d "$src" ]; then
      git worktree add --detach --force -q "$src" "$sha" >&2
    fi
  fi
  (cd "$src" && CARGO_TARGET_DIR="$dir/target" cargo build --profile ci --quiet --bin pp5 >&2)
  echo "$dir/target/ci/pp5"
}

old_bin=$(build "$old")
new_bin=$(build "$new")
out=$(mktemp -d)
if [ "${PP5_COMPARE_KEEP:-0}" = 1 ]; then
  echo "outputs kept in $out" >&2
else
  trap 'rm -rf "$out"' EXIT
fi

jobs() { # BIN DIR: run every job with BIN, writing into DIR (exit codes recorded too)
  local bin=$1 d=$2
  mkdir -p "$d"
  (
    cd "$d"
    run() { # NAME ARGS...: stdout, stderr and exit code of one job
      local name=$1
      shift
      set +e
      "$bin" "$@" >"$name.out" 2>"$name.err"
      echo $? >"$name.rc"
      set -e
    }
    run demo demo --wave demo.vcd
    run demo-fst demo --wave demo-fst.fst
    for s in "$root"/testbench/fixtures/streams/*.pp5s; do
      n=$(basename "$s" .pp5s)
      run "$n" run "$s" --vcd "$n.vcd" --tx-out "$n.tx" --dump-mem "$n.mem"
      run "$n-fst" run "$s" --fst "$n-fst.fst"
      run "$n-json" run "$s" --report json
      run "$n-csv" run "$s" --report csv
      run "$n-boot" run "$s" --trace-boot --vcd "$n-boot.vcd" --probe 3,5 --trace-emc 7
    done
    run render render --scene spheres --renderers 4 -o render.png --wave render.vcd \
      --region 4,3 --report json
    # The flow-control unit and the R700 stack: the R700 example with four probes (VCD, FST).
    local ex=$root/waves/examples m=$root/sim/microcode
    for f in vcd fst; do
      run "r700-$f" run "$ex/r700.pp5s" --microcode "$m/standard.pp5uc" \
        --microcode "$m/qee.pp5uc" --microcode "$ex/r700.pp5uc" --"$f" "r700-$f.$f" \
        --probe 0,0 --probe 1,0 --probe 2,0 --probe 6,0
    done
    # A window late in the run (the probes are sampled in it only), and a selection
    # without the probes.
    run r700-window run "$ex/r700.pp5s" --microcode "$m/standard.pp5uc" \
      --microcode "$m/qee.pp5uc" --microcode "$ex/r700.pp5uc" --vcd r700-window.vcd \
      --probe 0,0 --probe 1,0 --probe 2,0 --probe 6,0 --window 3000:4400
    run r700-igc run "$ex/r700.pp5s" --microcode "$m/standard.pp5uc" \
      --microcode "$m/qee.pp5uc" --microcode "$ex/r700.pp5uc" --vcd r700-igc.vcd \
      --scope renderer.igc
  )
}

jobs "$old_bin" "$out/old"
jobs "$new_bin" "$out/new"

# Lines that name the binary or the output directory, or time the run in wall-clock seconds,
# differ between any two runs; nothing else may.
normalise() {
  sed -e "s#$out/old#OUT#g; s#$out/new#OUT#g" \
    -e 's/[0-9.]\+ \?[mµ]\?s wall[^ ]*/WALL/g' "$1"
}

# Whether two VCDs hold the same lines between each pair of timestamps, in any order there (a
# reader sees the same waveform).
same_per_timestamp() {
  python3 - "$1" "$2" <<'PY'
import sys
def blocks(path):
    out, cur = [], []
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("#"):
            out.append(sorted(cur))
            cur = [line]
        else:
            cur.append(line)
    out.append(sorted(cur))
    return out
sys.exit(0 if blocks(sys.argv[1]) == blocks(sys.argv[2]) else 1)
PY
}

status=0
diffs=0
while IFS= read -r f; do
  a=$out/old/$f
  b=$out/new/$f
  if [ ! -e "$b" ]; then
    echo "only in OLD: $f"
    status=1
    continue
  fi
  if ! cmp -s "$a" "$b"; then
    case $f in
      *.out | *.err)
        if diff -q <(normalise "$a") <(normalise "$b") >/dev/null; then continue; fi
        ;;
    esac
    case $f in
      *.vcd)
        if same_per_timestamp "$a" "$b"; then
          echo "differs: $f (only in the order of lines within a timestamp: the same waveform)"
          diffs=$((diffs + 1))
          status=1
          continue
        fi
        ;;
    esac
    echo "differs: $f"
    if [ $diffs -lt 5 ] && file -b "$a" | grep -q text; then
      diff <(normalise "$a") <(normalise "$b") | head -20 || true
    fi
    diffs=$((diffs + 1))
    status=1
  fi
done < <(cd "$out/old" && find . -type f | sort)
while IFS= read -r f; do
  [ -e "$out/old/$f" ] || { echo "only in NEW: $f"; status=1; }
done < <(cd "$out/new" && find . -type f | sort)

n=$(cd "$out/old" && find . -type f | wc -l)
if [ $status = 0 ]; then
  echo "identical: $n files (old $(git rev-parse --short "$old"), new ${new:-working tree})"
fi
exit $status
