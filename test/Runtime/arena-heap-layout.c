// The program's memory is laid out as in a plain run: the runtime's own memory is one
// mapping placed far from the program's heap and its mappings, so neither the blocks
// malloc carves from the heap (rows) nor the ones it maps on their own (large arrays,
// placed one below the other) move when instrumented nests run between the
// allocations. The plain and the instrumented program print the same offsets.
// Before, the runtime's reservation was mapped just below the first large array, so
// the next one was 64 GiB further down (issue 35, item 5: pathfinder's src and dst).
// RUN: %clang -O2 -g %s -o %t.plain
// RUN: %t.plain > %t.plain.out
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %rtlib -o %t.inst
// RUN: rm -f %t.json
// RUN: env POLYRUST_PROFILE_FILE=%t.json %t.inst > %t.inst.out
// RUN: diff %t.plain.out %t.inst.out
// RUN: %FileCheck %s < %t.inst.out
// RUN: %polyrust-prof report %t.json | %FileCheck %s --check-prefix=REPORT

// CHECK: row stride breaks: 0
// CHECK: large arrays apart: [[#]] [[#]] [[#]] [[#]] [[#]] [[#]] [[#]]{{$}}
// CHECK: rows from the first block: [[#]] [[#]]

// The nests did run instrumented (their accesses folded).
// REPORT: `fill` at
// REPORT: `sum` at

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 3000, ROW = 10, LARGE = 100000, ARRAYS = 8 };

__attribute__((noinline)) void fill(int *a, int n, int v) {
  for (int i = 0; i < n; i++)
    a[i] = v + i;
}

__attribute__((noinline)) long sum(int *const *rows, int n, int m) {
  long total = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < m; j++)
      total += rows[k][j];
  return total;
}

int main(void) {
  // Allocated before the runtime's first call.
  char *first = malloc(16);
  int *large[ARRAYS];
  large[0] = malloc(LARGE * sizeof(int));
  fill(large[0], LARGE, 1);
  // Every later allocation follows instrumented nests, whose records grow meanwhile.
  for (int a = 1; a < ARRAYS; a++) {
    large[a] = malloc(LARGE * sizeof(int));
    fill(large[a], LARGE, a);
  }
  int **rows = malloc(ROWS * sizeof *rows);
  for (int k = 0; k < ROWS; k++) {
    rows[k] = malloc(ROW * sizeof(int));
    fill(rows[k], ROW, k);
  }
  long breaks = 0;
  for (int k = 2; k < ROWS; k++)
    breaks += (char *)rows[k] - (char *)rows[k - 1] != (char *)rows[1] - (char *)rows[0];
  printf("row stride breaks: %ld\n", breaks);
  printf("large arrays apart:");
  for (int a = 1; a < ARRAYS; a++)
    printf(" %td", (char *)large[a - 1] - (char *)large[a]);
  printf("\nrows from the first block: %td %td\n", (char *)rows[0] - first,
         (char *)rows[ROWS - 1] - first);
  printf("%ld\n", sum(rows, ROWS, ROW) + large[ARRAYS - 1][LARGE - 1]);
  return 0;
}
