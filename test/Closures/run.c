// All-pairs shortest paths in place (Floyd-Warshall) give the bytes -O3 gives: on ints
// through the blocked closure kernel (its rows s apart, s = n and s > n), with negative
// edges but no negative cycle, and with a negative cycle early or late, so that the
// kernel's check per block of steps fails and the loops' order runs every step left;
// sizes that fill no block (1, 2, 37), one block exactly (64), and that cross blocks
// (65, 130, 200). The same nest on doubles (another order would round the sums
// differently) and the max-plus one (longest paths) stay loops, with the same bytes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O3 -g -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust %s -o %t/closure 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -march=native -fpass-plugin=%plugin %s -o %t/native
// RUN: %clang -O3 -g %s -o %t/plain
// RUN: %t/plain 1 2 37 64 65 130 200 > %t/plain.out
// RUN: %t/closure 1 2 37 64 65 130 200 > %t/closure.out
// RUN: %t/native 1 2 37 64 65 130 200 > %t/native.out
// RUN: cmp %t/plain.out %t/closure.out
// RUN: cmp %t/plain.out %t/native.out
// RUN: %FileCheck %s --check-prefix=RAN < %t/plain.out
// CHECK-DAG: remark: region in shortest at {{.*}} optimized (min-plus closure d[i][j] = min(d[i][j], d[i][k] + d[k][j]) (all-pairs shortest paths): blocked over k with its rows, behind a check per block of steps that every d[k][k] starts non-negative (no negative cycle), the loops' own order after a block that fails it), behind a run-time check
// CHECK-DAG: remark: region in shortest_strided at {{.*}} optimized (min-plus closure
// CHECK-DAG: remark: region in shortest_double at {{.*}} left unchanged
// CHECK-DAG: remark: region in longest at {{.*}} left unchanged
// The checks below see each case run and its negative cycle found (or not).
// RAN: n 1 negative cycle 0
// RAN: n 130 negative cycle 1
// RAN: n 200 negative cycle 1

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void shortest(int n, int d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}

__attribute__((noinline)) void shortest_strided(int n, int s, int *d) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i * s + j] = d[i * s + k] + d[k * s + j] < d[i * s + j] ? d[i * s + k] + d[k * s + j]
                                                                  : d[i * s + j];
}

__attribute__((noinline)) void shortest_double(int n, double d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}

__attribute__((noinline)) void longest(int n, int d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] > d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}

static unsigned state = 12345;
static int next(int m) {
  state = state * 1103515245u + 12345u;
  return (int)((state >> 8) % (unsigned)m);
}

/* Weights w(i, j) = base + p[i] - p[j] with base >= 0: negative edges, no negative
 * cycle (every cycle weighs its bases); then, with `cycle` >= 0, the pair cycle - 1,
 * cycle made a negative cycle, found at step `cycle`. */
static void graph(int n, int s, int *w, int cycle) {
  int *p = malloc(sizeof(int) * (n ? n : 1));
  for (int i = 0; i < n; i++)
    p[i] = next(200);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < s; j++)
      w[i * s + j] = j < n ? (next(9) == 0 ? 100000 : next(300)) + p[i] - p[j] : -7;
  if (cycle > 0 && cycle < n) {
    w[(cycle - 1) * s + cycle] = -50;
    w[cycle * s + cycle - 1] = 20;
  }
  free(p);
}

static void print_ints(int n, int s, const int *w) {
  long sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < s; j++) {
      printf("%d%c", w[i * s + j], j + 1 < s ? ' ' : '\n');
      sum += w[i * s + j];
    }
  printf("sum %ld\n", sum);
}

static void run(int n, int cycle) {
  int s = n + 3;
  int *w = malloc(sizeof(int) * (n * s + 1));
  graph(n, n, w, cycle);
  shortest(n, (int (*)[n])w);
  int negative = 0;
  for (int i = 0; i < n; i++)
    negative |= w[i * n + i] < 0;
  printf("n %d negative cycle %d\n", n, negative);
  print_ints(n, n, w);
  graph(n, s, w, cycle);
  shortest_strided(n, s, w);
  print_ints(n, s, w);
  graph(n, n, w, cycle);
  longest(n, (int (*)[n])w);
  print_ints(n, n, w);
  double *x = malloc(sizeof(double) * (n * n + 1));
  graph(n, n, w, cycle);
  for (int i = 0; i < n * n; i++)
    x[i] = w[i] * 0.25;
  shortest_double(n, (double (*)[n])x);
  for (int i = 0; i < n * n; i++)
    printf("%.2f%c", x[i], (i + 1) % n ? ' ' : '\n');
  free(x);
  free(w);
}

int main(int argc, char **argv) {
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]);
    /* No negative cycle; one late (a block passes first when n > 64); one early. */
    run(n, -1);
    run(n, n - 4);
    run(n, n > 40 ? 20 : 1);
  }
  return 0;
}
