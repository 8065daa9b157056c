// KERNEL: tridiag_batch
// CATEGORY: linear-algebra
// SIZES: test=0,1,2,7,33,65,130 bench=2500
// DESCRIPTION: Thomas algorithm on n independent tridiagonal systems stored as columns (system loop outermost, column-wise sweeps with forward/backward recurrences), global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 2600
#endif

/* System j: sub[i][j]*x[i-1] + dia[i][j]*x[i] + sup[i][j]*x[i+1] = rhs[i][j].
 * dia and rhs are overwritten; the solution ends up in rhs. */
static double sub[NMAX][NMAX];
static double dia[NMAX][NMAX];
static double sup[NMAX][NMAX];
static double rhs[NMAX][NMAX];

static __attribute__((noinline)) void thomas_columns(int n)
{
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++) {
            double w = sub[i][j] / dia[i - 1][j];
            dia[i][j] -= w * sup[i - 1][j];
            rhs[i][j] -= w * rhs[i - 1][j];
        }
        rhs[n - 1][j] /= dia[n - 1][j];
        for (int i = n - 2; i >= 0; i--)
            rhs[i][j] = (rhs[i][j] - sup[i][j] * rhs[i + 1][j]) / dia[i][j];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 2500);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            sub[i][j] = i > 0 ? pr_init(i, j, n) : 0.0;
            sup[i][j] = i < n - 1 ? pr_init(j, i + 1, n) : 0.0;
            dia[i][j] = 3.5 + pr_init_pos(i, j, n); /* > |sub| + |sup| */
            rhs[i][j] = pr_init(i + j, j, n) * 4.0;
        }

    pr_timer_start();
    thomas_columns(n);
    pr_timer_stop();

    pr_check_d2("x", &rhs[0][0], n, n, NMAX);
    pr_check_d2("dia", &dia[0][0], n, n, NMAX);
    return 0;
}
