// The batched product as PolyBench's doitgen writes it (each row of A replaced by its
// product with C4, through sum) gives the bytes -O3 gives, A and sum both printed: with
// and without -march=native (the kernel behind a test of the CPU), in doubles and
// floats, steps fused and not, for sizes that fill no micro-kernel and that cross
// blocks of rows and of s (caches given small), rows of several r in one chunk and
// across chunks (3 x 400 rows, chunks of 240), and sizes 0 and 1. Rows of A whose q
// runs short of A's own size (nq < NQ) are products of their own per r.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/native 2>&1 | %FileCheck %s --check-prefix=NATIVE
// RUN: %clang -O3 -g -march=native %s -o %t/native-plain
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -mllvm -polyrust-l1-cache=4K \
// RUN:   -mllvm -polyrust-l2-cache=32K %s -o %t/baseline 2>&1 | %FileCheck %s --check-prefix=BASELINE
// RUN: %clang -O3 -g %s -o %t/baseline-plain
// RUN: %t/native-plain 0 3 4 1 1 1 2 3 5 3 7 13 2 70 37 1 5 300 3 400 5 > %t/native-plain.out
// RUN: %t/native 0 3 4 1 1 1 2 3 5 3 7 13 2 70 37 1 5 300 3 400 5 > %t/native.out
// RUN: cmp %t/native-plain.out %t/native.out
// RUN: %t/baseline-plain 0 3 4 1 1 1 2 3 5 3 7 13 2 70 37 1 5 300 3 400 5 > %t/baseline-plain.out
// RUN: %t/baseline 0 3 4 1 1 1 2 3 5 3 7 13 2 70 37 1 5 300 3 400 5 > %t/baseline.out
// RUN: cmp %t/baseline-plain.out %t/baseline.out
// NATIVE-DAG: remark: region in doitgen at {{.*}} optimized (batched matrix product A[r][q][p] = sum[p] = sum over s of A[r][q][s] * C4[s][p] (a product per r, written back into A): packed, blocks 60 x 32, micro-kernel 6 x 8, bit-exact)
// NATIVE-DAG: remark: region in doitgen_f32 at {{.*}} optimized (batched matrix product {{.*}} micro-kernel 6 x 16, bit-exact)
// NATIVE-DAG: remark: region in doitgen_unfused at {{.*}} optimized (batched matrix product {{.*}} (products rounded before they are added, as written), bit-exact)
// NATIVE-DAG: remark: region in short_rows at {{.*}} optimized (batched matrix product
// BASELINE-DAG: remark: region in doitgen at {{.*}} optimized (batched matrix product {{.*}} (products rounded before they are added, as written), bit-exact, needs AVX2 and FMA at run time, original loops otherwise)
// BASELINE-DAG: remark: region in doitgen_f32 at {{.*}} optimized (batched matrix product {{.*}}, needs AVX2 and FMA at run time

#include <stdio.h>
#include <stdlib.h>

#define DOITGEN(name, real)                                                             \
  __attribute__((noinline)) void name(int nr, int nq, int np, real A[nr][nq][np],      \
                                      real C4[np][np], real sum[np]) {                 \
    for (int r = 0; r < nr; r++)                                                       \
      for (int q = 0; q < nq; q++) {                                                   \
        for (int p = 0; p < np; p++) {                                                 \
          sum[p] = 0.0;                                                                \
          for (int s = 0; s < np; s++)                                                 \
            sum[p] += A[r][q][s] * C4[s][p];                                           \
        }                                                                              \
        for (int p = 0; p < np; p++)                                                   \
          A[r][q][p] = sum[p];                                                         \
      }                                                                                \
  }

DOITGEN(doitgen, double)
DOITGEN(doitgen_f32, float)

/* Rows of A that q does not reach: A is nr x (nq + 2) x np. */
__attribute__((noinline)) void short_rows(int nr, int nq, int np, double A[nr][nq + 2][np],
                                          double C4[np][np], double sum[np]) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

#pragma clang fp contract(off)
DOITGEN(doitgen_unfused, double)
#pragma clang fp contract(on)

static double value(long x) { return (double)((x * 7919 % 1009) - 504) / 97.0; }

#define RUN(kernel, real, rows)                                                         \
  {                                                                                    \
    real *A = malloc(sizeof(real) * (nr * (rows) * np + 1));                           \
    real *C4 = malloc(sizeof(real) * (np * np + 1));                                   \
    real *sum = malloc(sizeof(real) * (np + 1));                                       \
    for (long x = 0; x < (long)nr * (rows) * np; x++)                                  \
      A[x] = (real)value(x);                                                           \
    for (long x = 0; x < (long)np * np; x++)                                           \
      C4[x] = (real)value(3 * x + 1);                                                  \
    for (long x = 0; x < np; x++)                                                      \
      sum[x] = (real)value(x + 5);                                                     \
    kernel(nr, nq, np, (void *)A, (void *)C4, sum);                                    \
    double check = 0;                                                                  \
    for (long x = 0; x < (long)nr * (rows) * np; x++)                                  \
      printf("%a\n", (double)A[x]);                                                    \
    for (long x = 0; x < np; x++)                                                      \
      printf("sum %a\n", (double)sum[x]);                                              \
    (void)check;                                                                       \
    free(A);                                                                           \
    free(C4);                                                                          \
    free(sum);                                                                         \
  }

int main(int argc, char **argv) {
  for (int at = 1; at + 2 < argc; at += 3) {
    int nr = atoi(argv[at]), nq = atoi(argv[at + 1]), np = atoi(argv[at + 2]);
    printf("sizes %d %d %d\n", nr, nq, np);
    RUN(doitgen, double, nq)
    RUN(doitgen_f32, float, nq)
    RUN(doitgen_unfused, double, nq)
    RUN(short_rows, double, nq + 2)
  }
  return 0;
}
