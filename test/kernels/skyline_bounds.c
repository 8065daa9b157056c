// KERNEL: skyline_bounds
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,130 bench=1300
// DESCRIPTION: skyline (variable-band) matrix times dense matrix, C[i][:] += sum_{j < Len[i]} A[i][j]*B[j][:], where the middle loop bound Len[i] is loaded from memory inside the nest, global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 1400
#endif

static int Len[NMAX];
static double A[NMAX][NMAX];
static double B[NMAX][NMAX];
static double C[NMAX][NMAX];

static __attribute__((noinline)) void skyline_mm(int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < Len[i]; j++) {
            double a = A[i][j];
            for (int k = 0; k < n; k++)
                C[i][k] += a * B[j][k];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1300);
    pr_size_limit(n, NMAX, "NMAX");
    for (int i = 0; i < n; i++) {
        Len[i] = pr_init_int(i, 0, n, 0, n); /* 0..n, irregular */
        for (int j = 0; j < n; j++) {
            A[i][j] = pr_init(i, j, n);
            B[i][j] = pr_init(j, i, n + 1);
            C[i][j] = 0.5;
        }
    }

    pr_timer_start();
    skyline_mm(n);
    pr_timer_stop();

    pr_check_i("len", Len, n);
    pr_check_d2("C", &C[0][0], n, n, NMAX);
    return 0;
}
