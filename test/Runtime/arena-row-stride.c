// A matrix allocated one row per malloc, in an instrumented loop: the runtime's own
// memory comes from its own mapping, so the rows are as far apart as in a plain run
// (no break in their stride), and the training step's w[k][j] folds to one affine
// piece (named `w[]`: an element of a row loaded from w). Before the arena, the runtime's records landed between the rows (4094
// breaks, w[k][j] not affine). (Issue 35, item 5.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t | %FileCheck %s --check-prefix=OUT
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// OUT: row stride breaks: 0

// CHECK-LABEL: `train` at
// CHECK:       **affine: 100.0%**
// CHECK:       | load w[]@[[#]] | 40960 | 1 | 100.0% | k: 96, j: 8 |

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double train(double **w, const double *x, int n, int m) {
  double total = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      total += w[k][j] * x[j];
  return total;
}

int main(void) {
  int n = 4096, m = 10;
  double **w = malloc(n * sizeof *w);
  double *x = malloc(m * sizeof *x);
  for (int j = 0; j < m; j++)
    x[j] = j;
  for (int k = 0; k < n; k++) {
    w[k] = malloc(m * sizeof(double));
    for (int j = 0; j < m; j++)
      w[k][j] = k + j;
  }
  long breaks = 0;
  for (int k = 2; k < n; k++)
    breaks += (char *)w[k] - (char *)w[k - 1] != (char *)w[1] - (char *)w[0];
  printf("row stride breaks: %ld\n", breaks);
  printf("%.1f\n", train(w, x, n, m));
  return 0;
}
