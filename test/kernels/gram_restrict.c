// KERNEL: gram_restrict
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65,130 bench=1200
// DESCRIPTION: Gram matrix G = X^T X with a zero-started accumulator stored to G[a][b] and mirrored to G[b][a], then P = G*X^T with restrict pointers (LICM keeps P[i][j] in a register)
#include "harness.h"

/* G (m x m) = X^T X for X (n x m): s starts at 0, runs down a column pair and is
 * stored after its loop, twice (upper triangle and its mirror). */
static __attribute__((noinline)) void gram(int n, int m, double (*restrict G)[m],
                                           const double (*restrict X)[m])
{
    for (int a = 0; a < m; a++)
        for (int b = a; b < m; b++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += X[i][a] * X[i][b];
            G[a][b] = s;
            G[b][a] = s;
        }
}

/* P (m x n) += G X^T: restrict lets LICM load P[i][j] before the k loop and store
 * it after. */
static __attribute__((noinline)) void project(int n, int m, double (*restrict P)[n],
                                              const double (*restrict G)[m],
                                              const double (*restrict X)[m])
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < m; k++)
                P[i][j] += G[i][k] * X[j][k];
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1200);
    pr_size_limit(n, 20000, "int index range");
    int m = n / 2 + 1;
    double (*X)[m] = pr_alloc((size_t)n * m, sizeof(double));
    double (*G)[m] = pr_alloc((size_t)m * m, sizeof(double));
    double (*P)[n] = pr_alloc((size_t)m * n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int a = 0; a < m; a++)
            X[i][a] = pr_init(i, a, n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            P[i][j] = pr_init_pos(i, j, n);

    pr_timer_start();
    gram(n, m, G, (const double (*)[m])X);
    project(n, m, P, (const double (*)[m])G, (const double (*)[m])X);
    pr_timer_stop();

    pr_check_d2("G", &G[0][0], m, m, m);
    pr_check_d2("P", &P[0][0], m, n, n);
    free(X);
    free(G);
    free(P);
    return 0;
}
