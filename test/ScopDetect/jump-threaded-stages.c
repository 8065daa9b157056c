// Stages of an image pipeline over different interiors, an interleaved RGB input and an
// output cleared by one memset (LLVM's idiom for the loops that zero it) form one
// region: the zero-trip guards LLVM jump-threads to the end leave branches on i1 phis
// (`phi i1 [false, %skip], [true, %done]`) and values like `h - 2` computed on both
// sides of a guard (detect/control.rs, translate.rs); the memset is whole rows of the
// output (`memset(out, 0, h * w * 4)`); the RGB rows are 3 * w long, not w (the
// delinearization drops the factor 3), so the columns lie in their rows and the
// run-time check passes. Outputs are byte-identical to -O3's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/pipe -Rpass=polyrust 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -c -o /dev/null -mllvm -polyrust-codegen=false \
// RUN:   -Rpass-analysis=polyrust 2>&1 | %FileCheck %s --check-prefix=MODEL
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 6 7 33 > %t/plain.out
// RUN: %t/pipe 0 1 2 3 4 5 6 7 33 > %t/pipe.out
// RUN: cmp %t/plain.out %t/pipe.out

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static float *plane(int h, int w) {
  float *p = malloc((size_t)h * w * sizeof(float) + 1);
  if (!p)
    exit(3);
  return p;
}

__attribute__((noinline)) void pipe(int h, int w, const uint8_t *rgb, float *out) {
  float *gray = plane(h, w), *gx = plane(h, w), *sq = plane(h, w);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      gray[y * w + x] = 0.25f * rgb[(y * w + x) * 3] + 0.5f * rgb[(y * w + x) * 3 + 1] +
                        0.25f * rgb[(y * w + x) * 3 + 2];
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      gx[y * w + x] = gray[(y - 1) * w + x + 1] - gray[(y + 1) * w + x - 1];
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      sq[y * w + x] = gx[y * w + x] * gx[y * w + x];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[y * w + x] = 0.0f;
  for (int y = 2; y < h - 2; y++)
    for (int x = 2; x < w - 2; x++)
      out[y * w + x] = sq[(y - 1) * w + x] + sq[(y + 1) * w + x] + sq[y * w + x];
  free(gray);
  free(gx);
  free(sq);
}
// CHECK: jump-threaded-stages.c:[[@LINE-20]]:3: remark: region in pipe at {{.*}} optimized (expression propagation: gray recomputed {{.*}}; gx recomputed {{.*}}; {{[a-z]+}} recomputed where it is read (3 reads)
// MODEL: jump-threaded-stages.c:[[@LINE-21]]:3: remark: SCoP begins here.
// MODEL: jump-threaded-stages.c:[[@LINE-6]]:{{[0-9]+}}: remark: SCoP ends here.
// MODEL-NOT: SCoP begins here

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), h = n, w = n + 3;
    uint8_t *rgb = malloc((size_t)h * w * 3 + 1);
    float *out = malloc((size_t)h * w * sizeof(float) + 1);
    for (int i = 0; i < h * w * 3; i++)
      rgb[i] = (uint8_t)(i * 37 % 251);
    pipe(h, w, rgb, out);
    double s = 0;
    for (int i = 0; i < h * w; i++)
      s += out[i] * (i % 7 + 1);
    printf("%d %.9g\n", n, s);
    free(rgb);
    free(out);
  }
  return 0;
}
