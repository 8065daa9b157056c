// A loop nest the region before it cannot take in is named, with why, in an analysis
// remark at that nest and in print<polyrust-detect>: here a call that may access
// memory between two stages keeps them in two regions (which cannot fuse).
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -c -o /dev/null -Rpass-analysis=polyrust 2>&1 \
// RUN:   | %FileCheck %s
// RUN: %clang -O3 -g -fno-vectorize -fno-unroll-loops -S -emit-llvm %s -o - \
// RUN:   | %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=PRINT

#include <stdlib.h>

void note(const float *);

void stages(int h, int w, const float *in, float *out) {
  float *t = malloc(sizeof(float) * (size_t)h * (size_t)w + 1);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      t[y * w + x] = in[y * w + x] * 0.5f;
  note(t);
  // CHECK: region-stops.c:[[@LINE+3]]:3: remark: the region before this loop does not extend over it (the loops stay apart, they cannot fuse): call to a function that may access memory: note
  // PRINT: region stops before loop {{.*}} at {{.*}}region-stops.c:[[@LINE+2]]:3:
  // PRINT-NEXT: unknown-call: call to a function that may access memory: note
  for (int y = 1; y < h - 1; y++)
    for (int x = 0; x < w; x++)
      out[y * w + x] = t[(y - 1) * w + x] + t[(y + 1) * w + x];
  free(t);
}
