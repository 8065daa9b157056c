// KERNEL: stream_triad
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,1000 bench=8000000
// DESCRIPTION: STREAM-like streaming loops over arrays larger than the caches: copy, scale, add and triad (a = b + s*c), repeated, doubles, one loop each
#include "harness.h"

#define ITERS 10

static __attribute__((noinline)) void stream(int n, int iters, double s, double *restrict a,
                                             double *restrict b, double *restrict c)
{
    for (int t = 0; t < iters; t++) {
        for (int i = 0; i < n; i++)
            c[i] = a[i];
        for (int i = 0; i < n; i++)
            b[i] = s * c[i];
        for (int i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        for (int i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 8000000);
    pr_size_limit(n, 100000000, "array length");
    double *a = pr_alloc((size_t)n + 1, sizeof *a), *b = pr_alloc((size_t)n + 1, sizeof *b);
    double *c = pr_alloc((size_t)n + 1, sizeof *c);
    for (int i = 0; i < n; i++) {
        a[i] = pr_init(i, 1, n);
        b[i] = pr_init(i, 2, n);
        c[i] = pr_init(i, 3, n);
    }

    pr_timer_start();
    stream(n, ITERS, 0.4, a, b, c);
    pr_timer_stop();

    pr_check_d("a", a, n);
    pr_check_d("b", b, n);
    pr_check_d("c", c, n);
    free(a), free(b), free(c);
    return 0;
}
