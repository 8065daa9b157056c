// KERNEL: sobel_int_vla
// CATEGORY: image
// SIZES: test=0,1,2,7,33,65 bench=4000
// DESCRIPTION: Sobel gradient magnitude |gx|+|gy| on an int image with a 1-pixel border, clamped to 255, plus an edge-pixel count; C99 VLA parameters
#include "harness.h"

/* Images are g x g (g = n + 2); the output border stays 0. */
static __attribute__((noinline)) int sobel(int g, int out[g][g], int in[g][g], int threshold)
{
    int edges = 0;
    for (int i = 1; i < g - 1; i++)
        for (int j = 1; j < g - 1; j++) {
            int gx = (in[i - 1][j + 1] + 2 * in[i][j + 1] + in[i + 1][j + 1]) -
                     (in[i - 1][j - 1] + 2 * in[i][j - 1] + in[i + 1][j - 1]);
            int gy = (in[i + 1][j - 1] + 2 * in[i + 1][j] + in[i + 1][j + 1]) -
                     (in[i - 1][j - 1] + 2 * in[i - 1][j] + in[i - 1][j + 1]);
            int mag = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
            if (mag > 255)
                mag = 255;
            out[i][j] = mag;
            edges += mag >= threshold;
        }
    return edges;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4000);
    pr_size_limit(n, 20000, "int index range");
    int g = n + 2; /* always positive VLA bound */
    int *in = pr_alloc((size_t)g * g, sizeof *in);
    int *out = pr_alloc((size_t)g * g, sizeof *out);
    /* smooth ramps plus noise, so both flat areas and edges occur */
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            int base = ((i / 16 + j / 24) % 3) * 80;
            in[i * g + j] = base + pr_init_int(i, j, n, 0, 15);
        }

    pr_timer_start();
    int edges = sobel(g, (int (*)[g])out, (int (*)[g])in, 128);
    pr_timer_stop();

    printf("edges %d\n", edges);
    pr_check_i2("mag", out, g, g, g);
    free(in);
    free(out);
    return 0;
}
