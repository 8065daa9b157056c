// A statement with a data-dependent branch inside (a store under `if (v > thr)`, as
// real code has them) is generated as a copy of its blocks: the branch and the blocks
// under it, joining in one block where the statement ends. Before, such regions were
// detected and then left unchanged ("statement S0 has a data-dependent branch inside,
// which code generation does not handle yet"). Here the loops walk the images down
// their columns; the interchange makes the accesses contiguous.
// RUN: %detect -Rpass=polyrust %s 2>&1 | %FileCheck %s --check-prefix=REMARK
// RUN: %clang -O3 -fno-discard-value-names -fpass-plugin=%plugin -mllvm -vectorize-loops=false \
// RUN:   -fno-unroll-loops -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: %opt -passes=verify -disable-output %t.ll

void masked(int n, float thr, float (*restrict img)[n], float (*restrict low)[n]) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      float v = img[i][j];
      if (v > thr)
        img[i][j] = v * 0.75f;
      else if (v < 0.25f * thr)
        low[i][j] = v * v + low[i][j];
    }
}
// REMARK: data-dependent-branch.c:14:3: remark: region in masked at data-dependent-branch.c:14 optimized (loops reordered
// REMARK-NOT: data-dependent branch inside

// The generated loop body: the load and the test, then the copies of the blocks under
// the branch, each ending in the join.
// (restrict pointers: the run-time check is always true, the original code is gone)
// CHECK-LABEL: define {{.*}}void @masked(
// CHECK: [[V:%[0-9]+]] = load float
// CHECK: [[TEST:%[0-9]+]] = fcmp ogt float [[V]], %thr
// CHECK-NEXT: br i1 [[TEST]], label %polyrust.branch{{[0-9]*}}, label %polyrust.branch{{[0-9]*}}
// CHECK: polyrust.branch{{[0-9]*}}:
// CHECK: store float
// CHECK: br label %polyrust.join
