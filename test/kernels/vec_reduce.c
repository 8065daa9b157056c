// KERNEL: vec_reduce
// CATEGORY: data-analysis
// SIZES: test=0,1,7,33,65,1000 bench=4000000
// DESCRIPTION: vector reductions summed in order (no reassociation): a float dot product, a double sum of squares and an integer sum over long vectors, each a function called in a loop
#include "harness.h"

#define ITERS 20

static __attribute__((noinline)) float dot(int n, const float *x, const float *y)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static __attribute__((noinline)) double sum_squares(int n, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

static __attribute__((noinline)) long sum_ints(int n, const int *a)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4000000);
    pr_size_limit(n, 100000000, "vector length");
    float *x = pr_alloc((size_t)n + 1, sizeof *x), *y = pr_alloc((size_t)n + 1, sizeof *y);
    double *v = pr_alloc((size_t)n + 1, sizeof *v);
    int *a = pr_alloc((size_t)n + 1, sizeof *a);
    for (int i = 0; i < n; i++) {
        x[i] = pr_initf(i, 1, n) - 0.5f;
        y[i] = pr_initf(i, 2, n) - 0.5f;
        v[i] = pr_init(i, 3, n);
        a[i] = pr_init_int(i, 4, n, -1000, 1000);
    }
    double results[3 * ITERS];

    pr_timer_start();
    for (int t = 0; t < ITERS; t++) {
        results[3 * t] = dot(n, x, y);
        results[3 * t + 1] = sum_squares(n, v);
        results[3 * t + 2] = (double)sum_ints(n, a);
        if (n > 0) {
            x[t % n] += 0.25f;
            v[t % n] -= 0.5;
            a[t % n] += 3;
        }
    }
    pr_timer_stop();

    pr_check_d("results", results, 3 * ITERS);
    free(x), free(y), free(v), free(a);
    return 0;
}
