// KERNEL: tri_matmul
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1300
// DESCRIPTION: in-place triangular matrix multiply B = L*B (L lower triangular), rows updated bottom-up so unread rows stay intact, heap arrays
#include "harness.h"

/* B is n x m and is overwritten; L is n x n, only its lower triangle is read. */
static __attribute__((noinline)) void trmul_lower(int n, int m, const double *L, double *B)
{
    for (int i = n - 1; i >= 0; i--)
        for (int j = 0; j < m; j++) {
            double s = 0.0;
            for (int k = 0; k <= i; k++)
                s += L[i * n + k] * B[k * m + j];
            B[i * m + j] = s;
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1300);
    pr_size_limit(n, 20000, "int index range");
    int m = n;
    double *L = pr_alloc((size_t)n * n, sizeof *L);
    double *B = pr_alloc((size_t)n * m, sizeof *B);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            L[i * n + k] = k <= i ? pr_init(i, k, n) : 1e9; /* upper part must not be read */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            B[i * m + j] = pr_init(j, i + 5, n);

    pr_timer_start();
    trmul_lower(n, m, L, B);
    pr_timer_stop();

    pr_check_d2("B", B, n, m, m);
    free(L);
    free(B);
    return 0;
}
