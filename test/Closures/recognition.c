// Which nests are the min-plus closure: the shortest-path nest on ints (the ternary,
// LLVM's `llvm.smin` of an `add nsw`); print<polyrust-ast> shows the call the pass
// makes (with a test of the CPU where the target lacks AVX2). Not (yet): the `if` that
// stores only a shorter sum (LLVM keeps its conditional store). Not: the same nest
// under -fwrapv (its sum may wrap, and a blocked order's sums could wrap where the
// loops' do not), on unsigned ints (umin), over a rectangle (k's range not i's), or
// with -polyrust-closures=false.
// RUN: %clang -O3 -g -c -o /dev/null -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust %s 2>&1 | %FileCheck %s
// RUN: %clang -O3 -g -c -o /dev/null -fwrapv -fpass-plugin=%plugin -Rpass=polyrust -Rpass-missed=polyrust %s 2>&1 | %FileCheck %s --check-prefix=WRAPV
// RUN: %clang -O3 -g -c -o /dev/null -fpass-plugin=%plugin -mllvm -polyrust-closures=false -Rpass=polyrust -Rpass-missed=polyrust %s 2>&1 | %FileCheck %s --check-prefix=OFF
// RUN: %clang -O3 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -S -emit-llvm -o - %s \
// RUN:   | %opt %loadpolyrust -passes='print<polyrust-ast>' -disable-output 2>&1 | %FileCheck %s --check-prefix=AST
// CHECK-DAG: remark: region in shortest at {{.*}} optimized (min-plus closure d[i][j] = min(d[i][j], d[i][k] + d[k][j])
// CHECK-DAG: remark: region in shortest_if at {{.*}} left unchanged
// CHECK-DAG: remark: region in shortest_unsigned at {{.*}} left unchanged
// CHECK-DAG: remark: region in rectangle at {{.*}} left unchanged
// WRAPV-DAG: remark: region in shortest at {{.*}} left unchanged
// OFF-DAG: remark: region in shortest at {{.*}} left unchanged
// AST-LABEL: polyrust-ast: function 'shortest'
// AST: New code of {{.*}} (min-plus closure
// AST-NEXT: polyrust_min_plus_closure_i32(n = [[N:p_[0-9]+]], A = p_{{[0-9]+}}, row stride [[N]]) if the CPU has AVX2 and FMA

void shortest(int n, int d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}

void shortest_if(int n, int d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (d[i][k] + d[k][j] < d[i][j])
          d[i][j] = d[i][k] + d[k][j];
}

void shortest_unsigned(int n, unsigned d[n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}

void rectangle(int n, int m, int d[n][n]) {
  for (int k = 0; k < m; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][j] : d[i][k] + d[k][j];
}
