// Expression propagation through reads whose source map is a function of the
// consumer's counters but no shift: reads clamped to the image border
// (`tmp[y][CLAMP(x - 1, 0, w - 1)]`: the producer at column max(x - 1, 0);
// `tmp[CLAMP(y + 1, 0, h - 1)][x]`: at row min(y + 1, h - 1)). The producer's counters
// are computed from isl's expression of the source map, its instructions cloned as they
// are: the results are -O3's, bit for bit. (The paper's Fig. 4, `A[2j] - A[2j - 1]`, is
// a unit test: in C, detection gives A the shape [*][2].)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/propagated -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 \
// RUN:   | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin -mllvm -polyrust-exprprop=false -c %s -o /dev/null \
// RUN:   -Rpass=polyrust -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=OFF
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 17 100 > %t/plain.out
// RUN: %t/propagated 0 1 2 3 4 5 17 100 > %t/propagated.out
// RUN: cmp %t/plain.out %t/propagated.out

#include <stdio.h>
#include <stdlib.h>

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

__attribute__((noinline)) void clamped(int h, int w, const float *restrict in,
                                       float *restrict out) {
  float *tmp = malloc(sizeof(float) * ((size_t)h * w + 1));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      tmp[y * w + x] = in[y * w + x] * in[y * w + x] + 0.5f;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int xm1 = CLAMP(x - 1, 0, w - 1), xp1 = CLAMP(x + 1, 0, w - 1);
      out[y * w + x] = (tmp[y * w + xm1] + 2.0f * tmp[y * w + x] + tmp[y * w + xp1]) * 0.25f;
    }
  free(tmp);
}
// CHECK: clamped-reads.c:[[@LINE-10]]:3: remark: region in clamped at {{.*}} optimized (expression propagation: tmp recomputed where it is read (3 reads), S0 and its stores removed
// OFF: clamped-reads.c:[[@LINE-11]]:3: remark: {{.*}} could be recomputed where it is read (3 reads in {{.*}}): a candidate for expression propagation
// OFF-NOT: expression propagation:

// A row below, clamped to the last row (LLVM keeps the clamp as a minimum).
__attribute__((noinline)) void below(int h, int w, const float *restrict in,
                                     float *restrict out) {
  float *tmp = malloc(sizeof(float) * ((size_t)h * w + 1));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      tmp[y * w + x] = in[y * w + x] * 3.0f - 0.25f;
  for (int y = 0; y < h; y++) {
    int yp1 = CLAMP(y + 1, 0, h - 1);
    for (int x = 0; x < w; x++)
      out[y * w + x] = tmp[y * w + x] * 0.5f + tmp[yp1 * w + x];
  }
  free(tmp);
}
// CHECK: clamped-reads.c:[[@LINE-10]]:3: remark: region in below at {{.*}} optimized (expression propagation: tmp recomputed where it is read (2 reads), S0 and its stores removed

// A separable blur: the consumer's rows are clamped (outside its innermost loop), the
// producer's columns too. Recomputing the producer would bring its clamped columns
// into the consumer's contiguous, vectorized loop: the temporary stays (measured on
// the corpus' blur_sep_pipe: 0.8x of -O3 recomputed).
__attribute__((noinline)) void separable(int h, int w, const float *restrict in,
                                         float *restrict out) {
  float *tmp = malloc(sizeof(float) * ((size_t)h * w + 1));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int xm1 = CLAMP(x - 1, 0, w - 1), xp1 = CLAMP(x + 1, 0, w - 1);
      tmp[y * w + x] = in[y * w + xm1] + 2.0f * in[y * w + x] + in[y * w + xp1];
    }
  for (int y = 0; y < h; y++) {
    int ym1 = CLAMP(y - 1, 0, h - 1), yp1 = CLAMP(y + 1, 0, h - 1);
    for (int x = 0; x < w; x++)
      out[y * w + x] = tmp[ym1 * w + x] + 2.0f * tmp[y * w + x] + tmp[yp1 * w + x];
  }
  free(tmp);
}
// CHECK: clamped-reads.c:[[@LINE-12]]:3: remark: {{.*}} could be recomputed where it is read, but stays: recomputing it in {{.*}} would move reads whose position does not advance by a constant step (a clamp) into its innermost loop, which would no longer vectorize
// CHECK-NOT: region in separable at {{.*}} optimized (expression propagation

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    float *in = malloc(sizeof(float) * ((size_t)n * n + 1));
    float *out = calloc((size_t)n * n + 2 * n + 2, sizeof(float));
    for (int i = 0; i < n * n; i++)
      in[i] = (float)(i % 13) / 7.0f;
    double s = 0;
    clamped(n, n, in, out);
    for (int i = 0; i < n * n; i++)
      s += out[i] * (i % 7 + 1);
    below(n, n, in, out);
    for (int i = 0; i < n * n; i++)
      s += out[i] * (i % 5 + 1);
    separable(n, n, in, out);
    for (int i = 0; i < n * n; i++)
      s += out[i] * (i % 3 + 1);
    printf("%d %.9g\n", n, s);
    free(in);
    free(out);
  }
  return 0;
}
