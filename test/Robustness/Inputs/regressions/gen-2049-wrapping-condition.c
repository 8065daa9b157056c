#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static uint32_t fz_hash(long k, uint32_t salt) {
}
static void *fz_alloc(long count, size_t size) {
  void *p = calloc((size_t)count, size);
  return p;
}
static uint64_t fz_mix(uint64_t h, uint64_t bits) { return (h ^ bits) * 1099511628211ULL; }
static void fz_check_double(const char *name, const double *a, long c) {
  uint64_t h = 1469598103934665603ULL; double s = 0, abs_sum = 0, w = 0;
  for (long k = 0; k < c; k++) { uint64_t b; memcpy(&b, &a[k], 8); h = fz_mix(h, b); s += a[k]; abs_sum += fabs(a[k]); w += (double)(k % 7 + 1) * a[k]; }
  printf("%s fp h=%016llx s=%.17g a=%.17g w=%.17g\n", name, (unsigned long long)h, s, abs_sum, w);
}
static __attribute__((noinline)) void kernel(int n, int m, double (* restrict A0)[(n + 4)], double (* restrict A1)[(n + 4)]) {
  for (int i = n - 1; i >= 0; i--)
    for (int j = 1; j < n; j++)
      for (int k = 0; k < n - 1; k++) {
        if (j % 2 == 0) {
          double t0 = 1.5 + (double)i;
          A0[k + 2][n - 1 - i + 1] = t0 + 2.0;
        }
      }
      for (int k = 1; k < n; k++) {
      }
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  long c_A0 = (n + 4) * (n + 4) + 4;
  double *b_A0 = fz_alloc(c_A0, sizeof(double));
  long c_A1 = (n + 4) * (n + 4) + 4;
  double *b_A1 = fz_alloc(c_A1, sizeof(double));
  kernel(n, m, (double (*)[(n + 4)])(b_A0), (double (*)[(n + 4)])(b_A1));
  fz_check_double("A0", b_A0, c_A0);
}
// inputs (N M): 0 0, 24 9
