// KERNEL: edit_dist
// CATEGORY: dynamic-programming
// SIZES: test=0,1,2,7,33,65,130 bench=10000
// DESCRIPTION: Levenshtein edit-distance table (min of insert/delete/substitute, wavefront dependences) for two strings over a 3-letter alphabet, int heap table with flat indexing
#include "harness.h"

/* D is (n+1) x (m+1), row-major with row length m+1. */
static __attribute__((noinline)) void edit_distance(int n, int m, const unsigned char *a,
                                                    const unsigned char *b, int *D)
{
    int w = m + 1;
    for (int j = 0; j <= m; j++)
        D[j] = j;
    for (int i = 1; i <= n; i++) {
        D[i * w] = i;
        for (int j = 1; j <= m; j++) {
            int del = D[(i - 1) * w + j] + 1;
            int ins = D[i * w + j - 1] + 1;
            int sub = D[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);
            int best = del < ins ? del : ins;
            D[i * w + j] = sub < best ? sub : best;
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 10000);
    pr_size_limit(n, 20000, "int index range");
    int m = n + n / 8 + 1;
    unsigned char *a = pr_alloc((size_t)n, 1);
    unsigned char *b = pr_alloc((size_t)m, 1);
    uint64_t st = 2024;
    for (int i = 0; i < n; i++)
        a[i] = (unsigned char)(pr_lcg(&st) % 3);
    for (int j = 0; j < m; j++)
        b[j] = (unsigned char)(pr_lcg(&st) % 3);
    int *D = pr_alloc((size_t)(n + 1) * (m + 1), sizeof *D);

    pr_timer_start();
    edit_distance(n, m, a, b, D);
    pr_timer_stop();

    printf("distance %d\n", D[(size_t)n * (m + 1) + m]);
    pr_check_i2("D", D, n + 1, m + 1, m + 1);
    free(a);
    free(b);
    free(D);
    return 0;
}
