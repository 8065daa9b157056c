// KERNEL: stencil2d_5pt
// CATEGORY: stencil
// SIZES: test=0,1,2,3,7,33,65,130 bench=1700
// DESCRIPTION: time-iterated 2-D 5-point Jacobi relaxation with a copy-back sweep, global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 2048
#endif
#ifndef TSTEPS
#define TSTEPS 100
#endif

static double U[NMAX][NMAX];
static double W[NMAX][NMAX];

static __attribute__((noinline)) void jacobi5(int n, int tsteps)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                W[i][j] = 0.2 * (U[i][j] + U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                U[i][j] = W[i][j];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1700);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            U[i][j] = pr_init(i, j, n) * 4.0;
            W[i][j] = 0.0;
        }

    pr_timer_start();
    jacobi5(n, TSTEPS);
    pr_timer_stop();

    pr_check_d2("U", &U[0][0], n, n, NMAX);
    return 0;
}
