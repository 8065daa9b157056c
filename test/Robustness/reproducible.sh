#!/usr/bin/env bash
# Same input, same output: compiles kernels of the corpus twice with the plugin, in two
# processes (so hash seeds and heap addresses differ), and compares byte for byte the IR,
# the remarks, the optimization records and the models -polyrust-export writes.
# Usage: reproducible.sh CLANG PLUGIN KERNELS_DIR WORK_DIR KERNEL...
set -u
clang=$1 plugin=$2 kernels=$3 work=$4
shift 4
rm -rf "$work" && mkdir -p "$work/1/export" "$work/2/export"
# One working directory for both runs: it is recorded in the debug info.
cd "$work" || exit 2
for run in 1 2; do
  for k in "$@"; do
    "$clang" -O3 -g -I"$kernels" -S -emit-llvm -o "$run/$k.ll" -fpass-plugin="$plugin" \
      -mllvm -polyrust-export="export" -fsave-optimization-record \
      -foptimization-record-file="$run/$k.yaml" \
      -Rpass=polyrust -Rpass-missed=polyrust -Rpass-analysis=polyrust \
      "$kernels/$k.c" 2>"$run/$k.remarks" || echo "compile failed: $k (run $run)"
    # Each run's models in its own folder, under the same option value.
    mv export/* "$run/export/" 2>/dev/null
  done
done
differences=0
for k in "$@"; do
  for ext in ll yaml remarks; do
    if ! cmp -s "1/$k.$ext" "2/$k.$ext"; then
      echo "differs: $k.$ext"
      differences=$((differences + 1))
    fi
  done
done
for f in 1/export/*.json; do
  [[ -e "$f" ]] || continue
  if ! cmp -s "$f" "2/export/${f#1/export/}"; then
    echo "differs: export/${f#1/export/}"
    differences=$((differences + 1))
  fi
done
models=$(find 1/export -name '*.json' | wc -l)
regions=$(cat 1/*.remarks | grep -c 'SCoP begins here')
echo "reproducible: $# kernels, $regions regions, $models models, $differences differences"
