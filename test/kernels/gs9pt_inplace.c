// KERNEL: gs9pt_inplace
// CATEGORY: stencil
// SIZES: test=0,1,2,3,7,33,65,130 bench=1200
// DESCRIPTION: time-iterated in-place 2-D Gauss-Seidel 9-point averaging (loop-carried dependences in every dimension), heap array with flat indexing
#include "harness.h"

#ifndef TSTEPS
#define TSTEPS 30
#endif

static __attribute__((noinline)) void gauss_seidel9(int n, int tsteps, double *u)
{
    for (int t = 0; t < tsteps; t++)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                double s = u[(i - 1) * n + j - 1] + u[(i - 1) * n + j] + u[(i - 1) * n + j + 1] +
                           u[i * n + j - 1] + u[i * n + j] + u[i * n + j + 1] +
                           u[(i + 1) * n + j - 1] + u[(i + 1) * n + j] + u[(i + 1) * n + j + 1];
                u[i * n + j] = s / 9.0;
            }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1200);
    pr_size_limit(n, 20000, "int index range");
    double *u = pr_alloc((size_t)n * n, sizeof *u);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[i * n + j] = pr_init(i, j, n) * 9.0;

    pr_timer_start();
    gauss_seidel9(n, TSTEPS, u);
    pr_timer_stop();

    pr_check_d2("u", u, n, n, n);
    free(u);
    return 0;
}
