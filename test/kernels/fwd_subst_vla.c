// KERNEL: fwd_subst_vla
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1400
// DESCRIPTION: lower-triangular solve L*X = B by forward substitution for n right-hand sides stored as columns, in place, C99 VLA parameters
#include "harness.h"

static __attribute__((noinline)) void forward_subst(int n, int m, double L[n][n], double B[n][m])
{
    for (int i = 0; i < n; i++)
        for (int r = 0; r < m; r++) {
            double s = B[i][r];
            for (int k = 0; k < i; k++)
                s -= L[i][k] * B[k][r];
            B[i][r] = s / L[i][i];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1400);
    pr_size_limit(n, 20000, "int index range");
    int m = n;
    double *l = pr_alloc((size_t)n * n, sizeof *l);
    double *b = pr_alloc((size_t)n * m, sizeof *b);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            if (k < i)
                l[i * n + k] = pr_init(i, k, n);
            else if (k == i)
                l[i * n + k] = 2.0 * n + 2.0 + pr_init_pos(i, i, n); /* dominant diagonal */
            else
                l[i * n + k] = -7.0; /* never read */
        }
    for (int i = 0; i < n; i++)
        for (int r = 0; r < m; r++)
            b[i * m + r] = pr_init(r + 3, i, n) * (double)(n + 1);

    pr_timer_start();
    if (n > 0) /* a VLA bound must be positive */
        forward_subst(n, m, (double (*)[n])l, (double (*)[m])b);
    pr_timer_stop();

    pr_check_d2("X", b, n, m, m);
    free(l);
    free(b);
    return 0;
}
