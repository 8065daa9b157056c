// KERNEL: matmul_ijk_vla
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1024
// DESCRIPTION: textbook C += A*B in i-j-k order on VLA pointers (double (*C)[n]); LICM keeps C[i][j] in a register across k
#include "harness.h"

/* The loop every textbook shows.  -O3 promotes C[i][j] to a register
 * across the k loop (load before, phi through, store after), so the
 * element is a scalar to any later pass; B[k][j] is strided in k. */
static __attribute__((noinline)) void matmul(int n, double (*C)[n],
                                             double (*A)[n], double (*B)[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                C[i][j] += A[i][k] * B[k][j];
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1024);
    pr_size_limit(n, 20000, "int index range");
    double (*A)[n] = pr_alloc((size_t)n * n, sizeof(double));
    double (*B)[n] = pr_alloc((size_t)n * n, sizeof(double));
    double (*C)[n] = pr_alloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = pr_init(i, j, n);
            B[i][j] = pr_init(j + 3, i, n);
            C[i][j] = pr_init_pos(i, j, n);
        }

    pr_timer_start();
    matmul(n, C, A, B);
    pr_timer_stop();

    pr_check_d2("C", &C[0][0], n, n, n);
    free(A);
    free(B);
    free(C);
    return 0;
}
