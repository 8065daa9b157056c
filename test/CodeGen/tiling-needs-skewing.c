// A time-iterated stencil loses reuse across its time loop, but no band of its loops can
// be tiled by reordering and shifting alone (transform/permutable.rs): a dependence
// carried by the time loop goes backwards in each space loop. Time tiles (skewed, see
// time-tiling.c) would not gain on this in-place sweep, whose innermost loop waits for
// the value it wrote one iteration before: its rows run along a wavefront instead
// (row-wavefront.c), without asking isl's scheduler. A product of matrices in a loop
// that repeats it, whose innermost loop accumulates into the element it writes, is
// still tiled.
// RUN: %clang -O3 -fno-unroll-loops -g -c -o /dev/null -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=512K \
// RUN:   -Rpass-missed=polyrust -Rpass=polyrust %s 2>&1 | %FileCheck %s

void gauss_seidel(int n, int steps, double *u) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i * n + j] = (u[(i - 1) * n + j - 1] + u[(i - 1) * n + j + 1] + u[i * n + j - 1] +
                        u[i * n + j + 1] + u[(i + 1) * n + j - 1] + u[(i + 1) * n + j + 1]) / 6.0;
}
// CHECK: tiling-needs-skewing.c:[[@LINE-6]]:3: remark: region in gauss_seidel at tiling-needs-skewing.c:[[@LINE-6]] optimized (rows interleaved: loop 3, which waits for its own previous iteration, skewed by 2 per row of loop 2, 16 rows' chains at a time), behind a run-time check

double A[1024][1024], B[1024][1024], C[1024][1024];
void products(int times) {
  for (int r = 0; r < times; r++)
    for (int i = 0; i < 1024; i++)
      for (int j = 0; j < 1024; j++)
        for (int k = 0; k < 1024; k++)
          C[i][j] += A[i][k] * B[k][j];
}
// CHECK: tiling-needs-skewing.c:[[@LINE-6]]:3: remark: region in products at tiling-needs-skewing.c:[[@LINE-6]] optimized ({{.*}}tiled{{.*}}), behind a run-time check
