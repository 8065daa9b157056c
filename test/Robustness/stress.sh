#!/usr/bin/env bash
# Runs polyrust on random IR from llvm-stress and on the kernel corpus at every
# optimization level; fails on any crash, hang or IR that does not verify. Its time
# limits only guard against hangs: far above what a run takes on a busy machine.
# $POLYRUST_FLAGS adds polyrust options to every run.
#   stress.sh BIN PLUGIN KERNELS SEEDS WORKDIR
# SEEDS: N for the llvm-stress seeds 1 to N, N/K for every K-th of them (1, 1+K, ...:
# fewer modules, of every size the seeds give).
set -u
bin=$1 plugin=$2 kernels=$3 seeds=$4 work=$5
step=1
if [[ $seeds == */* ]]; then step=${seeds#*/} seeds=${seeds%/*}; fi
opt_flags=() clang_flags=()
for f in ${POLYRUST_FLAGS:-}; do opt_flags+=("$f"); clang_flags+=(-mllvm "$f"); done
mkdir -p "$work"
failed=0 tried=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

for seed in $(seq 1 "$step" "$seeds"); do
  ll=$work/stress-$seed.ll
  "$bin/llvm-stress" -seed="$seed" -size=$((100 + seed % 400)) -o "$ll" || { fail "llvm-stress seed $seed"; continue; }
  # Detection, printers and the pass on the raw IR, then inside the -O3 pipeline.
  for pipeline in 'function(print<polyrust-loops>,print<polyrust-detect>,print<polyrust-scops>),polyrust,verify' \
                  'default<O3>,verify'; do
    tried=$((tried + 1))
    timeout 300 "$bin/opt" -load-pass-plugin="$plugin" "${opt_flags[@]}" -passes="$pipeline" -disable-output "$ll" \
      >/dev/null 2>"$work/err" || fail "seed $seed, -passes='$pipeline': $(tail -n 2 "$work/err")"
  done
done

for src in "$kernels"/*.c; do
  for level in O0 O1 O2 O3; do
    tried=$((tried + 1))
    out=$work/$(basename "$src" .c)-$level.ll
    timeout 300 "$bin/clang" -$level -g -I"$kernels" -fpass-plugin="$plugin" "${clang_flags[@]}" -S -emit-llvm "$src" -o "$out" \
      2>"$work/err" || { fail "$src at -$level: $(tail -n 2 "$work/err")"; continue; }
    "$bin/opt" -passes=verify -disable-output "$out" 2>"$work/err" || fail "$src at -$level does not verify"
  done
  # -O0 code without optnone: non-canonical loops straight from the front end.
  tried=$((tried + 1))
  "$bin/clang" -O0 -Xclang -disable-O0-optnone -I"$kernels" -S -emit-llvm "$src" -o "$work/raw.ll" 2>/dev/null &&
    timeout 300 "$bin/opt" -load-pass-plugin="$plugin" "${opt_flags[@]}" \
      -passes='function(print<polyrust-detect>,print<polyrust-scops>),polyrust,verify' -disable-output \
      "$work/raw.ll" >/dev/null 2>"$work/err" || fail "$src unoptimized: $(tail -n 2 "$work/err")"
done
echo "robustness: $tried runs, $failed failures"
exit $((failed > 0))
