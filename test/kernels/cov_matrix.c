// KERNEL: cov_matrix
// CATEGORY: data-analysis
// SIZES: test=0,1,2,7,33,65,130 bench=800
// DESCRIPTION: column means, centring and the sample covariance matrix (upper triangle computed, mirrored) of an (n+n/2) x n data matrix, heap arrays
#include "harness.h"

/* X: m observations (rows) x n variables; centred in place.
 * cov: n x n.  mean: n. */
static __attribute__((noinline)) void covariance(int m, int n, double *X, double *mean, double *cov)
{
    for (int j = 0; j < n; j++)
        mean[j] = 0.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            mean[j] += X[i * n + j];
    for (int j = 0; j < n; j++)
        mean[j] = m > 0 ? mean[j] / m : 0.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            X[i * n + j] -= mean[j];
    double denom = m > 1 ? (double)(m - 1) : 1.0;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            double s = 0.0;
            for (int i = 0; i < m; i++)
                s += X[i * n + a] * X[i * n + b];
            cov[a * n + b] = s / denom;
            cov[b * n + a] = cov[a * n + b];
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 800);
    pr_size_limit(n, 16000, "int index range");
    int m = n + n / 2;
    double *X = pr_alloc((size_t)m * n, sizeof *X);
    double *mean = pr_alloc((size_t)n, sizeof *mean);
    double *cov = pr_alloc((size_t)n * n, sizeof *cov);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            X[i * n + j] = pr_init(i, j, n) + (double)(j % 5);

    pr_timer_start();
    covariance(m, n, X, mean, cov);
    pr_timer_stop();

    pr_check_d("mean", mean, n);
    pr_check_d2("cov", cov, n, n, n);
    free(X);
    free(mean);
    free(cov);
    return 0;
}
