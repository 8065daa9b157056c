/* Strided-view matrix product for the profile-guided tests: argv gives n and a mode
   (1: B read as a transposed view; 2: A read as every other column of a wider one). */
#include <stdio.h>
#include <stdlib.h>

/* C = A * B on views: element (r, c) of X is X[r * sx0 + c * sx1]. */
__attribute__((noinline)) void mm_view(int n, const double *A, long sa0, long sa1,
                                       const double *B, long sb0, long sb1, double *C,
                                       long sc0, long sc1) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i * sc0 + j * sc1] += A[i * sa0 + k * sa1] * B[k * sb0 + j * sb1];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * 2 * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < 2 * n * n; i++)
    A[i] = (double)((i * 7) % 13) / 7.0;
  for (int i = 0; i < n * n; i++)
    B[i] = (double)((i * 5) % 11) / 3.0;
  long sa0 = mode == 2 ? 2 * n : n, sa1 = mode == 2 ? 2 : 1;
  long sb0 = mode == 1 ? 1 : n, sb1 = mode == 1 ? n : 1;
  for (int rep = 0; rep < 2; rep++)
    mm_view(n, A, sa0, sa1, B, sb0, sb1, C, n, 1);
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i] * (double)(i % 17);
  printf("%d %d %.17g %.17g\n", n, mode, sum, C[n * n - 1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
