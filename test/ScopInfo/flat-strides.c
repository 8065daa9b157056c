// A flat index into a fixed-size global (LLVM folds the GEPs into one byte offset, as
// in NPB's SP): the strides 1369, 37 and 1 give the inner dimensions [37][37], each
// subscript assumed within its dimension (detect/access.rs, strides_shape). Without
// them the model is one-dimensional, and its dependences between rows cost isl
// seconds.
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output 2>&1 \
// RUN:   | %FileCheck %s

static double lhs[5][37][37][37];
int grid[3];

void sweep(void) {
  double *p = &lhs[0][0][0][0];
  for (int j = 0; j < grid[1] - 1; j++)
    for (int k = 0; k < grid[2] - 1; k++)
      p[2 * 50653 + j * 37 + k + 38] = p[1 * 50653 + j * 37 + k + 38] * 0.5;
  for (int i = 0; i < grid[0] - 2; i++)
    for (int j = 0; j < grid[1] - 2; j++)
      for (int k = 0; k < grid[2] - 2; k++)
        p[i * 1369 + j * 37 + k + 1406] += p[3 * 50653 + i * 1369 + j * 37 + k + 1406];
}

// CHECK: in-bounds: {{.*}} { S2[i0, i1] : -1 <= i0 <= 35 } (subscript of lhs within its dimension: 0 <= i0 + 1 < 37 in lhs[37, i0 + 1, i1 + 1])
// CHECK: in-bounds: {{.*}} { S5[i0, i1, i2] : 0 <= i2 <= 36 } (subscript of lhs within its dimension: 0 <= i2 < 37 in lhs[i0 + 1, i1 + 1, i2])
// CHECK: Arrays:
// CHECK: double lhs[*][37][37] (8 bytes)
// CHECK: Read: {{.*}} { S2[i0, i1] -> lhs[37, 1 + i0, 1 + i1] }
// CHECK-NEXT: MustWrite: {{.*}} { S2[i0, i1] -> lhs[74, 1 + i0, 1 + i1] }
// CHECK: Read: {{.*}} { S5[i0, i1, i2] -> lhs[112 + i0, 1 + i1, i2] }
// CHECK-NEXT: Read: {{.*}} { S5[i0, i1, i2] -> lhs[1 + i0, 1 + i1, i2] }
// CHECK-NEXT: MustWrite: {{.*}} { S5[i0, i1, i2] -> lhs[1 + i0, 1 + i1, i2] }

// Strides that do not divide each other give no shape: the array stays flat.
static double flat[4096];
void uneven(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 30; j++)
      flat[i * 50 + j] += flat[i * 37 + j];
}
// CHECK: double flat[*] (8 bytes)
