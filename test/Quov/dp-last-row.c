// A dynamic-programming table whose last row is copied out: `D[n * w + j]` is a row
// that is a product of two parameters (not affine as a whole), with the row length
// spelled as a sum (`w = m + 1`). It is modelled as the row `n` of the table, so the
// copy-out nest joins the region, and the table is stored in two rows. (A plain copy
// of the row would become a memcpy after the region, which reads the table there and
// keeps its storage.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin %s -o %t/folded -Rpass=polyrust 2>&1 \
// RUN:   | %FileCheck %s
// RUN: %clang -O3 %s -o %t/plain
// RUN: %t/plain 1 2 3 7 40 333 > %t/plain.out
// RUN: %t/folded 1 2 3 7 40 333 > %t/folded.out
// RUN: cmp %t/plain.out %t/folded.out

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void distances(int n, int m, const char *a, const char *b, int *last) {
  int w = m + 1;
  int *D = malloc(sizeof(int) * (size_t)(n + 1) * (size_t)w);
  if (!D)
    return;
  for (int j = 0; j <= m; j++)
    D[j] = j;
  for (int i = 1; i <= n; i++) {
    D[i * w] = i;
    for (int j = 1; j <= m; j++) {
      int del = D[(i - 1) * w + j] + 1;
      int ins = D[i * w + j - 1] + 1;
      int sub = D[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);
      int best = del < ins ? del : ins;
      D[i * w + j] = sub < best ? sub : best;
    }
  }
  for (int j = 0; j <= m; j++)
    last[j] = m - D[n * w + j];
  free(D);
}
// CHECK: dp-last-row.c:[[@LINE-16]]:3: remark: region in distances at {{.*}} optimized ({{.*}}temporary D stored as D[i0 mod 2][i1]

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    int m = n + 3;
    char *a = malloc((size_t)n + 1);
    char *b = malloc((size_t)m + 1);
    int *last = malloc(sizeof(int) * (size_t)(m + 1));
    for (int i = 0; i < n; i++)
      a[i] = (char)('a' + (i * 7) % 5);
    for (int j = 0; j < m; j++)
      b[j] = (char)('a' + (j * 3) % 4);
    distances(n, m, a, b, last);
    for (int j = 0; j <= m; j++)
      printf("%d ", last[j]);
    printf("\n");
    free(a);
    free(b);
    free(last);
  }
  return 0;
}
