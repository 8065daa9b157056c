// The k-means update: `membership[i]` is loaded and stored in the `i` loop, around a
// `j` loop that never touches it. The report used to call `j` a reduction through it
// (a load and a store of one address around a loop looked like a value kept in a
// register); only what the compiler saw counts now: `j` is parallel, and `i` is a
// reduction: of `delta` in a register, and of the updates of new_len and new_centers
// through memory (each stores what it loaded from the same address, plus a value).
// (Issue 35, item 2.)
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t > /dev/null
// RUN: %polyrust-prof report %t.json | %FileCheck %s

// CHECK-LABEL: `update` at
// CHECK-NOT:   membership{{.*}}reduction
// CHECK:       | i | {{.*}} | reduction (delta in a register, new_len in memory, new_centers[] in memory) | store new_len@[[#]] → load new_len@[[#]] (a reduction); store new_centers[]@[[#]] → load new_centers[]@[[#]] (a reduction); delta (a + reduction in a register) |
// CHECK-NEXT:  | j | {{.*}} | yes | – |

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) float update(int npoints, int nfeatures, float **feature,
                                       float **new_centers, int *new_len, int *membership,
                                       const int *nearest) {
  float delta = 0;
  for (int i = 0; i < npoints; i++) {
    int index = nearest[i];
    if (membership[i] != index)
      delta += 1.0f;
    membership[i] = index;
    new_len[index]++;
    for (int j = 0; j < nfeatures; j++)
      new_centers[index][j] += feature[i][j];
  }
  return delta;
}

int main(int argc, char **argv) {
  (void)argv;
  int np = 100, nf = argc + 4, nc = 5;
  float **feature = malloc(np * sizeof *feature), **centers = malloc(nc * sizeof *centers);
  int *len = calloc(nc, sizeof *len), *membership = calloc(np, sizeof *membership);
  int *nearest = malloc(np * sizeof *nearest);
  for (int i = 0; i < np; i++) {
    feature[i] = malloc(nf * sizeof(float));
    nearest[i] = (i * 7) % nc;
  }
  for (int c = 0; c < nc; c++)
    centers[c] = calloc(nf, sizeof(float));
  for (int i = 0; i < np; i++)
    for (int j = 0; j < nf; j++)
      feature[i][j] = i + j;
  float delta = update(np, nf, feature, centers, len, membership, nearest);
  printf("%f %f %d\n", delta, centers[2][1], len[3]);
  return 0;
}
