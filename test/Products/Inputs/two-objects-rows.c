// With two-objects-main.c: the second file whose product calls the same kernel.
void rows_product(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int k = 0; k < n; k++)
        sum += A[i * n + k] * B[j * n + k];
      C[i * n + j] += sum;
    }
}
