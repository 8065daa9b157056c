// KERNEL: conv2d_5x5_vla
// CATEGORY: stencil
// SIZES: test=0,1,2,7,33,65,130 bench=3000
// DESCRIPTION: repeated 2-D convolution with a constant 5x5 binomial filter on a float image with a 2-pixel border, ping-pong between two images, C99 VLA parameters
#include "harness.h"

#ifndef PASSES
#define PASSES 10
#endif

static const float k5[5][5] = {
    {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
    {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
    {6.0f / 256, 24.0f / 256, 36.0f / 256, 24.0f / 256, 6.0f / 256},
    {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
    {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
};

/* Images are g x g with g = n + 4; the 2-pixel border is never written.
 * Each pass filters a into b and then b back into a. */
static __attribute__((noinline)) void blur5x5(int g, int passes, float a[g][g], float b[g][g])
{
    for (int p = 0; p < passes; p++) {
        for (int i = 2; i < g - 2; i++)
            for (int j = 2; j < g - 2; j++) {
                float s = 0.0f;
                for (int di = 0; di < 5; di++)
                    for (int dj = 0; dj < 5; dj++)
                        s += k5[di][dj] * a[i - 2 + di][j - 2 + dj];
                b[i][j] = s;
            }
        for (int i = 2; i < g - 2; i++)
            for (int j = 2; j < g - 2; j++) {
                float s = 0.0f;
                for (int di = 0; di < 5; di++)
                    for (int dj = 0; dj < 5; dj++)
                        s += k5[di][dj] * b[i - 2 + di][j - 2 + dj];
                a[i][j] = s;
            }
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3000);
    pr_size_limit(n, 20000, "int index range");
    int g = n + 4; /* always positive VLA bound */
    float *img = pr_alloc((size_t)g * g, sizeof *img);
    float *tmp = pr_alloc((size_t)g * g, sizeof *tmp);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            img[i * g + j] = pr_init_posf(i, j, n) * 32.0f;
            tmp[i * g + j] = img[i * g + j];
        }

    pr_timer_start();
    blur5x5(g, PASSES, (float (*)[g])img, (float (*)[g])tmp);
    pr_timer_stop();

    pr_check_f2("img", img, g, g, g);
    pr_check_f2("tmp", tmp, g, g, g);
    free(img);
    free(tmp);
    return 0;
}
