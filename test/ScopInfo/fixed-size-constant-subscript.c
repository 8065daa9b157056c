// A 4-D fixed-size array indexed u[k][j][i][m] with a constant m (the layout of NPB
// BT's u and rhs): the flat offset splits into the source's four subscripts, constant
// offsets go to the dimension they belong to, and no in-bounds assumption is false.
// Before, the constant 3 was split as -2 with 1 carried to i (u[k][j][i + 1][-2]), an
// assumption no execution satisfies.
// RUN: %o3ir -fno-discard-value-names %s | %opt %loadpolyrust -passes='print<polyrust-scops>' \
// RUN:   -disable-output 2>&1 | %FileCheck %s

#define K 64
double u[K][K + 1][K + 1][5];
double r[K][K + 1][K + 1][5];

void stencil(int nk, int nj, int ni) {
  for (int k = 1; k < nk; k++)
    for (int j = 0; j < nj; j++)
      for (int i = 0; i < ni; i++)
        r[k][j][i][1] = u[k][j][i][3] + u[k][j][i + 1][4] + u[k - 1][j][i][2];
}

// CHECK-LABEL: polyrust-scops: function 'stencil'
// The rows of 65 bound nj and ni; i + 1 needs ni <= 64; the 64 planes of the globals
// bound nk.
// CHECK: Assumed context: {{.*}}(2 <= nk <= 64 and 0 < nj <= 65 and ni <= 64)
// The constant last subscripts lie in their dimension of 5: nothing to assume.
// CHECK: Assumptions:
// CHECK-NOT: false
// CHECK-NOT: < 5 in
// CHECK: in-bounds: [nk, nj, ni] -> { S0[i0, i1, i2] : 0 <= i1 <= 64 } (subscript of u within its dimension: 0 <= i1 < 65 in u[i0 + 1, i1, i2, 3])
// CHECK-NOT: false
// CHECK-NOT: < 5 in
// CHECK: in-bounds: [nk, nj, ni] -> { S0[i0, i1, i2] : -1 <= i2 <= 63 } (subscript of u within its dimension: 0 <= i2 + 1 < 65 in u[i0 + 1, i1, i2 + 1, 4])
// CHECK-NOT: false
// CHECK-NOT: < 5 in
// CHECK: Arrays:
// CHECK-NEXT: double u[*][65][65][5] (8 bytes)
// CHECK-NEXT: double r[*][65][65][5] (8 bytes)
// CHECK: Domain: [nk, nj, ni] -> { S0[i0, i1, i2] : 0 <= i0 <= -2 + nk and 0 <= i1 < nj and 0 <= i2 < ni }
// CHECK: Read: [nk, nj, ni] -> { S0[i0, i1, i2] -> u[1 + i0, i1, i2, 3] }
// CHECK-NEXT: Read: [nk, nj, ni] -> { S0[i0, i1, i2] -> u[1 + i0, i1, 1 + i2, 4] }
// CHECK-NEXT: Read: [nk, nj, ni] -> { S0[i0, i1, i2] -> u[i0, i1, i2, 2] }
// CHECK-NEXT: MustWrite: [nk, nj, ni] -> { S0[i0, i1, i2] -> r[1 + i0, i1, i2, 1] }
