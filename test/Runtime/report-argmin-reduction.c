// An argmin (k-means' nearest centre: `if (dist < min_dist) { min_dist = dist; index =
// c; }`) carries two values in registers, the minimum and the index chosen by the same
// comparison: the compiler names both a reduction (an argmin/argmax), the report calls
// the loop a reduction, never `yes`, where it said `no` (two values carried to the next
// iteration). An int maximum with its index too. A look-alike whose index follows
// another test than the minimum's is no argmin: its index stays a value carried to the
// next iteration. (Issue 35, item 1: kmeans' argmin loop.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t | %FileCheck %s --check-prefix=OUT
// RUN: %polyrust-prof report %t.json > %t.report
// RUN: %FileCheck %s --check-prefix=NEAREST < %t.report
// RUN: %FileCheck %s --check-prefix=PEAK < %t.report
// RUN: %FileCheck %s --check-prefix=LOOK < %t.report

// OUT: 384 1005 33 191 0

// The nests are in the order of their accesses: one check of the report each.
// LOOK-LABEL: `last_small` at
// LOOK:        | i | {{[0-9]+}} | 1 | {{.*}} | no | least (a min/max reduction in a register); at (carried in a register to the next iteration) |

// PEAK-LABEL: `peak` at
// PEAK:       | i | {{[0-9]+}} | 1 | {{.*}} | reduction ({{.*}}) | at (an argmin/argmax reduction in a register); best (an argmin/argmax reduction in a register) |

// NEAREST-LABEL: `nearest` at
// NEAREST:       | c | {{[0-9]+}} | 1 | {{.*}} | reduction ({{.*}}) | min_dist (an argmin/argmax reduction in a register); index (an argmin/argmax reduction in a register) |

#include <stdio.h>

enum { N = 200, K = 7, D = 3 };

static inline float euclid(const float *a, const float *b) {
  float s = 0;
  for (int d = 0; d < D; d++)
    s += (a[d] - b[d]) * (a[d] - b[d]);
  return s;
}

__attribute__((noinline)) int nearest(const float *pt, float (*centres)[D], int k) {
  float min_dist = 3.0e38f;
  int index = 0;
  for (int c = 0; c < k; c++) {
    float dist = euclid(pt, centres[c]);
    if (dist < min_dist) {
      min_dist = dist;
      index = c;
    }
  }
  return index;
}

__attribute__((noinline)) int peak(const int *v, int n, int *where) {
  int best = v[0], at = 0;
  for (int i = 1; i < n; i++) {
    if (v[i] > best) {
      best = v[i];
      at = i;
    }
  }
  *where = at;
  return best;
}

// Not an argmin: the index follows another test than the one that keeps the minimum.
__attribute__((noinline)) int last_small(const int *v, int n, int limit, int *low) {
  int least = v[0], at = 0;
  for (int i = 1; i < n; i++) {
    if (v[i] < least)
      least = v[i];
    if (v[i] < limit)
      at = i;
  }
  *low = least;
  return at;
}

int main(void) {
  static float pts[N][D], centres[K][D];
  static int v[N];
  for (int c = 0; c < K; c++)
    for (int d = 0; d < D; d++)
      centres[c][d] = (float)((c * 37 + d * 11) % 23);
  long sum = 0;
  for (int p = 0; p < N; p++) {
    for (int d = 0; d < D; d++)
      pts[p][d] = (float)((p * 13 + d * 7) % 29);
    v[p] = (p * 7919) % 1009;
    sum += nearest(pts[p], centres, K);
  }
  int where, low;
  int best = peak(v, N, &where);
  int at = last_small(v, N, 100, &low);
  printf("%ld %d %d %d %d\n", sum, best, where, at, low);
  return 0;
}
