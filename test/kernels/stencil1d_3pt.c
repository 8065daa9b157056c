// KERNEL: stencil1d_3pt
// CATEGORY: stencil
// SIZES: test=0,1,2,3,7,33,65,1000 bench=1500000
// DESCRIPTION: time-iterated 1-D 3-point Jacobi smoothing (weights 1/4,1/2,1/4) ping-ponging between two heap arrays, fixed boundary values
#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 200
#endif

/* Each time step performs two sweeps, a -> b and b -> a.  Boundary cells
 * 0 and n-1 are never written. */
static __attribute__((noinline)) void smooth1d(int n, int tsteps, double *a, double *b)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
        for (int i = 1; i < n - 1; i++)
            a[i] = 0.25 * b[i - 1] + 0.5 * b[i] + 0.25 * b[i + 1];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1500000);
    pr_size_limit(n, 200000000, "int index range");
    double *a = pr_alloc((size_t)n, sizeof *a);
    double *b = pr_alloc((size_t)n, sizeof *b);
    for (int i = 0; i < n; i++) {
        a[i] = pr_init(i, 0, n) * 8.0;
        b[i] = a[i];
    }

    pr_timer_start();
    smooth1d(n, TSTEPS, a, b);
    pr_timer_stop();

    pr_check_d("a", a, n);
    pr_check_d("b", b, n);
    free(a);
    free(b);
    return 0;
}
