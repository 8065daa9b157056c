// Stage fusion for folding: a separable blur with clamped borders (whose horizontal
// pass is not recomputed in the vertical one: its clamped reads would enter the
// vectorized loop) runs both passes in one loop over rows, the vertical pass two rows
// behind, and its temporary lives in five rows. A three-stage chain of vertical
// stencils fuses with each stage one row behind the one before. A stage reading its
// temporary transposed does not fuse (nothing would stay in cache between the
// stages), and -polyrust-fusion=false keeps the stages apart. Outputs are -O3's for
// sizes smaller than the stencils, equal to them and larger. (By default the chain's
// and the transposing stage's temporaries are recomputed where they are read instead:
// they fuse only with -polyrust-exprprop=false.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/fused -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/noprop -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust -mllvm -polyrust-exprprop=false 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=NOPROP
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/apart -Rpass=polyrust \
// RUN:   -Rpass-analysis=polyrust -mllvm -polyrust-fusion=false 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=APART
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 6 17 100 > %t/plain.out
// RUN: %t/fused 0 1 2 3 4 5 6 17 100 > %t/fused.out
// RUN: cmp %t/plain.out %t/fused.out
// RUN: %t/noprop 0 1 2 3 4 5 6 17 100 > %t/noprop.out
// RUN: cmp %t/plain.out %t/noprop.out
// RUN: %t/apart 0 1 2 3 4 5 6 17 100 > %t/apart.out
// RUN: cmp %t/plain.out %t/apart.out

#include <stdio.h>
#include <stdlib.h>

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

// CHECK: fused-stages.c:[[@LINE+5]]:{{.*}}region in blur at {{.*}} optimized (2 loop nests fused into one outer loop (the loop at fused-stages.c:[[@LINE+12]] 2 iterations behind); temporary tmp stored as tmp[i0 mod 5][i1]
// NOPROP: fused-stages.c:[[@LINE+4]]:{{.*}}tmp could be recomputed where it is read
// APART-NOT: loop nests fused
__attribute__((noinline)) void blur(int h, int w, const float *in, float *out) {
  float *tmp = malloc(sizeof(float) * (size_t)h * (size_t)w + 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int xm2 = CLAMP(x - 2, 0, w - 1), xm1 = CLAMP(x - 1, 0, w - 1);
      int xp1 = CLAMP(x + 1, 0, w - 1), xp2 = CLAMP(x + 2, 0, w - 1);
      tmp[y * w + x] = (in[y * w + xm2] + 4.0f * in[y * w + xm1] + 6.0f * in[y * w + x] +
                        4.0f * in[y * w + xp1] + in[y * w + xp2]) * 0.0625f;
    }
  for (int y = 0; y < h; y++) {
    int ym2 = CLAMP(y - 2, 0, h - 1), ym1 = CLAMP(y - 1, 0, h - 1);
    int yp1 = CLAMP(y + 1, 0, h - 1), yp2 = CLAMP(y + 2, 0, h - 1);
    for (int x = 0; x < w; x++)
      out[y * w + x] = (tmp[ym2 * w + x] + 4.0f * tmp[ym1 * w + x] + 6.0f * tmp[y * w + x] +
                        4.0f * tmp[yp1 * w + x] + tmp[yp2 * w + x]) * 0.0625f;
  }
  free(tmp);
}

// Each stage a 3-row vertical stencil of the one before (interior rows only).
// NOPROP: fused-stages.c:[[@LINE+4]]:{{.*}}region in chain at {{.*}} optimized (3 loop nests fused into one outer loop (the loop at fused-stages.c:[[@LINE+7]] {{[0-9]+}} iterations behind, the loop at fused-stages.c:[[@LINE+10]] {{[0-9]+}} iterations behind); temporary a stored as a[i0 mod 3][i1]{{.*}}; temporary b stored as b[i0 mod 3][i1]
__attribute__((noinline)) void chain(int h, int w, const float *in, float *out) {
  float *a = malloc(sizeof(float) * (size_t)h * (size_t)w + 1);
  float *b = malloc(sizeof(float) * (size_t)h * (size_t)w + 1);
  for (int y = 1; y < h - 1; y++)
    for (int x = 0; x < w; x++)
      a[y * w + x] = in[(y - 1) * w + x] * in[(y + 1) * w + x] - in[y * w + x];
  for (int y = 2; y < h - 2; y++)
    for (int x = 0; x < w; x++)
      b[y * w + x] = a[(y - 1) * w + x] * a[(y + 1) * w + x] - a[y * w + x];
  for (int y = 3; y < h - 3; y++)
    for (int x = 0; x < w; x++)
      out[y * w + x] = b[(y - 1) * w + x] * b[(y + 1) * w + x] - b[y * w + x];
  free(a);
  free(b);
}

// NOPROP: temporary t keeps its storage
// NOPROP-NOT: region in transposed
__attribute__((noinline)) void transposed(int n, const float *in, float *out) {
  float *t = malloc(sizeof(float) * (size_t)n * (size_t)n + 1);
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      t[y * n + x] = in[y * n + x] * 0.5f + 1.0f;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      out[y * n + x] = t[x * n + y] - t[y * n + x];
  free(t);
}

// A value the first stage carries from one iteration to the next starts from its
// initial value in the fused code (it was lost once: the folded buffer's allocation puts
// a block of its own in front of the original code, which the initial values of the
// loop's phis were looked up by).
// CHECK: fused-stages.c:[[@LINE+4]]:{{.*}}region in running at {{.*}} optimized (2 loop nests fused into one outer loop (the loop at fused-stages.c:[[@LINE+8]] 2 iterations behind); temporary t stored as t[i0 mod 3]
__attribute__((noinline)) void running(int n, const float *in, float *out) {
  float *t = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  float r = 1.0f;
  for (int i = 1; i < n - 1; i++) {
    r = 0.5f * r + in[i];
    t[i] = r + in[i + 1];
  }
  for (int i = 2; i < n - 2; i++)
    out[i] = t[i - 1] - t[i + 1];
  free(t);
}

static void print(const char *what, int h, int w, const float *v) {
  double sum = 0;
  for (int k = 0; k < h * w; k++)
    sum += v[k] * (double)(k % 7 + 1);
  printf("%s %dx%d %.17g", what, h, w, sum);
  for (int k = 0; k < h * w && k < 40; k++)
    printf(" %a", v[k]);
  printf("\n");
}

int main(int argc, char **argv) {
  for (int arg = 1; arg < argc; arg++) {
    int n = atoi(argv[arg]);
    int h = n, w = n + 3;
    float *in = malloc(sizeof(float) * (size_t)h * (size_t)w + 1);
    float *out = calloc((size_t)h * (size_t)w + 1, sizeof(float));
    for (int k = 0; k < h * w; k++)
      in[k] = (float)((k * 37) % 101) / 101.0f;
    blur(h, w, in, out);
    print("blur", h, w, out);
    chain(h, w, in, out);
    print("chain", h, w, out);
    transposed(n, in, out);
    print("transposed", n, n, out);
    running(n, in, out);
    print("running", 1, n, out);
    free(in);
    free(out);
  }
  return 0;
}
