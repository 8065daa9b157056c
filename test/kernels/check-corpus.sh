#!/usr/bin/env bash
# check-corpus.sh - differential correctness check of the C kernel corpus.
#
# For every kernel (*.c next to this script) and every size listed in its
# "// SIZES: test=..." metadata line, compile the kernel with each
# configuration, run it, and compare stdout byte for byte against the first
# (reference) configuration.  Compilation uses -Wall -Werror and -lm.
#
# Usage: check-corpus.sh [-v] [-k] [kernel ...]
#   kernel   names (with or without .c) to restrict the run; default: all
#   -v       print every size/configuration checked
#   -k       keep the work directory (its path is printed)
#
# Environment:
#   CLANG          compiler (default: /usr/lib/llvm-22/bin/clang, else clang-22)
#   CFLAGS_EXTRA   extra flags added to every configuration
#   CHECK_CONFIGS  ';'-separated list of name=flags; the first entry is the
#                  reference.  Default:
#                  "O0=-O0;O3=-O3;O3-polly=-O3 -mllvm -polly"
#                  e.g. to add the plugin:
#                  CHECK_CONFIGS="O0=-O0;O3=-O3;plugin=-O3 -fpass-plugin=/path/libpolyrust.so"
#   RUN_TIMEOUT    per-run timeout in seconds (default 60)
#
# Output: one line per kernel, then "N passed, M failed".  Exit status is 0
# only if every kernel passed.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)

if [[ -z "${CLANG:-}" ]]; then
    if [[ -x /usr/lib/llvm-22/bin/clang ]]; then
        CLANG=/usr/lib/llvm-22/bin/clang
    else
        CLANG=clang-22
    fi
fi
CHECK_CONFIGS=${CHECK_CONFIGS:-"O0=-O0;O3=-O3;O3-polly=-O3 -mllvm -polly"}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
CFLAGS_EXTRA=${CFLAGS_EXTRA:-}

verbose=0
keep=0
selected=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -v) verbose=1 ;;
        -k) keep=1 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        -*) echo "unknown option: $1" >&2; exit 2 ;;
        *) selected+=("${1%.c}") ;;
    esac
    shift
done

if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "compiler not found: $CLANG" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/check-corpus.XXXXXX") || exit 2
if [[ $keep -eq 1 ]]; then
    echo "work directory: $work"
else
    trap 'rm -rf "$work"' EXIT
fi

# Parse the configuration list.
cfg_names=()
cfg_flags=()
IFS=';' read -r -a cfg_items <<<"$CHECK_CONFIGS"
for item in "${cfg_items[@]}"; do
    [[ -z "$item" ]] && continue
    cfg_names+=("${item%%=*}")
    cfg_flags+=("${item#*=}")
done
if [[ ${#cfg_names[@]} -lt 2 ]]; then
    echo "CHECK_CONFIGS needs at least two configurations" >&2
    exit 2
fi

# Kernel list.
kernels=()
if [[ ${#selected[@]} -gt 0 ]]; then
    for k in "${selected[@]}"; do
        if [[ ! -f "$here/$k.c" ]]; then
            echo "no such kernel: $k" >&2
            exit 2
        fi
        kernels+=("$k")
    done
else
    for f in "$here"/*.c; do
        kernels+=("$(basename "$f" .c)")
    done
fi

meta() { # meta FILE KEY -> value of "// KEY: value"
    sed -n "s|^// $2: *||p" "$1" | head -n 1
}

passed=0
failed=0
failed_names=()
for k in "${kernels[@]}"; do
    src="$here/$k.c"
    problems=()

    name=$(meta "$src" KERNEL)
    sizes_line=$(meta "$src" SIZES)
    tsizes=$(sed -n 's/.*test=\([0-9,]*\).*/\1/p' <<<"$sizes_line")
    [[ "$name" == "$k" ]] || problems+=("KERNEL metadata '$name' does not match file name")
    [[ -n "$tsizes" ]] || problems+=("missing or malformed SIZES test= list")
    [[ -n "$(meta "$src" CATEGORY)" ]] || problems+=("missing CATEGORY")
    [[ -n "$(meta "$src" DESCRIPTION)" ]] || problems+=("missing DESCRIPTION")

    # Compile every configuration.
    kdir="$work/$k"
    mkdir -p "$kdir"
    built=1
    for ci in "${!cfg_names[@]}"; do
        exe="$kdir/${cfg_names[$ci]}"
        # shellcheck disable=SC2086
        if ! "$CLANG" ${cfg_flags[$ci]} $CFLAGS_EXTRA -Wall -Werror -I"$here" \
                -o "$exe" "$src" -lm >"$kdir/${cfg_names[$ci]}.cc.log" 2>&1; then
            problems+=("compile failed with ${cfg_names[$ci]}: $(head -n 3 "$kdir/${cfg_names[$ci]}.cc.log" | tr '\n' ' ')")
            built=0
        fi
    done

    if [[ $built -eq 1 && -n "$tsizes" ]]; then
        IFS=',' read -r -a sizes <<<"$tsizes"
        for n in "${sizes[@]}"; do
            for ci in "${!cfg_names[@]}"; do
                c=${cfg_names[$ci]}
                out="$kdir/$c.$n.out"
                timeout "$RUN_TIMEOUT" "$kdir/$c" "$n" >"$out" 2>"$kdir/$c.$n.err"
                rc=$?
                if [[ $rc -ne 0 ]]; then
                    problems+=("$c size $n exited with status $rc")
                    continue
                fi
                if ! grep -q '^kernel-time: ' "$kdir/$c.$n.err"; then
                    problems+=("$c size $n printed no kernel-time line on stderr")
                fi
                if [[ ! -s "$out" ]]; then
                    problems+=("$c size $n printed nothing on stdout")
                fi
                if [[ $ci -gt 0 ]]; then
                    ref="$kdir/${cfg_names[0]}.$n.out"
                    if ! cmp -s "$ref" "$out"; then
                        first=$(diff "$ref" "$out" | sed -n '2p')
                        problems+=("$c differs from ${cfg_names[0]} at size $n (first: $first)")
                    elif [[ $verbose -eq 1 ]]; then
                        echo "  ok $k size $n $c"
                    fi
                fi
            done
        done
    fi

    if [[ ${#problems[@]} -eq 0 ]]; then
        passed=$((passed + 1))
        printf 'PASS %-22s sizes %s\n' "$k" "$tsizes"
    else
        failed=$((failed + 1))
        failed_names+=("$k")
        printf 'FAIL %-22s sizes %s\n' "$k" "$tsizes"
        for p in "${problems[@]}"; do
            printf '     %s\n' "$p"
        done
    fi
done

if [[ $failed -gt 0 ]]; then
    echo "failed kernels: ${failed_names[*]}"
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
