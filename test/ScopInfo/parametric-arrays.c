// Arrays indexed A[i*m + j] through pointers are delinearized into two dimensions
// with a parametric size; keeping the inner subscript inside its dimension is an
// in-bounds assumption of the model. Pointers that may alias form an alias group.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

void scale_rows(long n, long m, double *A, const double *B) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < m; j++)
      A[i * m + j] = B[i * m + j] + A[i * m + j];
}

// CHECK-LABEL: polyrust-scops: function 'scale_rows'
// CHECK: Parameters: [{{.*}}]
// CHECK: Assumptions:
// CHECK: in-bounds: {{.*}}(subscript of {{A|B}} within its dimension: {{.*}})
// CHECK: Arrays:
// CHECK-DAG: double A[*][m] (8 bytes)
// CHECK-DAG: double B[*][m] (8 bytes)
// CHECK: Alias groups:
// CHECK-NEXT: { {{(A, B|B, A)}} }
// CHECK: Read: [{{.*}}] -> { S0[i0, i1] -> B[i0, i1] }
// CHECK: MustWrite: [{{.*}}] -> { S0[i0, i1] -> A[i0, i1] }
