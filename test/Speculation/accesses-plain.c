// End to end: each nest instrumented for accesses keeps a plain copy (no calls). The
// runtime's polyrust_rt_nest_begin says which copy an entry runs, and
// polyrust_rt_nest_next, between two iterations of the instrumented copy's outermost
// loop, whether the rest of the entry goes on in the plain copy, which calls
// polyrust_rt_nest_plain once per iteration of its outermost loop. Whichever copy
// runs, and wherever the switch happens, the program prints what it prints without
// the plugin. The stand-in runtime (Inputs/print-accesses.c) switches where the
// environment says.
//
// RUN: %clang -O2 -c %S/Inputs/print-accesses.c -o %t.rt.o
// RUN: %clang -O2 -g -fpass-plugin=%plugin -mllvm -polyrust-profile-generate \
// RUN:   -mllvm -polyrust-instrument=accesses %s %t.rt.o -o %t.instr
// RUN: %clang -O2 -g %s -o %t.plain
// RUN: %t.plain > %t.plain.out
//
// Every entry instrumented: the events of all iterations.
// RUN: %t.instr > %t.all.out 2> %t.all.events
// RUN: diff %t.plain.out %t.all.out
// RUN: %FileCheck %s --check-prefix=ALL --match-full-lines < %t.all.events
//
// After one iteration of the outermost loop, the plain copy: rows 1 and 2 leave no
// event but one count each.
// RUN: env PLAIN_AFTER=1 %t.instr > %t.after.out 2> %t.after.events
// RUN: diff %t.plain.out %t.after.out
// RUN: %FileCheck %s --check-prefix=AFTER --match-full-lines < %t.after.events
//
// Every entry in the plain copy: no event at all.
// RUN: env PLAIN_ENTRIES_AFTER=0 %t.instr > %t.none.out 2> %t.none.events
// RUN: diff %t.plain.out %t.none.out
// RUN: %FileCheck %s --check-prefix=NONE --match-full-lines < %t.none.events
//
// ALL:      enter fill
// ALL-NEXT: 0 [0]
// ALL-NEXT: 1 [0,0]
// ALL-NEXT: 2 [0,0] B+0
// ALL-NEXT: 3 [0,0] A+0
// ALL-NEXT: 1 [0,1]
// ALL-NEXT: 2 [0,1] B+8
// ALL-NEXT: 3 [0,1] A+8
// ALL-NEXT: 0 [1]
// ALL:      0 [2]
// ALL:      3 [2,1] A+136
// ALL-NOT:  plain
//
// AFTER:      enter fill
// AFTER-NEXT: 0 [0]
// AFTER-NEXT: 1 [0,0]
// AFTER-NEXT: 2 [0,0] B+0
// AFTER-NEXT: 3 [0,0] A+0
// AFTER-NEXT: 1 [0,1]
// AFTER-NEXT: 2 [0,1] B+8
// AFTER-NEXT: 3 [0,1] A+8
// AFTER-NEXT: plain copy of fill from here
// AFTER-NEXT: plain iteration of fill
// AFTER-NEXT: plain iteration of fill
// AFTER:      enter main
// AFTER-NEXT: 0 [0]
// AFTER-NEXT: 1 [0,0]
// AFTER-NEXT: 2 [0,0] A+0
// AFTER-NEXT: 1 [0,1]
// AFTER-NEXT: 2 [0,1] A+8
// AFTER-NEXT: plain copy of main from here
// AFTER-NEXT: plain iteration of main
// AFTER-NEXT: plain iteration of main
// AFTER-NOT:  {{.}}
//
// NONE:      enter fill
// NONE-NEXT: plain copy of fill
// NONE-NEXT: plain iteration of fill
// NONE-NEXT: plain iteration of fill
// NONE-NEXT: plain iteration of fill
// NONE:      enter main
// NONE-NEXT: plain copy of main
// NONE-NEXT: plain iteration of main
// NONE-NEXT: plain iteration of main
// NONE-NEXT: plain iteration of main
// NONE-NOT:  {{.}}

#include <stdio.h>

double A[8][8], B[8];

__attribute__((noinline)) void fill(int n, int m) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[j] + i;
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
  printf("%s: sum %g, A[2][1] = %g\n", argv[0][0] ? "ok" : "?", sum, A[2][1]);
  return 0;
}
