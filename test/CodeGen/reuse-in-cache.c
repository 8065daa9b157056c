// Tiling only pays where a loop carries reuse across more data than the cache holds
// (transform/reuse.rs). A product of matrices is left alone at 40 x 40 (all of
// B is 12.5 KiB) and transformed at 1024 x 1024 (B is 8 MiB); a stencil whose planes fit is
// refused before its dependences are computed. L2 is given so that the figures do not
// depend on the machine, and unrolling is off so that -O3 keeps the 40-iteration loop.
// Products are off: the packed kernel (test/Products) would take both products.
// RUN: %clang -O3 -fno-unroll-loops -g -c -o /dev/null -fpass-plugin=%plugin -mllvm -polyrust-l2-cache=512K \
// RUN:   -mllvm -polyrust-products=false -Rpass-missed=polyrust -Rpass=polyrust %s 2>&1 | %FileCheck %s

double A40[40][40], B40[40][40], C40[40][40];
void small(void) {
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      for (int k = 0; k < 40; k++)
        C40[i][j] += A40[i][k] * B40[j][k];
}
// CHECK: reuse-in-cache.c:[[@LINE-5]]:3: remark: region in small at reuse-in-cache.c:[[@LINE-5]] left unchanged: every reuse of an element spans at most 13440 bytes of data, which stays in cache (half of L2: 256 KiB) (nothing to gain from tiling), and no loop order would make a strided innermost access contiguous (nothing to reorder)

double A[1024][1024], B[1024][1024], C[1024][1024];
void large(void) {
  for (int i = 0; i < 1024; i++)
    for (int j = 0; j < 1024; j++)
      for (int k = 0; k < 1024; k++)
        C[i][j] += A[i][k] * B[k][j];
}
// CHECK: reuse-in-cache.c:[[@LINE-5]]:3: remark: region in large at reuse-in-cache.c:[[@LINE-5]] optimized ({{.*}}), behind a run-time check

double U[64][64][64], V[64][64][64];
void stencil(void) {
  for (int i = 1; i < 63; i++)
    for (int j = 1; j < 63; j++)
      for (int k = 0; k < 64; k++)
        V[i][j][k] = U[i - 1][j][k] + U[i + 1][j][k] + U[i][j - 1][k] + U[i][j + 1][k];
}
// CHECK: reuse-in-cache.c:[[@LINE-5]]:3: remark: region in stencil at reuse-in-cache.c:[[@LINE-5]] left unchanged: every reuse of an element spans at most {{[0-9]+}} KiB of data, which stays in cache
