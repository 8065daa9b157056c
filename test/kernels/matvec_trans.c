// KERNEL: matvec_trans
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=3000
// DESCRIPTION: Landweber least-squares iteration: residual r = b - A*x (row-wise matvec) then x += w*A^T*r (column-wise transposed matvec, strided), heap arrays
#include "harness.h"

#define ITERS 10

static __attribute__((noinline)) void landweber(int m, int n, int iters, double w,
                                                const double *A, const double *b,
                                                double *x, double *r)
{
    for (int t = 0; t < iters; t++) {
        for (int i = 0; i < m; i++) {
            double s = b[i];
            for (int j = 0; j < n; j++)
                s -= A[i * n + j] * x[j];
            r[i] = s;
        }
        /* transposed product: walks A down its columns */
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int i = 0; i < m; i++)
                s += A[i * n + j] * r[i];
            x[j] += w * s;
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3000);
    pr_size_limit(n, 20000, "int index range");
    int m = n + n / 4; /* more equations than unknowns */
    double *A = pr_alloc((size_t)m * n, sizeof *A);
    double *b = pr_alloc((size_t)m, sizeof *b);
    double *x = pr_alloc((size_t)n, sizeof *x);
    double *r = pr_alloc((size_t)m, sizeof *r);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = pr_init(i, j, n) + (i == j ? 4.0 : 0.0);
    for (int i = 0; i < m; i++)
        b[i] = pr_init_pos(i, 3, n);
    /* step below 2/||A||^2 (Frobenius bound) so the iteration is stable */
    double w = 1.0 / (2.25 * (double)m * (double)n + 16.0 * n + 1.0);

    pr_timer_start();
    landweber(m, n, ITERS, w, A, b, x, r);
    pr_timer_stop();

    pr_check_d("x", x, n);
    pr_check_d("r", r, m);
    free(A);
    free(b);
    free(x);
    free(r);
    return 0;
}
