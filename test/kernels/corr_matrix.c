// KERNEL: corr_matrix
// CATEGORY: data-analysis
// SIZES: test=0,1,2,7,33,65,130 bench=1000
// DESCRIPTION: Pearson correlation matrix: means, standard deviations (sqrt, guard for near-zero spread: column 0 is constant), standardisation, symmetric product, global fixed-size arrays
#include <math.h>
#include "harness.h"

#ifndef NMAX
#define NMAX 1100
#endif

static double Data[NMAX][NMAX]; /* m observations x n variables, standardised in place */
static double Mean[NMAX];
static double Sdev[NMAX];
static double Corr[NMAX][NMAX];

static __attribute__((noinline)) void correlation(int m, int n)
{
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++)
            s += Data[i][j];
        Mean[j] = m > 0 ? s / m : 0.0;
    }
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) {
            double d = Data[i][j] - Mean[j];
            s += d * d;
        }
        double sd = m > 0 ? sqrt(s / m) : 0.0;
        Sdev[j] = sd < 1e-9 ? 1.0 : sd; /* constant column: avoid dividing by ~0 */
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            Data[i][j] = (Data[i][j] - Mean[j]) / Sdev[j];
    for (int a = 0; a < n; a++)
        for (int b = 0; b <= a; b++) {
            double s = 0.0;
            for (int i = 0; i < m; i++)
                s += Data[i][a] * Data[i][b];
            Corr[a][b] = m > 0 ? s / m : 0.0;
            Corr[b][a] = Corr[a][b];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000);
    pr_size_limit(n, NMAX, "NMAX");
    /* pre-fill the outputs with a sentinel (the kernel overwrites what it
     * defines); this also faults their pages in before the timed region */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            Corr[i][j] = -1.0;
        }
    int m = n;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            Data[i][j] = j == 0 ? 2.5 : pr_init(i, j, n) + pr_init(i, j % 3, n) * 0.5;

    pr_timer_start();
    correlation(m, n);
    pr_timer_stop();

    pr_check_d("mean", Mean, n);
    pr_check_d("sdev", Sdev, n);
    pr_check_d2("corr", &Corr[0][0], n, n, NMAX);
    return 0;
}
