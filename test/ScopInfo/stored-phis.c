// Phis that carry a value the program stored to an element are reads of the element:
// GVN hands a loop's last stored y[i] to the statement after the loop (`sums`), and a
// loop that updates x[i] in memory carries it in a header phi that starts from the
// x[i] = b[i] stored before the loop, merged after the loop with b[i] when it does not
// run (`forward`). As scalars they kept every row after the one before; as reads of
// the element the model is per element (Plan/chain-two-matrices.c and
// Plan/chain-forward-substitution.c use that). The pass sees LCSSA form.
// RUN: %o3ir -fno-discard-value-names %s | %opt -passes='loop-simplify,lcssa' -S \
// RUN:   | %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 %s -o %t/plain
// RUN: %clang -O3 -fpass-plugin=%plugin %s -o %t/optimized
// RUN: %t/plain 1 5 9 31 > %t/plain.out && %t/optimized 1 5 9 31 > %t/optimized.out
// RUN: cmp %t/plain.out %t/optimized.out
// CHECK-LABEL: Scop sums:
// CHECK-NOT: __phi
// CHECK: Read: [n] -> { S2[i0] -> y[i0] }   ; %{{.*}}lcssa{{.*}} = phi double {{.*}} (stored to memory, read from it)
// CHECK-LABEL: Scop forward:
// CHECK-NOT: __phi
// CHECK: Read: {{.*}} -> x[i0] }   ; %{{.*}} = phi double {{.*}} (stored to memory, read from it)
// CHECK: MustWrite: {{.*}} -> x[i0] }
// CHECK: Read: {{.*}} -> x[i0] }   ; %{{.*}} = phi double {{.*}} (stored to memory, read from it)
// CHECK-LABEL: Scop main
#include <stdio.h>
#include <stdlib.h>
#define N 40

__attribute__((noinline)) void sums(int n, double *A, double *B, double *t, double *x,
                                    double *y) {
  for (int i = 0; i < n; i++) {
    t[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      t[i] = A[i * n + j] * x[j] + t[i];
      y[i] = B[i * n + j] * x[j] + y[i];
    }
    y[i] = 2.0 * t[i] - y[i];
  }
}

__attribute__((noinline)) void forward(int n, double L[N][N], double *x, double *b) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

int main(int argc, char **argv) {
  static double A[N * N], B[N * N], L[N][N], t[N], x[N], y[N], b[N];
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    for (int i = 0; i < n; i++) {
      x[i] = (i % 9) * 0.125 - 0.4;
      b[i] = (i % 5) * 0.5 - 1.0;
      for (int j = 0; j < n; j++) {
        A[i * n + j] = ((i * 7 + j * 3) % 13) / 13.0 - 0.3;
        B[i * n + j] = ((i * 2 + j * 5) % 17) / 17.0 - 0.55;
        L[i][j] = i == j ? 2.0 + i % 3 : ((i + 2 * j) % 7) / 7.0 - 0.5;
      }
    }
    sums(n, A, B, t, x, y);
    forward(n, L, y, x);
    for (int i = 0; i < n; i++)
      printf("%a %a %a\n", t[i], x[i], y[i]);
  }
  return 0;
}
