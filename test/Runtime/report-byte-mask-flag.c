// A graph search's sweeps (bfs): a byte mask read and cleared element by element, and
// a flag set when any element changes. The mask's neighbouring bytes share a 4-byte
// granule; each keeps its own writer, so no false dependence (0, 1) makes the sweeps
// serial, and the flag (`stop = true` under a condition) is a reduction, not a value
// carried to the next iteration. (Issue 35, item 2: bfs's `tid` loops, the programs'
// own `omp parallel for`; the `do ... while (stop)` around them leaves on what the
// sweeps found, with no dependence through memory telling so.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t | %FileCheck %s --check-prefix=OUT
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// OUT: rounds 64, reached 64

// CHECK-LABEL: `sweep` at
// The sweeps go on while any element changes: their number depends on the data.
// CHECK:       | {{.*}} | {{[0-9]+}} | 1 | {{.*}} | no | {{.*}}its exit depends on next (a search) |
// CHECK-NEXT:  | t | {{[0-9]+}} | 2 | {{.*}} | yes | – |
// The flag has no name in the debug information LLVM leaves.
// CHECK-NEXT:  | t | {{[0-9]+}} | 2 | {{.*}} | reduction ({{.*}} in a register) | {{.*}} (a flag reduction in a register) |

#include <stdbool.h>
#include <stdio.h>

enum { N = 64 };

__attribute__((noinline)) int sweep(bool *mask, bool *next, bool *seen, int n) {
  int rounds = 0;
  bool stop;
  do {
    stop = false;
    for (int t = 0; t < n; t++) {
      if (mask[t]) {
        mask[t] = false;
        if (t + 1 < n && !seen[t + 1])
          next[t + 1] = true;
      }
    }
    for (int t = 0; t < n; t++) {
      if (next[t]) {
        mask[t] = true;
        seen[t] = true;
        stop = true;
        next[t] = false;
      }
    }
    rounds++;
  } while (stop);
  return rounds;
}

int main(void) {
  bool mask[N] = {true}, next[N] = {false}, seen[N] = {true};
  int rounds = sweep(mask, next, seen, N);
  int reached = 0;
  for (int t = 0; t < N; t++)
    reached += seen[t];
  printf("rounds %d, reached %d\n", rounds, reached);
  return 0;
}
