// polyrust fuzz program, seed 107 (scripts/fuzz.d/generate.py)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NMAX 40
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static uint32_t fz_hash(long k, uint32_t salt) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ULL ^ (uint64_t)salt * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ULL; x ^= x >> 32;
  return (uint32_t)x;
}
static void *fz_alloc(long count, size_t size) {
  void *p = calloc((size_t)count, size);
  if (!p) { fprintf(stderr, "out of memory\n"); exit(3); }
  return p;
}
static void fz_init_double(double *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (double)((int)(fz_hash(k, s) % 17u) - 8) / 8.0; }
static void fz_init_float(float *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (float)((int)(fz_hash(k, s) % 17u) - 8) / 8.0f; }
static void fz_init_int(int *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (int)(fz_hash(k, s) % 1024u) - 512; }
static void fz_init_long(long *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (long)(fz_hash(k, s) % 1024u) - 512; }
static void fz_init_unsigned(unsigned *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = fz_hash(k, s) % 1024u; }
static uint64_t fz_mix(uint64_t h, uint64_t bits) { return (h ^ bits) * 1099511628211ULL; }
static void fz_check_double(const char *name, const double *a, long c) {
  uint64_t h = 1469598103934665603ULL; double s = 0, abs_sum = 0, w = 0;
  for (long k = 0; k < c; k++) { uint64_t b; memcpy(&b, &a[k], 8); h = fz_mix(h, b); s += a[k]; abs_sum += fabs(a[k]); w += (double)(k % 7 + 1) * a[k]; }
  printf("%s fp h=%016llx s=%.17g a=%.17g w=%.17g\n", name, (unsigned long long)h, s, abs_sum, w);
}
static void fz_check_float(const char *name, const float *a, long c) {
  uint64_t h = 1469598103934665603ULL; double s = 0, abs_sum = 0, w = 0;
  for (long k = 0; k < c; k++) { uint32_t b; memcpy(&b, &a[k], 4); h = fz_mix(h, b); s += a[k]; abs_sum += fabs(a[k]); w += (double)(k % 7 + 1) * a[k]; }
  printf("%s fp h=%016llx s=%.17g a=%.17g w=%.17g\n", name, (unsigned long long)h, s, abs_sum, w);
}
#define FZ_CHECK_INT(T)                                                              \
  static void fz_check_##T(const char *name, const T *a, long c) {                   \
    uint64_t h = 1469598103934665603ULL; long long s = 0;                            \
    for (long k = 0; k < c; k++) { h = fz_mix(h, (uint64_t)a[k]); s += (long long)a[k]; } \
    printf("%s int h=%016llx s=%lld\n", name, (unsigned long long)h, s);             \
  }
FZ_CHECK_INT(int)
FZ_CHECK_INT(long)
FZ_CHECK_INT(unsigned)

static long A0[NMAX + 4][NMAX + 4][NMAX + 4];
static double A1[NMAX + 4][NMAX + 4];

static __attribute__((noinline)) void kernel(int n, int m, unsigned * restrict A2) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        long t0 = ((long)A2[((j + 2) * (n + 4) + ((j + k) / 2 + 0))] & 1023) + ((long)A2[((i) * (n + 4) + (j + 2))] & 1023);
        A0[j][i + 2][(k + k) / 2 + 3] = t0 + ((long)A0[j + 3][j][i] & 1023);
        A0[(k + i) / 2 + 0][j + 3][i + 2] = ((long)t0 & 1023);
      }
  long s0 = 0;
  for (int i = 0; i < MIN(n, m); i++)
    for (int j = 0; j < n - 1; j++)
      for (int k = 0; k < m; k++)
        s0 += (((long)A0[i + 3][j / 2 + 1][j + 2] & 1023) + 1) & 255;
  A0[1][1][1] = s0;
  for (int i = n - 1; i >= 0; i--) {
    for (int j = MAX(0, i - 2); j < MIN(n, i + 3); j++) {
      A0[n - 1 - i + 2][j + 1][i + 3] = ((long)A0[i + 1][j + 1][i + 2] & 1023) + ((long)A2[((i + 3) * (n + 4) + (j + 1))] & 1023);
      A0[n - 1 - i + 2][j][j + 3] = ((long)A2[((j + 2) * (n + 4) + (i))] & 1023) | ((long)A0[j][j + 3][i + 1] & 1023);
      A0[j + 3][i / 2 + 3][j + 1] = (((long)A2[((j + 1) * (n + 4) + (i + 2))] & 1023) | ((long)A2[((i + 3) * (n + 4) + (j + 2))] & 1023)) + (long)j;
    }
    A0[i + 1][i][i + 1] += ((((long)A0[i][i + 1][i] & 1023) + ((long)A2[((i + 1) * (n + 4) + (i + 3))] & 1023)) + ((long)A0[i + 2][i][i + 1] & 1023)) & 255;
  }
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s N M (0 <= N, M <= %d)\n", argv[0], NMAX); return 2; }
  int n = atoi(argv[1]), m = atoi(argv[2]);
  if (n < 0 || m < 0 || n > NMAX || m > NMAX) { fprintf(stderr, "sizes out of range\n"); return 2; }
  long c_A2 = (n + 4) * (n + 4) + 4;
  unsigned *b_A2 = fz_alloc(c_A2, sizeof(unsigned));
  fz_init_unsigned(b_A2, c_A2, 3);
  fz_init_long(&A0[0][0][0], (NMAX + 4) * (NMAX + 4) * (NMAX + 4), 1);
  fz_init_double(&A1[0][0], (NMAX + 4) * (NMAX + 4), 2);
  kernel(n, m, b_A2);
  fz_check_unsigned("A2", b_A2, c_A2);
  fz_check_long("A0", &A0[0][0][0], (NMAX + 4) * (NMAX + 4) * (NMAX + 4));
  fz_check_double("A1", &A1[0][0], (NMAX + 4) * (NMAX + 4));
  return 0;
}
// inputs (N M): 3 6, 15 21
