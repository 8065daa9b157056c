// KERNEL: csr_spmv
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,500 bench=800000
// DESCRIPTION: repeated sparse matrix-vector product in CSR form (inner bounds rowptr[i]..rowptr[i+1] loaded from memory, indirect x[col[p]] gather), fixed-point iteration x = A*x + b, heap arrays
#include "harness.h"

#define ITERS 20

static __attribute__((noinline)) void csr_iterate(int n, int iters, const int *rowptr, const int *col,
                                                  const double *val, const double *b, double *x,
                                                  double *y)
{
    for (int t = 0; t < iters; t++) {
        for (int i = 0; i < n; i++) {
            double s = b[i];
            for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
                s += val[p] * x[col[p]];
            y[i] = s;
        }
        for (int i = 0; i < n; i++)
            x[i] = y[i];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 800000);
    pr_size_limit(n, 20000000, "int nonzero count");
    int *rowptr = pr_alloc((size_t)n + 1, sizeof *rowptr);
    /* row i has 1..24 nonzeros: a band around the diagonal plus scattered columns */
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + pr_init_int(i, 0, n, 1, 24);
    int nnz = rowptr[n];
    int *col = pr_alloc((size_t)nnz, sizeof *col);
    double *val = pr_alloc((size_t)nnz, sizeof *val);
    uint64_t st = 99;
    for (int i = 0; i < n; i++) {
        int len = rowptr[i + 1] - rowptr[i];
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) {
            int q = p - rowptr[i];
            int c;
            if (q % 3 != 2) {
                long d = (long)i + q / 2 - 4;
                c = (int)(d < 0 ? 0 : d >= n ? n - 1 : d);
            } else {
                c = (int)(pr_lcg(&st) % (uint32_t)n);
            }
            col[p] = c;
            /* |row sum| <= 1 / (2 len) * len = 1/2: the iteration contracts */
            val[p] = pr_init(i, q, n) / (2.0 * len);
        }
    }
    double *b = pr_alloc((size_t)n, sizeof *b);
    double *x = pr_alloc((size_t)n, sizeof *x);
    double *y = pr_alloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++)
        b[i] = pr_init_pos(i, 1, n);

    pr_timer_start();
    csr_iterate(n, ITERS, rowptr, col, val, b, x, y);
    pr_timer_stop();

    printf("nnz %d\n", nnz);
    pr_check_d("x", x, n);
    free(rowptr);
    free(col);
    free(val);
    free(b);
    free(x);
    free(y);
    return 0;
}
