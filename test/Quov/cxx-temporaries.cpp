// C++ temporaries: memory from new[] (freed with delete[]) and a std::unique_ptr<float[]>
// is the function's own like malloc's, so a three-stage chain of vertical stencils over
// it fuses, with both temporaries in three rows. Outputs are -O3's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clangxx -O3 -g -fpass-plugin=%plugin %s -o %t/fused -Rpass=polyrust \
// RUN:   -mllvm -polyrust-exprprop=false 2>&1 | %FileCheck %s
// RUN: %clangxx -O3 %s -o %t/plain
// RUN: %t/plain 0 1 2 3 4 5 6 7 9 100 > %t/plain.out
// RUN: %t/fused 0 1 2 3 4 5 6 7 9 100 > %t/fused.out
// RUN: cmp %t/plain.out %t/fused.out

#include <cstdio>
#include <cstdlib>
#include <memory>

// CHECK: cxx-temporaries.cpp:[[@LINE+4]]:{{.*}}optimized (3 loop nests fused into one outer loop ({{.*}}); temporary a stored as a[i0 mod 3][i1]{{.*}}; temporary {{.*}} stored as {{.*}}[i0 mod 3][i1]
__attribute__((noinline)) void chain(int h, int w, const float *in, float *out) {
  float *a = new float[(size_t)h * w];
  std::unique_ptr<float[]> b(new float[(size_t)h * w]);
  for (int y = 1; y < h - 1; y++)
    for (int x = 0; x < w; x++)
      a[y * w + x] = in[(y - 1) * w + x] + 2.0f * in[y * w + x] + in[(y + 1) * w + x];
  for (int y = 2; y < h - 2; y++)
    for (int x = 0; x < w; x++)
      b[y * w + x] = a[(y - 1) * w + x] * a[(y + 1) * w + x] - a[y * w + x];
  for (int y = 3; y < h - 3; y++)
    for (int x = 0; x < w; x++)
      out[y * w + x] = b[(y - 1) * w + x] + b[(y + 1) * w + x] - 0.5f * b[y * w + x];
  delete[] a;
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    float *in = new float[(size_t)n * n + 1], *out = new float[(size_t)n * n + 1]();
    for (long i = 0; i < (long)n * n; i++)
      in[i] = (float)((i * 37) % 101) / 101.0f;
    chain(n, n, in, out);
    double s = 0;
    for (long i = 0; i < (long)n * n; i++)
      s += out[i] * (double)(i % 7 + 1);
    printf("%d %.17g %a\n", n, s, n > 6 ? out[3 * n + 3] : 0.0f);
    delete[] in;
    delete[] out;
  }
}
