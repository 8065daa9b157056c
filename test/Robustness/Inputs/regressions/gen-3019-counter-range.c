#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define NMAX 40
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
static uint32_t fz_hash(long k, uint32_t salt) {
}
static void *fz_alloc(long count, size_t size) {
  void *p = calloc((size_t)count, size);
  return p;
}
static uint64_t fz_mix(uint64_t h, uint64_t bits) { return (h ^ bits) * 1099511628211ULL; }
static void fz_check_double(const char *name, const double *a, long c) {
}
#define FZ_CHECK_INT(T)                                                              \
  static void fz_check_##T(const char *name, const T *a, long c) {                   \
    uint64_t h = 1469598103934665603ULL; long long s = 0;                            \
    for (long k = 0; k < c; k++) { h = fz_mix(h, (uint64_t)a[k]); s += (long long)a[k]; } \
    printf("%s int h=%016llx s=%lld\n", name, (unsigned long long)h, s);             \
  }
FZ_CHECK_INT(int)
static int A0[NMAX + 4];
static __attribute__((noinline)) void kernel(int n, int m, long (* A1)[(n + 4)]) {
  for (int i = 0; i < n - 1; i++)
      for (int k = 0; k < n - 1; k++) {
    long t0 = (2 ^ ((long)A1[3][i + 3] & 1023)) + 9;
    A1[3][i + 3] = t0 + ((long)A1[1][i] & 1023);
    if (i % 2 == 0) {
    }
  }
  int s0 = 0;
  for (int i = n - 1; i >= 1; i--)
    for (int j = 0; j < n; j++)
      for (int k = MAX(0, j - 2); k < MIN(n, j + 3); k++)
        s0 += (((int)j * ((int)A0[0] & 1023)) + ((int)A1[3][k + 3] & 1023)) & 255;
  A0[2] = s0;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  long c_A1 = (m + 4) * (n + 4) + 4;
  long *b_A1 = fz_alloc(c_A1, sizeof(long));
  kernel(n, m, (long (*)[(n + 4)])(b_A1));
  fz_check_int("A0", &A0[0], (NMAX + 4));
}
// inputs (N M): 2 2, 21 17
