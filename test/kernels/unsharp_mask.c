// KERNEL: unsharp_mask
// CATEGORY: image
// SIZES: test=0,1,2,3,7,33,65,130 bench=3000
// DESCRIPTION: iterated unsharp mask: 3x3 binomial blur into a temporary, out = clamp(in + k*(in - blur), 0, 255), out copied back as the next input; float global fixed-size arrays
#include "harness.h"

#ifndef NMAX
#define NMAX 4096
#endif
#ifndef ROUNDS
#define ROUNDS 16
#endif

static float In[NMAX][NMAX];
static float Blur[NMAX][NMAX];
static float Out[NMAX][NMAX];

static __attribute__((noinline)) void unsharp(int n, int rounds, float amount)
{
    for (int r = 0; r < rounds; r++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                Blur[i][j] = 0.0625f * (In[i - 1][j - 1] + In[i - 1][j + 1] + In[i + 1][j - 1] + In[i + 1][j + 1]) +
                             0.125f * (In[i - 1][j] + In[i + 1][j] + In[i][j - 1] + In[i][j + 1]) +
                             0.25f * In[i][j];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                float v = In[i][j];
                if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
                    v = In[i][j] + amount * (In[i][j] - Blur[i][j]);
                    v = v < 0.0f ? 0.0f : v;
                    v = v > 255.0f ? 255.0f : v;
                }
                Out[i][j] = v;
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                In[i][j] = Out[i][j];
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3000);
    pr_size_limit(n, NMAX, "NMAX");
    /* pre-fill the outputs with a sentinel (the kernel overwrites what it
     * defines); this also faults their pages in before the timed region */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            Blur[i][j] = -1.0f;
            Out[i][j] = -1.0f;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            In[i][j] = (float)(((i / 8 + j / 8) % 2) * 128 + pr_init_int(i, j, n, 0, 64));

    pr_timer_start();
    unsharp(n, ROUNDS, 0.5f);
    pr_timer_stop();

    pr_check_f2("out", &Out[0][0], n, n, NMAX);
    pr_check_f2("blur", &Blur[0][0], n, n, NMAX);
    return 0;
}
