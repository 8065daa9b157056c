// Subscripts clamped to the image (`CLAMP(x - 1, 0, w - 1)`, which LLVM turns into
// usub.sat and smin) of an array with a parametric row length: LLVM's delinearization
// gives up on them, detection splits each offset into row and column against the row
// length the other accesses show, and the model reads them as piecewise-affine
// accesses. Before, the nest was rejected ("non-affine subscript").
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s
// RUN: %detect %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: %clang -O3 %s -o %t.o3
// RUN: %clang -O3 %s -o %t.forced -fpass-plugin=%plugin -mllvm -polyrust-force-codegen
// RUN: bash -c 'for n in 0 1 2 3 4 5 33 100; do %t.o3 $n > %t.expected && %t.forced $n > %t.got \
// RUN:   && diff %t.expected %t.got || exit 1; done'
#include <stdio.h>
#include <stdlib.h>

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

__attribute__((noinline)) void hblur(int h, int w, const float *in, float *out) {
  // REMARK: clamped-subscripts.c:[[@LINE+1]]:3: remark: SCoP begins here.
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int xm1 = CLAMP(x - 1, 0, w - 1), xp1 = CLAMP(x + 1, 0, w - 1);
      out[y * w + x] = (in[y * w + xm1] + 2.0f * in[y * w + x] + in[y * w + xp1]) * 0.25f;
    }
}
// CHECK-LABEL: Scop hblur
// CHECK: Arrays:
// CHECK-NEXT: float [[IN:p_[0-9]+]][*][[[W:p_[0-9]+]]]
// CHECK: Read: {{.*}} { S0[i0, i1] -> [[IN]][i0, 0] : i1 <= 0; S0[i0, i1] -> [[IN]][i0, -1 + i1] : i1 > 0 }
// CHECK-NEXT: Read: {{.*}} { S0[i0, i1] -> [[IN]][i0, i1] }
// CHECK-NEXT: Read: {{.*}} { S0[i0, i1] -> [[IN]][i0, 1 + i1] : i1 <= -3 + [[W]]; S0[i0, i1] -> [[IN]][i0, -1 + [[W]]] : i1 >= -2 + [[W]] }
// REMARK-NOT: non-affine subscript: read of in

// A row clamped from below: LLVM computes `CLAMP(y - 2, 0, h - 1) * w` in front of the
// inner loop as a branch on `y < 2` and phis (guard phis); detection reads each phi as
// the selection of its incoming values by the conditions of their edges.
__attribute__((noinline)) void vblur(int h, int w, const float *in, float *out) {
  // REMARK: clamped-subscripts.c:[[@LINE+1]]:3: remark: SCoP begins here.
  for (int y = 0; y < h; y++) {
    int ym2 = CLAMP(y - 2, 0, h - 1), yp1 = CLAMP(y + 1, 0, h - 1);
    for (int x = 0; x < w; x++)
      out[y * w + x] = in[ym2 * w + x] + 2.0f * in[y * w + x] + in[yp1 * w + x];
  }
}
// CHECK-LABEL: Scop vblur
// CHECK: Read: {{.*}} { S0[i0, i1] -> [[IN2:p_[0-9]+]][0, i1] : i0 <= 1; S0[i0, i1] -> [[IN2]][-2 + i0, i1] : i0 >= 2 }
// CHECK: Read: {{.*}} -> [[IN2]][i0, i1] }
// REMARK-NOT: non-affine subscript

// A row that is a quotient (`(y / 2) * w`, an upsampling), clamped to the last row.
__attribute__((noinline)) void upsample(int h, int w, const float *in, float *out) {
  int h2 = (h + 1) / 2;
  // REMARK: clamped-subscripts.c:[[@LINE+1]]:3: remark: SCoP begins here.
  for (int y = 0; y < h; y++) {
    int ya = y / 2, yb = (y + 1) / 2 < h2 - 1 ? (y + 1) / 2 : h2 - 1;
    for (int x = 0; x < w; x++)
      out[y * w + x] = 0.5f * (in[ya * w + x] + in[yb * w + x]);
  }
}
// CHECK-LABEL: Scop upsample
// CHECK: Read: {{.*}} { S0[i0, i1] -> [[IN3:p_[0-9]+]][o0, i1] : -1 + i0 <= 2o0 <= i0 }
// REMARK-NOT: non-affine subscript

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  float *in = malloc(sizeof(float) * ((size_t)n * n + 1));
  float *out = calloc((size_t)n * n + 1, sizeof(float));
  for (int i = 0; i < n * n; i++)
    in[i] = (float)(i % 13) / 7.0f;
  hblur(n, n, in, out);
  double s = 0;
  for (int i = 0; i < n * n; i++)
    s += out[i] * (i % 7 + 1);
  upsample(n, n, in, out);
  for (int i = 0; i < n * n; i++)
    s += out[i] * (i % 3 + 1);
  vblur(n, n, in, out);
  for (int i = 0; i < n * n; i++)
    s += out[i] * (i % 5 + 1);
  printf("%d %.9g\n", n, s);
  free(in);
  free(out);
  return 0;
}
