// KERNEL: two_stage_pipe
// CATEGORY: image
// SIZES: test=0,1,2,7,33,65,130 bench=3000
// DESCRIPTION: iterated two-stage image pipeline: stage 1 writes a pointwise blend into a temporary, stage 2 reads a 2x2 neighbourhood of it (producer-consumer fusion candidate), float global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 3072
#endif
#ifndef ROUNDS
#define ROUNDS 40
#endif

static float Img[NMAX + 1][NMAX + 1]; /* (n+1) x (n+1) */
static float Msk[NMAX + 1][NMAX + 1]; /* (n+1) x (n+1), read only */
static float Tmp[NMAX + 1][NMAX + 1]; /* stage-1 result */

static __attribute__((noinline)) void pipeline(int n, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        /* stage 1: producer */
        for (int i = 0; i <= n; i++)
            for (int j = 0; j <= n; j++)
                Tmp[i][j] = 0.75f * Img[i][j] + 0.25f * Msk[i][j] - 0.125f * Img[i][j] * Msk[i][j];
        /* stage 2: consumer, 2x2 box on the producer's output */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                Img[i][j] = 0.25f * (Tmp[i][j] + Tmp[i][j + 1] + Tmp[i + 1][j] + Tmp[i + 1][j + 1]);
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3000);
    pr_size_limit(n, NMAX, "NMAX");
    /* pre-fill the outputs with a sentinel (the kernel overwrites what it
     * defines); this also faults their pages in before the timed region */
    for (int i = 0; i < n + 1; i++)
        for (int j = 0; j < n + 1; j++) {
            Tmp[i][j] = -1.0f;
        }
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++) {
            Img[i][j] = pr_initf(i, j, n) * 2.0f;
            Msk[i][j] = pr_init_posf(j, i, n);
        }

    pr_timer_start();
    pipeline(n, ROUNDS);
    pr_timer_stop();

    pr_check_f2("img", &Img[0][0], n + 1, n + 1, NMAX + 1);
    pr_check_f2("tmp", &Tmp[0][0], n + 1, n + 1, NMAX + 1);
    return 0;
}
