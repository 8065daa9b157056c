// Accepted: perfect and imperfect nests, triangular and parametric bounds, affine ifs
// with && and ||, and consecutive nests merged into one region.
// RUN: %detect %s 2>&1 | %FileCheck %s
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-detect>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s --check-prefix=PRINT

void perfect(int n, int m, double *restrict A, const double *restrict B) {
  for (int i = 0; i < n; i++)      // CHECK: accept-nests.c:[[@LINE]]:3: remark: SCoP begins here.
    for (int j = 0; j < m; j++)
      A[i * m + j] = 2.0 * B[i * m + j];
}                                  // CHECK: remark: SCoP ends here.

void imperfect_triangular(int n, double *restrict A, double *restrict s) {
  for (int i = 0; i < n; i++) {    // CHECK: accept-nests.c:[[@LINE]]:3: remark: SCoP begins here.
    s[i] = 0.0;
    for (int j = 0; j <= i; j++)
      s[i] += A[i * n + j];
    s[i] *= 0.5;
  }
}

void affine_ifs(int n, double *restrict A) {
  for (int i = 0; i < n; i++)      // CHECK: accept-nests.c:[[@LINE]]:3: remark: SCoP begins here.
    for (int j = 0; j < n; j++) {
      if ((i < j && j < n - 2) || j == 2 * i)
        A[i * n + j] = 1.0;
      if (i >= 2 * j + 1)
        A[i * n + j] += 2.0;
    }
}

void consecutive(int n, double *restrict A, double *restrict B) {
  for (int i = 0; i < n; i++)      // CHECK: accept-nests.c:[[@LINE]]:3: remark: SCoP begins here.
    A[i] = i;
  for (int i = 0; i < n; i++)      // CHECK-NOT: accept-nests.c:[[@LINE]]:3: remark: SCoP begins here.
    B[i] = A[i] * 2.0;
}
// CHECK-NOT: remark: loop not modelled

// PRINT-LABEL: polyrust-detect: function 'perfect'
// PRINT-NEXT: region perfect:{{.*}}: 1 loop nest, 2 loops, depth 2, 1 statement
// PRINT-LABEL: polyrust-detect: function 'imperfect_triangular'
// PRINT-NEXT: region imperfect_triangular:{{.*}}: 1 loop nest, 2 loops, depth 2
// PRINT-LABEL: polyrust-detect: function 'affine_ifs'
// PRINT-NEXT: region affine_ifs:{{.*}}: 1 loop nest, 2 loops, depth 2
// PRINT-LABEL: polyrust-detect: function 'consecutive'
// PRINT-NEXT: region consecutive:{{.*}}: 2 loop nests, 2 loops, depth 1
// PRINT-NOT: rejected
