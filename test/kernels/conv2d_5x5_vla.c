// KERNEL: conv2d_5x5_vla
// CATEGORY: stencil
// SIZES: test=0,1,2,7,33,65 bench=2500
// DESCRIPTION: 2-D convolution with a constant 5x5 binomial filter on a float image with a 2-pixel border, two ping-pong passes, C99 VLA parameters
#include "harness.h"

static const float k5[5][5] = {
    {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
    {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
    {6.0f / 256, 24.0f / 256, 36.0f / 256, 24.0f / 256, 6.0f / 256},
    {4.0f / 256, 16.0f / 256, 24.0f / 256, 16.0f / 256, 4.0f / 256},
    {1.0f / 256, 4.0f / 256, 6.0f / 256, 4.0f / 256, 1.0f / 256},
};

/* Images are g x g with g = n + 4; the 2-pixel border is never written. */
static __attribute__((noinline)) void conv5x5(int g, float out[g][g], float in[g][g])
{
    for (int i = 2; i < g - 2; i++)
        for (int j = 2; j < g - 2; j++) {
            float s = 0.0f;
            for (int di = 0; di < 5; di++)
                for (int dj = 0; dj < 5; dj++)
                    s += k5[di][dj] * in[i - 2 + di][j - 2 + dj];
            out[i][j] = s;
        }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 2500);
    pr_size_limit(n, 20000, "int index range");
    int g = n + 4; /* always positive VLA bound */
    float *img = pr_alloc((size_t)g * g, sizeof *img);
    float *out = pr_alloc((size_t)g * g, sizeof *out);
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            img[i * g + j] = pr_init_posf(i, j, n) * 32.0f;
            out[i * g + j] = img[i * g + j];
        }

    pr_timer_start();
    conv5x5(g, (float (*)[g])out, (float (*)[g])img);
    conv5x5(g, (float (*)[g])img, (float (*)[g])out);
    pr_timer_stop();

    pr_check_f2("out", out, g, g, g);
    pr_check_f2("img", img, g, g, g);
    free(img);
    free(out);
    return 0;
}
