// A loop header's phi used after the region (LLVM keeps A2[1] and A2[2] in registers
// across the loops and stores them after the nest) must not be given the value of its
// slot: the latch's statement writes the slot in the last iteration too, with the
// value for an iteration that does not run. Under -polyrust-force-codegen this region
// printed wrong values for A2[2] (fuzz seed 9301); it was then left unchanged, with the
// reason. Since the pass puts loops in LCSSA form first, the value leaves the loop
// through a phi of its exit, which code generation gives the right value: the region is
// generated, and the program prints what -O3 prints.
// RUN: %clang -O3 -w %s -o %t.o3
// RUN: %clang -O3 -w %s -o %t.forced -fpass-plugin=%plugin -mllvm -polyrust-force-codegen \
// RUN:   -Rpass=polyrust -Rpass-missed=polyrust 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: %t.o3 6 1 > %t.expected
// RUN: %t.forced 6 1 > %t.got
// RUN: diff %t.expected %t.got
// RUN: %t.o3 21 9 > %t.expected
// RUN: %t.forced 21 9 > %t.got
// RUN: diff %t.expected %t.got
// RUN: %t.o3 9 21 > %t.expected
// RUN: %t.forced 9 21 > %t.got
// RUN: diff %t.expected %t.got
// RUN: %t.o3 0 3 > %t.expected
// RUN: %t.forced 0 3 > %t.got
// RUN: diff %t.expected %t.got
#include <stdio.h>
#include <stdlib.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static __attribute__((noinline)) void kernel(int n, int m, long *restrict A0, long *restrict A1,
                                             unsigned *A2) {
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < MIN(n, m); j++) {
      A0[1] = ((long)A0[1] & 1023) * ((long)A2[0] & 1023);
      for (int k = 0; k <= i; k++) {
        if (i > k) {
          unsigned t1 = (((unsigned)A0[0] & 1023) + ((unsigned)A0[0] & 1023)) + (unsigned)j;
          A2[2] = t1 + (unsigned)j;
          A1[3] = ((long)t1 & 1023);
        }
        A2[2] = (((unsigned)A2[1] & 1023) * 5) + ((unsigned)A2[0] & 1023);
        A2[1] = (unsigned)k + ((unsigned)A1[0] & 1023);
      }
    }
    A0[3] = (((long)A2[1] & 1023) * ((long)A2[3] & 1023)) + (long)i;
  }
}
// REMARK: live-out-loop-phi.c:[[#LINE:]]:3: remark: region in kernel at live-out-loop-phi.c:{{[0-9]+}} optimized (original schedule (forced)), behind a run-time check

int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  long A0[16], A1[16];
  unsigned A2[16];
  for (int k = 0; k < 16; k++) {
    A0[k] = k * 37 % 11;
    A1[k] = k * 13 % 7;
    A2[k] = k * 29 % 13;
  }
  kernel(n, m, A0, A1, A2);
  for (int k = 0; k < 16; k++)
    printf("%ld %ld %u\n", A0[k], A1[k], A2[k]);
  return 0;
}
