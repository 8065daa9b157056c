// End to end: a program compiled with clang -O2 and -polyrust-instrument=accesses,
// linked with a stand-in for the runtime that prints every call (Inputs/print-accesses.c),
// reports each iteration of each loop and each load and store of its nests with the
// iteration vector it happens at (outermost counter first, each from 0, also for a loop
// that steps down and leaves early) and its address; the program itself prints exactly
// what it prints without the plugin.
//
// RUN: %clang -O2 -c %S/Inputs/print-accesses.c -o %t.rt.o
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %t.rt.o -o %t.instr
// RUN: %clang -O2 -g %s -o %t.plain
// RUN: %t.instr > %t.instr.out 2> %t.events
// RUN: %t.plain > %t.plain.out
// RUN: diff %t.plain.out %t.instr.out
// RUN: %FileCheck %s --check-prefix=OUT < %t.instr.out
// RUN: %FileCheck %s --match-full-lines < %t.events
//
// OUT: ok: sum 19, A[2][1] = 2.5, 2 at B[4]
//
// fill (n = 3, m = 2): loop i, loop j, the load of B[j] and the store to A[i][j].
// CHECK-LABEL: nest fill: version 2, 4 sites, depth 2, line [[#FILL:]], modelled 1, (no path)
// CHECK-NEXT:   site 0: loop i, depth 1, 0 bytes, line [[#FILL]], in -1
// CHECK-NEXT:   site 1: loop j, depth 2, 0 bytes, line [[#FILL+1]], in 0
// CHECK-NEXT:   site 2: load B, depth 2, 8 bytes, line [[#FILL+2]], in 1
// CHECK-NEXT:   site 3: store A, depth 2, 8 bytes, line [[#FILL+2]], in 1
// CHECK-NEXT: enter fill
// CHECK-NEXT: 0 [0]
// CHECK-NEXT: 1 [0,0]
// CHECK-NEXT: 2 [0,0] B+0
// CHECK-NEXT: 3 [0,0] A+0
// CHECK-NEXT: 1 [0,1]
// CHECK-NEXT: 2 [0,1] B+8
// CHECK-NEXT: 3 [0,1] A+8
// CHECK-NEXT: 0 [1]
// CHECK-NEXT: 1 [1,0]
// CHECK-NEXT: 2 [1,0] B+0
// CHECK-NEXT: 3 [1,0] A+64
// CHECK-NEXT: 1 [1,1]
// CHECK-NEXT: 2 [1,1] B+8
// CHECK-NEXT: 3 [1,1] A+72
// CHECK-NEXT: 0 [2]
// CHECK-NEXT: 1 [2,0]
// CHECK-NEXT: 2 [2,0] B+0
// CHECK-NEXT: 3 [2,0] A+128
// CHECK-NEXT: 1 [2,1]
// CHECK-NEXT: 2 [2,1] B+8
// CHECK-NEXT: 3 [2,1] A+136
//
// The reduction in main, entered once; the loop over B that clang unrolls fully is no
// loop by then.
// CHECK-NEXT: nest main: version 2, 3 sites, depth 2, line [[#SUM:]], modelled 1, (no path)
// CHECK-NEXT:   site 0: loop i, depth 1, 0 bytes, line [[#SUM]], in -1
// CHECK-NEXT:   site 1: loop j, depth 2, 0 bytes, line [[#SUM+1]], in 0
// CHECK-NEXT:   site 2: load A, depth 2, 8 bytes, line [[#SUM+2]], in 1
// CHECK-NEXT: enter main
// CHECK-NEXT: 0 [0]
// CHECK-NEXT: 1 [0,0]
// CHECK-NEXT: 2 [0,0] A+0
// CHECK-NEXT: 1 [0,1]
// CHECK-NEXT: 2 [0,1] A+8
// CHECK-NEXT: 0 [1]
// CHECK-NEXT: 1 [1,0]
// CHECK-NEXT: 2 [1,0] A+64
// CHECK-NEXT: 1 [1,1]
// CHECK-NEXT: 2 [1,1] A+72
// CHECK-NEXT: 0 [2]
// CHECK-NEXT: 1 [2,0]
// CHECK-NEXT: 2 [2,0] A+128
// CHECK-NEXT: 1 [2,1]
// CHECK-NEXT: 2 [2,1] A+136
//
// find (n = 7) from i = 6 down by 2, leaving at i = 4: iterations 0 and 1; the counter
// has no source name (it does not count from a constant).
// CHECK-NEXT: nest find: version 2, 2 sites, depth 1, line [[#FIND:]], modelled 0, (no path)
// CHECK-NEXT:   site 0: loop , depth 1, 0 bytes, line [[#FIND]], in -1
// CHECK-NEXT:   site 1: load B, depth 1, 8 bytes, line [[#FIND+1]], in 0
// CHECK-NEXT: enter find
// CHECK-NEXT: 0 [0]
// CHECK-NEXT: 1 [0] B+48
// CHECK-NEXT: 0 [1]
// CHECK-NEXT: 1 [1] B+32
// CHECK-NOT: {{.}}

#include <stdio.h>

double A[8][8], B[8];

__attribute__((noinline)) void fill(int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[j] + i;
}

// Steps down by 2 and leaves early: the counter still counts iterations from 0.
__attribute__((noinline)) int find(int n, double key) {
  for (int i = n - 1; i >= 0; i -= 2)
    if (B[i] == key)
      return i;
  return -1;
}

int main(int argc, char **argv) {
  int n = argc + 2, m = argc + 1;
  for (int j = 0; j < 8; j++)
    B[j] = j * 0.5;
  fill(n, m);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      sum += A[i][j] * (i + 1);
  int at = find(argc + 6, 2.0);
  printf("%s: sum %g, A[2][1] = %g, 2 at B[%d]\n", argv[0][0] ? "ok" : "?", sum, A[2][1], at);
  return 0;
}
