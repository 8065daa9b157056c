// KERNEL: rank2_sym_vla
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=3500
// DESCRIPTION: 64 successive symmetric rank-2 updates A += u_k v_k^T + v_k u_k^T in double, C99 VLA parameters
#include "harness.h"

#define NUPD 64

static __attribute__((noinline)) void rank2_updates(int n, int nupd, double A[n][n],
                                                    double U[nupd][n], double V[nupd][n])
{
    for (int k = 0; k < nupd; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                A[i][j] += U[k][i] * V[k][j] + V[k][i] * U[k][j];
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3500);
    pr_size_limit(n, 20000, "int index range");
    double *a = pr_alloc((size_t)n * n, sizeof *a);
    double *u = pr_alloc((size_t)NUPD * n, sizeof *u);
    double *v = pr_alloc((size_t)NUPD * n, sizeof *v);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = pr_init(i < j ? i : j, i < j ? j : i, n);
    for (int k = 0; k < NUPD; k++)
        for (int i = 0; i < n; i++) {
            u[k * n + i] = pr_init(k, i, n) * 0.5;
            v[k * n + i] = pr_init(i, k + 77, n) * 0.25;
        }

    pr_timer_start();
    if (n > 0) /* a VLA bound must be positive */
        rank2_updates(n, NUPD, (double (*)[n])a, (double (*)[n])u, (double (*)[n])v);
    pr_timer_stop();

    pr_check_d2("A", a, n, n, n);
    free(a);
    free(u);
    free(v);
    return 0;
}
