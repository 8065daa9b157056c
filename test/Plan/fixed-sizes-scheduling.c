// Sizes fixed at compile time (PolyBench's #defines) put large constants into the
// dependences; the scheduler gets them simplified against the statements' domains, which
// is much cheaper for isl (PolyBench LARGE's cholesky: 0.28 s -> 4 ms). Where isl finds
// no schedule for the simplified dependences (a superset of the exact ones), the exact
// ones get their turn (Speculation/flat-size.c: a nest specialized on a profiled size
// needs them) when they are small enough to schedule at a reasonable cost. cholesky's
// accumulators are kept in their elements (detect/promoted.rs, also where the loop is
// skipped: ScopInfo/promoted-skipped-loop.c), so isl finds a schedule for the simplified
// dependences; the cost model keeps the original order (the schedule's innermost loop
// of the update is strided), and the program prints what -O3's prints.
// RUN: %clang -O3 -c -o /dev/null %s -fpass-plugin=%plugin -Rpass=polyrust \
// RUN:   -Rpass-missed=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 %s -o %t.o3 -lm
// RUN: %clang -O3 %s -o %t.pr -fpass-plugin=%plugin -lm
// RUN: %t.o3 > %t.expected && %t.pr > %t.got && diff %t.expected %t.got
#include <math.h>
#include <stdio.h>

#define N 400
static double A[N][N];

// CHECK: remark: region in cholesky at {{.*}} left unchanged: the schedule found makes the innermost loop of S0 access memory with a larger stride
__attribute__((noinline)) static void cholesky(void) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i == j) ? N + 1.0 : 1.0 / (1 + i + j);
  cholesky();
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      s += A[i][j];
  printf("%.10g\n", s);
  return 0;
}
