// KERNEL: lcs_table_vla
// CATEGORY: dynamic-programming
// SIZES: test=0,1,2,7,33,65,130 bench=10000
// DESCRIPTION: longest-common-subsequence length table of two strings over a 4-letter alphabet (wavefront dependences, max and equality test), int C99 VLA parameter
#include "harness.h"

/* L is (n+1) x (m+1); row 0 and column 0 are zero. */
static __attribute__((noinline)) void lcs_table(int n, int m, const char *s, const char *t,
                                                int L[n + 1][m + 1])
{
    for (int j = 0; j <= m; j++)
        L[0][j] = 0;
    for (int i = 1; i <= n; i++) {
        L[i][0] = 0;
        for (int j = 1; j <= m; j++) {
            if (s[i - 1] == t[j - 1])
                L[i][j] = L[i - 1][j - 1] + 1;
            else
                L[i][j] = L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1];
        }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 10000);
    pr_size_limit(n, 20000, "int index range");
    int m = n + n / 8;
    char *s = pr_alloc((size_t)n + 1, 1);
    char *t = pr_alloc((size_t)m + 1, 1);
    uint64_t st = 12345;
    for (int i = 0; i < n; i++)
        s[i] = "ACGT"[pr_lcg(&st) % 4];
    for (int j = 0; j < m; j++)
        t[j] = "ACGT"[pr_lcg(&st) % 4];
    int *L = pr_alloc((size_t)(n + 1) * (m + 1), sizeof *L);

    pr_timer_start();
    lcs_table(n, m, s, t, (int (*)[m + 1])L);
    pr_timer_stop();

    printf("lcs_length %d\n", L[(size_t)n * (m + 1) + m]);
    pr_check_i2("L", L, n + 1, m + 1, m + 1);
    free(s);
    free(t);
    free(L);
    return 0;
}
