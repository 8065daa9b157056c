// The closure kernel itself (passes/kernels/closure.c, as the plugin builds it: -O3
// -mavx2 -mfma) against the loops it replaces on 400 random graphs: sizes 0 to 199
// (blocks of 64 filled or not), rows up to 4 ints longer than n, weights with negative
// edges and negative cycles early and late (the check per block of steps fails and the
// loops' order runs from there); every element must be the loops'. The last line counts
// the cases with a negative cycle, so that the fallback is seen to run.
// REQUIRES: avx2-fma
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -mavx2 -mfma -c %repo/passes/kernels/closure.c -o %t/closure.o
// RUN: %clang -O3 %s %t/closure.o -o %t/random
// RUN: %t/random | %FileCheck %s
// CHECK-NOT: differ
// CHECK: 0 differ, {{[1-9][0-9]*}} with a negative cycle, {{[1-9][0-9]*}} with negative edges and none

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void polyrust_min_plus_closure_i32(long n, int *p, long s);

__attribute__((noinline)) static void loops(int n, int s, int *d) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i * s + j] = d[i * s + j] < d[i * s + k] + d[k * s + j] ? d[i * s + j]
                                                                  : d[i * s + k] + d[k * s + j];
}

static unsigned state = 1;
static int next(int m) {
  state = state * 1103515245u + 12345u;
  return (int)((state >> 8) % (unsigned)m);
}

int main(void) {
  int differ = 0, cycles = 0, negative_edges = 0;
  for (int t = 0; t < 400; t++) {
    int n = next(200), s = n + next(5);
    int *a = malloc(sizeof(int) * (s * n + 1)), *b = malloc(sizeof(int) * (s * n + 1));
    int *pot = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++)
      pot[i] = next(100);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < s; j++)
        a[i * s + j] = next(400) + (j < n ? pot[i] - pot[j] : 0);
    /* One in two: a negative pair cycle at a random step (few steps after it, so the
     * loops' sums stay small). */
    if (t % 2 && n > 1) {
      int v = n - 1 - next(n < 8 ? n - 1 : 8);
      if (v > 0) {
        a[(v - 1) * s + v] = -300;
        a[v * s + v - 1] = 100;
      }
    }
    memcpy(b, a, sizeof(int) * s * n);
    loops(n, s, a);
    polyrust_min_plus_closure_i32(n, b, s);
    int negative = 0;
    for (int i = 0; i < n; i++)
      negative |= a[i * s + i] < 0;
    cycles += negative;
    negative_edges += !negative && n > 1;
    if (memcmp(a, b, sizeof(int) * s * n)) {
      differ++;
      printf("differ: case %d n %d s %d\n", t, n, s);
    }
    free(a);
    free(b);
    free(pot);
  }
  printf("%d differ, %d with a negative cycle, %d with negative edges and none\n", differ, cycles,
         negative_edges);
  return 0;
}
