// With two-objects-rows.c: two files whose products call the same kernel.
#include <stdio.h>
#include <stdlib.h>

void rows_product(int n, const double *A, const double *B, double *C);

__attribute__((noinline)) void main_product(int n, const double *A, const double *B,
                                            double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int k = 0; k < n; k++)
        sum += A[i * n + k] * B[j * n + k];
      C[i * n + j] += sum;
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 67;
  double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double)), *D = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n * n; i++) {
    A[i] = (i % 17) * 0.25 - 1.0 / 3;
    B[i] = (i % 13) * 0.5 - 2.0 / 7;
  }
  main_product(n, A, B, C);
  rows_product(n, A, B, D);
  for (int i = 0; i < n * n; i++)
    printf("%a %a\n", C[i], D[i]);
  return 0;
}
