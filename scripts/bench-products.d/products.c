/* The driver of scripts/bench-products: times every configuration's code of each shape
 * (shapes.c, compiled once per configuration) and OpenBLAS's cblas_dgemm on the same
 * operands, interleaved, in one process; checks every result against OpenBLAS's and
 * against -O3's bytes; prints medians, GFLOP/s and the share of OpenBLAS's speed.
 *
 * usage: products SIZE[,SIZE...] REPS CONFIG[,CONFIG...]   (CONFIG: o3 polly polyrust) */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DECLARE(config)                                                                  \
  void vla_scaled_##config(int, double, double, double *, double *, double *);          \
  void dot_rows_##config(int, int, int, const double *, int, const double *, int,       \
                         double *, int);                                                 \
  void transposed_a_##config(int, double *, double *, double *);
DECLARE(o3)
DECLARE(polly)
DECLARE(polyrust)

enum { SHAPES = 3, MAX_CONFIGS = 4, MAX_REPS = 101 };
static const char *const shape_names[SHAPES] = {
    "vla_scaled    C[i][j] *= beta; C[i][j] += alpha * A[i][k] * B[k][j]",
    "dot_rows      sum += A[i*lda + k] * B[j*ldb + k]; C[i*ldc + j] += sum",
    "transposed_a  C[i][j] += A[k][i] * B[k][j]",
};
static const double alpha = 1.5, beta = 1.2;

struct config {
  const char *name;
  void (*vla_scaled)(int, double, double, double *, double *, double *);
  void (*dot_rows)(int, int, int, const double *, int, const double *, int, double *, int);
  void (*transposed_a)(int, double *, double *, double *);
};
static const struct config known[] = {
    {"o3", vla_scaled_o3, dot_rows_o3, transposed_a_o3},
    {"polly", vla_scaled_polly, dot_rows_polly, transposed_a_polly},
    {"polyrust", vla_scaled_polyrust, dot_rows_polyrust, transposed_a_polyrust},
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double *matrix(int n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, sizeof(double) * (size_t)n * n)) {
    fprintf(stderr, "products: out of memory for n = %d\n", n);
    exit(2);
  }
  return p;
}

/* Runs one configuration's code of `shape` (NULL: OpenBLAS) on fresh C; seconds. */
static double run(const struct config *c, int shape, int n, double *C, const double *C0,
                  double *A, double *B) {
  memcpy(C, C0, sizeof(double) * (size_t)n * n);
  double start = now();
  switch (shape) {
  case 0:
    if (c)
      c->vla_scaled(n, alpha, beta, C, A, B);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, alpha, A, n, B, n,
                  beta, C, n);
    break;
  case 1:
    if (c)
      c->dot_rows(n, n, n, A, n, B, n, C, n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, A, n, B, n, 1.0,
                  C, n);
    break;
  default:
    if (c)
      c->transposed_a(n, C, A, B);
    else
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 1.0,
                  C, n);
  }
  return now() - start;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* max |x - ref| / max |ref| */
static double relative_error(const double *x, const double *ref, size_t count) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < count; i++) {
    diff = fmax(diff, fabs(x[i] - ref[i]));
    scale = fmax(scale, fabs(ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

static int bench(int n, int reps, const struct config **configs, int nconfigs) {
  double *A = matrix(n), *B = matrix(n), *C0 = matrix(n), *C = matrix(n);
  double *reference = matrix(n), *o3 = matrix(n);
  size_t count = (size_t)n * n;
  unsigned seed = 12345;
  for (size_t i = 0; i < count; i++) {
    seed = seed * 1103515245u + 12345u;
    A[i] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
    seed = seed * 1103515245u + 12345u;
    B[i] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
    C0[i] = (double)(i % 7) / 7.0;
  }
  int failed = 0;
  double flops = 2.0 * n * (double)n * n;
  for (int shape = 0; shape < SHAPES; shape++) {
    double times[MAX_CONFIGS + 1][MAX_REPS];
    double errors[MAX_CONFIGS];
    int same_as_o3[MAX_CONFIGS];
    for (int r = 0; r < reps; r++) {
      /* OpenBLAS first: its result is the reference the others are checked against. */
      for (int step = 0; step <= nconfigs; step++) {
        int k = step == 0 ? nconfigs : step - 1;
        const struct config *c = k < nconfigs ? configs[k] : NULL;
        fprintf(stderr, "\rn = %d, shape %d/%d, run %d/%d: %-9s", n, shape + 1, SHAPES,
                r + 1, reps, c ? c->name : "openblas");
        times[k][r] = run(c, shape, n, C, C0, A, B);
        if (r > 0)
          continue;
        if (!c) {
          memcpy(reference, C, sizeof(double) * count);
        } else {
          if (!strcmp(c->name, "o3"))
            memcpy(o3, C, sizeof(double) * count);
          errors[k] = relative_error(C, reference, count);
        }
        if (c)
          same_as_o3[k] = !memcmp(C, o3, sizeof(double) * count);
      }
    }
    /* Same bytes as -O3 is known only when -O3 runs first, as it does by default. */
    fprintf(stderr, "\r%60s\r", "");
    double blas = median(times[nconfigs], reps);
    printf("\nn = %d  %s\n", n, shape_names[shape]);
    printf("  %-10s %10s %10s %12s %14s %s\n", "config", "median s", "GFLOP/s",
           "of OpenBLAS", "rel. error", "bytes as -O3");
    for (int k = 0; k < nconfigs; k++) {
      double t = median(times[k], reps);
      int bad = errors[k] > 1e-9;
      failed |= bad;
      printf("  %-10s %10.3f %10.2f %11.0f%% %14.2e %s%s\n", configs[k]->name, t,
             flops / t * 1e-9, 100.0 * blas / t, errors[k],
             strcmp(configs[0]->name, "o3") ? "?" : same_as_o3[k] ? "same" : "differ",
             bad ? "  WRONG (above 1e-9)" : "");
    }
    printf("  %-10s %10.3f %10.2f %11.0f%%\n", "openblas", blas, flops / blas * 1e-9, 100.0);
    fflush(stdout);
  }
  free(A), free(B), free(C0), free(C), free(reference), free(o3);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s SIZE[,SIZE...] REPS CONFIG[,CONFIG...]\n", argv[0]);
    return 2;
  }
  int reps = atoi(argv[2]);
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "products: REPS must be 1 to %d\n", MAX_REPS);
    return 2;
  }
  const struct config *configs[MAX_CONFIGS];
  int nconfigs = 0;
  for (char *name = strtok(argv[3], ","); name; name = strtok(NULL, ",")) {
    const struct config *found = NULL;
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
      if (!strcmp(known[k].name, name))
        found = &known[k];
    if (!found || nconfigs == MAX_CONFIGS) {
      fprintf(stderr, "products: unknown or repeated configuration '%s' (o3, polly, polyrust)\n", name);
      return 2;
    }
    configs[nconfigs++] = found;
  }
  openblas_set_num_threads(1);
  int failed = 0;
  for (char *size = strtok(argv[1], ","); size; size = strtok(NULL, ",")) {
    int n = atoi(size);
    if (n < 1) {
      fprintf(stderr, "products: bad size '%s'\n", size);
      return 2;
    }
    failed |= bench(n, reps, configs, nconfigs);
  }
  return failed;
}
