#!/usr/bin/env bash
# Differential test of the kernel corpus: every kernel is compiled with clang -O3 and
# with clang -O3 + polyrust (extra polyrust options from $POLYRUST_FLAGS, each passed
# with -mllvm), run at each of its test sizes (the SIZES: test= line: sizes 0, 1 and
# sizes that are not multiples of tile sizes), and the outputs must be byte-identical.
# $POLYRUST_LINK adds files to link the polyrust build with (a runtime), $POLYRUST_CFLAGS
# clang options to compile it with (-fopenmp), and $POLYRUST_THREADS the OpenMP thread
# counts to run it with, each compared with the -O3 output (default: one run, the
# environment's). The time limit
# of each run only guards against a hang (the test sizes run in milliseconds).
# The builds without polyrust and their outputs are the same for every test that runs
# this script: they are kept beside WORKDIR (corpus-base/), named by a hash of the
# kernel, the harness and clang's version, and made by whichever test needs them first
# (written under a temporary name and renamed, so tests running at once never read half
# a file).
#   corpus.sh CLANG PLUGIN KERNELS WORKDIR
set -u
clang=$1 plugin=$2 kernels=$3 work=$4
mkdir -p "$work"
base=$(dirname "$work")/corpus-base
mkdir -p "$base"
clang_version=$("$clang" --version | head -n 1)
flags=()
for f in ${POLYRUST_FLAGS:-}; do flags+=(-mllvm "$f"); done
link=()
for f in ${POLYRUST_LINK:-}; do link+=("$f"); done
cflags=()
for f in ${POLYRUST_CFLAGS:-}; do cflags+=("$f"); done
threads=${POLYRUST_THREADS:-default}
passed=0 failed=0
for src in "$kernels"/*.c; do
  k=$(basename "$src" .c)
  sizes=$(sed -n 's/^\/\/ SIZES: test=\([0-9,]*\).*/\1/p' "$src" | tr , ' ')
  key=$(cat "$src" "$kernels/harness.h" <(echo "$clang_version") | sha1sum | cut -c1-16)
  exe=$base/$k-$key
  if [[ ! -x $exe ]]; then
    if ! "$clang" -O3 -I"$kernels" "$src" -lm -o "$exe.$$" 2>"$work/$k.err"; then
      echo "FAIL $k: does not build without polyrust: $(tail -n 1 "$work/$k.err")"; failed=$((failed + 1)); continue
    fi
    mv -f "$exe.$$" "$exe"
  fi
  if ! "$clang" -O3 -I"$kernels" -fpass-plugin="$plugin" "${cflags[@]}" "${flags[@]}" "$src" "${link[@]}" -lm -o "$work/$k.poly" 2>"$work/$k.err"; then
    echo "FAIL $k: does not build with polyrust: $(tail -n 2 "$work/$k.err")"; failed=$((failed + 1)); continue
  fi
  ok=1
  for s in $sizes; do
    expected=$exe.$s.out
    if [[ ! -f $expected ]]; then
      timeout 120 "$exe" "$s" >"$expected.$$" 2>/dev/null
      # A run cut short is compared but not kept.
      if (($? == 124)); then expected=$expected.$$; else mv -f "$expected.$$" "$expected"; fi
    fi
    for t in $threads; do
      if [[ $t == default ]]; then
        timeout 120 "$work/$k.poly" "$s" >"$work/$k.poly.out" 2>/dev/null
      else
        OMP_NUM_THREADS=$t timeout 120 "$work/$k.poly" "$s" >"$work/$k.poly.out" 2>/dev/null
      fi
      rc=$?
      if ! cmp -s "$expected" "$work/$k.poly.out"; then
        echo "FAIL $k: size $s prints different bytes (threads: $t, exit status $rc)"; ok=0; break 2
      fi
    done
  done
  if ((ok)); then passed=$((passed + 1)); echo "ok $k"; else failed=$((failed + 1)); fi
done
echo "corpus: $passed passed, $failed failed"
exit $((failed > 0))
