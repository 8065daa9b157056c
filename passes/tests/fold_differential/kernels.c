/* The kernels of the differential test of folding against the static model
 * (fold_differential/main.rs): each runs twice at the sizes given on the command line,
 * `kernels N STEPS`, and the checksum is printed so that nothing is dead code.
 * The kernels are not static, so that clang cannot specialize them to main's sizes. */
#include <stdio.h>
#include <stdlib.h>

/* A matrix product: LLVM keeps C[i][j] in a register across k (a promoted reduction). */
__attribute__((noinline)) void matmul(long n, double (*restrict C)[n], const double (*restrict A)[n],
            const double (*restrict B)[n]) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      C[i][j] = 0;
      for (long k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
    }
}

/* A 2-D stencil updated in place (Gauss-Seidel): uniform flow dependences along i and j. */
__attribute__((noinline)) void seidel(long n, double (*restrict A)[n]) {
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < n - 1; j++)
      A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) * 0.2;
}

/* Forward substitution: a triangular domain; x[j] flows from row j into every later row. */
__attribute__((noinline)) void trisolv(long n, const double (*restrict L)[n], double *restrict x,
             const double *restrict b, const double *restrict d) {
  for (long i = 0; i < n; i++) {
    x[i] = b[i];
    for (long j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / d[i];
  }
}

/* A first-order recurrence: distance 1 along i. */
__attribute__((noinline)) void recurrence(long n, double *restrict a, const double *restrict b) {
  for (long i = 1; i < n; i++)
    a[i] = a[i - 1] * 0.5 + b[i];
}

/* A data-dependent guard: the store may happen, the model says; the run saw where. */
__attribute__((noinline)) void guarded(long n, double *restrict y, const double *restrict x) {
  for (long i = 0; i < n; i++)
    if (x[i] > 0)
      y[i + 1] = y[i] + x[i];
}

/* A histogram through an index array: not affine, detection rejects it. */
__attribute__((noinline)) void histogram(long n, int *restrict h, const int *restrict idx) {
  for (long i = 0; i < n; i++)
    h[idx[i]] += 1;
}

/* A time-iterated stencil (PolyBench's jacobi-1d): two statements in the time loop. */
__attribute__((noinline)) void jacobi(long steps, long n, double *restrict A, double *restrict B) {
  for (long t = 0; t < steps; t++) {
    for (long i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (long i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 8, steps = argc > 2 ? atol(argv[2]) : 3;
  double *A = malloc(n * n * sizeof(double)), *B = malloc(n * n * sizeof(double));
  double *C = malloc(n * n * sizeof(double)), *x = malloc((n + 1) * sizeof(double));
  double *y = malloc((n + 1) * sizeof(double)), *b = malloc(n * sizeof(double));
  int *h = calloc(n, sizeof(int)), *idx = malloc(4 * n * sizeof(int));
  if (!A || !B || !C || !x || !y || !b || !h || !idx)
    return 1;
  for (long i = 0; i < n * n; i++) {
    A[i] = (double)(i % 7) + 1;
    B[i] = (double)(i % 5) - 2;
  }
  for (long i = 0; i < n; i++) {
    b[i] = (double)(i % 3) + 1;
    x[i] = (i * 7) % 5 - 2; /* some positive, some not */
    y[i] = 0;
  }
  for (long i = 0; i < 4 * n; i++)
    idx[i] = (int)((i * 7919) % n);
  double sum = 0;
  for (int repetition = 0; repetition < 2; repetition++) {
    matmul(n, (double (*)[n])C, (const double (*)[n])A, (const double (*)[n])B);
    seidel(n, (double (*)[n])A);
    trisolv(n, (const double (*)[n])A, y, b, b);
    recurrence(n, y, b);
    guarded(n - 1, y, x);
    histogram(4 * n, h, idx);
    jacobi(steps, n, x, y);
    sum += C[n + 1] + A[2 * n - 2] + y[n / 2] + x[1] + h[0];
  }
  printf("%g\n", sum);
  return 0;
}
