// A time-expanded heat equation keeps each step's boundary elements beside its interior
// loop: U[t*n + n - 1], the last element of row t. LLVM's delinearization keeps the
// constant part in the last subscript, U[t + 1][-1], outside its dimension wherever it
// runs: the in-bounds assumption never held and the whole region was "left unchanged:
// the model's assumptions fail". The model now takes the same address in the row
// before, U[t][n - 1], and the region is time-tiled; the outputs stay those of -O3.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=MODEL
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/tiled -DMAIN
// RUN: %clang -O3 %s -o %t/plain -DMAIN
// RUN: %t/plain > %t/plain.out
// RUN: %t/tiled > %t/tiled.out
// RUN: cmp %t/plain.out %t/tiled.out

void heat(int T, int n, double *U, double c) {
  for (int t = 1; t < T; t++) {
    U[t * n] = U[(t - 1) * n];
    for (int i = 1; i < n - 1; i++)
      U[t * n + i] = U[(t - 1) * n + i] +
                     c * (U[(t - 1) * n + i - 1] - 2 * U[(t - 1) * n + i] + U[(t - 1) * n + i + 1]);
    U[t * n + n - 1] = U[(t - 1) * n + n - 1];
  }
}

// No subscript is a negative constant, and no in-bounds assumption is `0 <= -1`.
// MODEL-LABEL: polyrust-scops: function 'heat'
// MODEL-NOT: 0 <= -1
// MODEL-NOT: , -1]
// MODEL: Scop heat:for.body.us
// MODEL: MustWrite: [T, n] -> { S0[i0] -> U[1 + i0, 0] }
// MODEL: MustWrite: [T, n] -> { S1[i0, i1] -> U[1 + i0, 1 + i1] }
// MODEL: Read: [T, n] -> { S2[i0] -> U[i0, -1 + n] }
// MODEL: MustWrite: [T, n] -> { S2[i0] -> U[1 + i0, -1 + n] }

// REMARK: remark: region in heat at {{.*}} optimized (time-tiled:
// REMARK-NOT: the model's assumptions fail

#ifdef MAIN
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int sizes[][2] = {{1, 1}, {2, 1}, {3, 2}, {5, 3}, {50, 37}, {120, 301}};
  for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int T = sizes[s][0], n = sizes[s][1];
    double *U = malloc(sizeof(double) * T * n);
    for (int i = 0; i < T * n; i++)
      U[i] = (i % 17) * 0.25;
    heat(T, n, U, 0.1);
    for (int i = 0; i < T * n; i++)
      printf("%a\n", U[i]);
    free(U);
  }
  return 0;
}
#endif
