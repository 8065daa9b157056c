// A function that handles small sizes with a loop and returns, and large ones with
// three more nests: a region does not take in nests of the other branch (it counted
// them, modelled none, and no region of their own was ever tried), and the nests after
// the early return form their own region, in the order control reaches them (LLVM lays
// the first, after the malloc check, out below the others).
// RUN: %o3ir %s | %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output 2>&1 | %FileCheck %s
#include <stdlib.h>

void smooth(int n, int steps, const double *in, double *out) {
  if (n < 3) {
    for (int i = 0; i < n; i++)
      out[i] = in[i];
    return;
  }
  long w = n + 3;
  double *u = malloc(sizeof(double) * (size_t)(steps + 1) * (size_t)w);
  if (!u)
    return;
  for (int i = 0; i < n; i++)
    u[i] = in[i] + 1.0;
  for (int t = 0; t < steps; t++) {
    u[(t + 1) * w] = u[t * w];
    u[(t + 1) * w + n - 1] = u[t * w + n - 1];
    for (int i = 1; i < n - 1; i++)
      u[(t + 1) * w + i] = 0.5 * u[t * w + i] + 0.25 * (u[t * w + i - 1] + u[t * w + i + 1]);
  }
  for (int i = 0; i < n; i++)
    out[i] = u[(long)steps * w + i] * 0.5;
  free(u);
}
// CHECK-LABEL: polyrust-detect: function 'smooth'
// CHECK-NEXT: region smooth:{{.*}}: 1 loop nest, 1 loop, depth 1, 1 statement
// CHECK-NEXT: region smooth:{{.*}}: 3 loop nests, 4 loops, depth 2, 4 statements
