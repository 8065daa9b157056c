// A program that calls the runtime by hand, as instrumented code does, linked the
// way users link it; the profile is written at exit to $POLYRUST_PROFILE_FILE.
// RUN: %clang -O1 %s -I%repo/runtime/include %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t
// RUN: %polyrust-prof show %t.json | %FileCheck %s

// CHECK:      loop.c:7 in scale
// CHECK-NEXT:   region scale:1:00ff (module hash 00ff)
// CHECK-NEXT:   entered 10 times
// CHECK:          n  min 100, max 1000; most frequent: 100 (90.0%), 1000 (10.0%)
// CHECK:          n=100   9 entries (90.0%)
// CHECK:        overlaps: none; no two ranges ever overlapped

#include "polyrust_rt.h"

static const char *const value_names[] = {"n"};
static const char *const range_names[] = {"x", "y"};
static const struct polyrust_rt_region scale = {
    POLYRUST_RT_ABI_VERSION, 1, 2, 7, "scale:1:00ff", "scale", "loop.c", "00ff",
    value_names, range_names, 0};

static double x[1000], y[1000];

int main(void) {
  for (int i = 0; i < 10; i++) {
    int64_t n = i == 0 ? 1000 : 100;
    uint64_t ranges[4] = {(uintptr_t)x, (uintptr_t)(x + n), (uintptr_t)y, (uintptr_t)(y + n)};
    polyrust_rt_enter(&scale, &n, ranges);
  }
  return 0;
}
