// KERNEL: edit_dist_rows
// CATEGORY: dynamic-programming
// SIZES: test=0,1,2,7,33,65,130 bench=8000
// DESCRIPTION: Levenshtein distances of one string against every prefix of another, computed in a full (n+1) x (m+1) int table malloc'd and freed in the kernel, of which only the last row is kept (as similarities m - D[n][j]); wavefront dependences
#include "harness.h"

static __attribute__((noinline)) void prefix_similarity(int n, int m, const unsigned char *a,
                                                        const unsigned char *b, int *score)
{
    int w = m + 1;
    int *D = malloc((size_t)(n + 1) * (size_t)w * sizeof(int));
    if (D == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
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
    for (int j = 0; j <= m; j++)
        score[j] = m - D[n * w + j];
    free(D);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 8000);
    pr_size_limit(n, 20000, "int index range");
    int m = n + n / 8 + 1;
    unsigned char *a = pr_alloc((size_t)(n > 0 ? n : 1), 1);
    unsigned char *b = pr_alloc((size_t)m, 1);
    uint64_t st = 2024;
    for (int i = 0; i < n; i++)
        a[i] = (unsigned char)(pr_lcg(&st) % 3);
    for (int j = 0; j < m; j++)
        b[j] = (unsigned char)(pr_lcg(&st) % 3);
    int *score = pr_alloc((size_t)m + 1, sizeof *score);

    pr_timer_start();
    prefix_similarity(n, m, a, b, score);
    pr_timer_stop();

    pr_check_i("score", score, m + 1);
    free(a);
    free(b);
    free(score);
    return 0;
}
