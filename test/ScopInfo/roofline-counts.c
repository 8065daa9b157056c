// print<polyrust-roofline>: each region's floating-point operations (iterations times the
// operations of the statement, an FMA counting two), integer operations on loaded values
// (what the roofline counts where there is no floating-point one) and compulsory traffic (distinct
// elements read and written, times their size), which scripts/bench --roofline reads.
// The sizes are constants, so the counts are numbers; with a parameter the region is
// said to be not counted.
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-roofline>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s
#define N 100
#define M 60

double A[N][M], B[M][N], C[N][N], x[N + 2], y[N];

// C += A * B: N*N*M multiply-adds (fmuladd under the default -ffp-contract=on: 2 each);
// A and B read once, C read and written once.
__attribute__((noinline)) void product(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < M; k++)
        C[i][j] += A[i][k] * B[k][j];
}
// CHECK-LABEL: polyrust-roofline: function 'product'
// CHECK-NEXT: roofline {{.*}}: flops 1200000 read-bytes 176000 written-bytes 80000 int-ops 0
// CHECK-NEXT: S0: 600000 iterations x 2 flops, 0 integer operations

// Overlapping reads count once: x[i], x[i+1], x[i+2] touch N+2 elements, not 3N; and
// as the region reads them: LLVM carries x[i] over from the previous iteration's x[i+1]
// in a register (x[0] is loaded before the loop), so the region reads N+1 of them.
// A triangle of C is read and written.
__attribute__((noinline)) void stencil(void) {
  for (int i = 0; i < N; i++)
    y[i] = (x[i] + x[i + 1]) + x[i + 2];
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      C[i][j] = C[i][j] * 0.5;
}
// CHECK-LABEL: polyrust-roofline: function 'stencil'
// CHECK: roofline {{.*}}: flops 5250 read-bytes 41208 written-bytes 41200
// CHECK-DAG: 100 iterations x 2 flops
// CHECK-DAG: 5050 iterations x 1 flops
// CHECK-DAG: read x: 101 elements x 8 bytes
// CHECK-DAG: read C: 5050 elements x 8 bytes
// CHECK-DAG: written y: 100 elements x 8 bytes
// CHECK-DAG: written C: 5050 elements x 8 bytes

// Shortest paths on ints: no floating-point operation; an add and a min per iteration
// (the loop counters and addresses are not counted).
#define P 50
int paths[P][P];
__attribute__((noinline)) void shortest(void) {
  for (int k = 0; k < P; k++)
    for (int i = 0; i < P; i++)
      for (int j = 0; j < P; j++)
        paths[i][j] = paths[i][j] < paths[i][k] + paths[k][j] ? paths[i][j]
                                                               : paths[i][k] + paths[k][j];
}
// CHECK-LABEL: polyrust-roofline: function 'shortest'
// CHECK-NEXT: roofline {{.*}}: flops 0 read-bytes 10000 written-bytes 10000 int-ops 250000
// CHECK-NEXT: S0: 125000 iterations x 0 flops, 2 integer operations

__attribute__((noinline)) void sized(int n, float *v) {
  for (int i = 0; i < n; i++)
    v[i] = v[i] * 2.0f;
}
// CHECK-LABEL: polyrust-roofline: function 'sized'
// CHECK-NEXT: roofline {{.*}}: not counted: {{.*}}parameters
