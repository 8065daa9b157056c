// darknet's gemm_bin: a loop under a test of the char array A on each side of an
// if/else. A is only read by the test, and a char pointer may point anywhere: here
// into C, which the loops write, so the rows of C the second row of A tests have been
// changed by the first row's loops. The run-time alias check must see A (it is one of
// the region's arrays through the condition's read) and run the original loops.
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) void gemm_bin(int M, int N, int K, float ALPHA, char *A,
                                        int lda, float *B, int ldb, float *C, int ldc) {
  int i, j, k;
  for (i = 0; i < M; ++i) {
    for (k = 0; k < K; ++k) {
      char A_PART = A[i * lda + k];
      if (A_PART) {
        for (j = 0; j < N; ++j)
          C[i * ldc + j] += B[k * ldb + j];
      } else {
        for (j = 0; j < N; ++j)
          C[i * ldc + j] -= B[k * ldb + j];
      }
    }
  }
}

static float buf[4096];
static float B[64 * 8];
static char bits[16 * 64];

static void print(const char *what, const float *C, int n) {
  printf("%s", what);
  for (int i = 0; i < n; i++)
    printf(" %a", C[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  (void)argv;
  int M = 2 + (argc > 5), N = 4, K = 40, lda = 40, ldb = 4, ldc = 4;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++)
      B[k * ldb + j] = k < 16 ? ((k / 2) % 2 ? -1.0f : 1.0f) : k == 16 ? 0.0f : 0.375f;
  // A's second row is the bytes of C's first row, which the first row's loops write.
  memset(buf, 0, sizeof buf);
  float *C = buf + 16;
  gemm_bin(M, N, K, 1.0f, (char *)C - lda, lda, B, ldb, C, ldc);
  print("aliased", C, 12);
  // A apart from C: the optimized loops may run.
  for (int i = 0; i < 16 * 64; i++)
    bits[i] = (char)((i * 7) % 3 == 0);
  M = 16 + (argc > 5), N = 8, K = 64, lda = 64, ldb = 8, ldc = 8;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++)
      B[k * ldb + j] = (float)((k * 5 + j * 3) % 7) - 3.0f;
  memset(buf, 0, sizeof buf);
  gemm_bin(M, N, K, 1.0f, bits, lda, B, ldb, buf, ldc);
  print("apart", buf, M * N);
  return 0;
}
