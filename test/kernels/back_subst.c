// KERNEL: back_subst
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1400
// DESCRIPTION: upper-triangular solve U*x_r = b_r by back substitution for n right-hand sides stored as rows, in place, global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 1500
#endif

static double U[NMAX][NMAX];
static double X[NMAX][NMAX]; /* row r: right-hand side r, overwritten by its solution */

static __attribute__((noinline)) void back_subst(int n, int nrhs)
{
    for (int r = 0; r < nrhs; r++)
        for (int i = n - 1; i >= 0; i--) {
            double s = X[r][i];
            for (int k = i + 1; k < n; k++)
                s -= U[i][k] * X[r][k];
            X[r][i] = s / U[i][i];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1400);
    pr_size_limit(n, NMAX, "NMAX");
    int nrhs = n;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            if (k > i)
                U[i][k] = pr_init(i, k, n);
            else if (k == i)
                U[i][k] = 2.0 * n + 1.0 + pr_init_pos(k, i, n);
            else
                U[i][k] = 1e300; /* never read */
        }
    for (int r = 0; r < nrhs; r++)
        for (int i = 0; i < n; i++)
            X[r][i] = pr_init(r, i + 9, n) * (double)(n + 1);

    pr_timer_start();
    back_subst(n, nrhs);
    pr_timer_stop();

    pr_check_d2("X", &X[0][0], nrhs, n, NMAX);
    return 0;
}
