// KERNEL: sobel_int_vla
// CATEGORY: image
// SIZES: test=0,1,2,7,33,65,130 bench=3500
// DESCRIPTION: iterated edge enhancement: Sobel gradient magnitude |gx|+|gy| (clamped to 255) of an int image, then the image is averaged with it; edge-pixel count; C99 VLA parameters
#include "harness.h"

#ifndef ROUNDS
#define ROUNDS 24
#endif

/* Images are g x g (g = n + 2); the 1-pixel borders are never written.
 * Returns the number of edge pixels (magnitude >= threshold) in the
 * last round. */
static __attribute__((noinline)) int sobel_rounds(int g, int rounds, int img[g][g], int mag[g][g],
                                                  int threshold)
{
    int edges = 0;
    for (int r = 0; r < rounds; r++) {
        edges = 0;
        for (int i = 1; i < g - 1; i++)
            for (int j = 1; j < g - 1; j++) {
                int gx = (img[i - 1][j + 1] + 2 * img[i][j + 1] + img[i + 1][j + 1]) -
                         (img[i - 1][j - 1] + 2 * img[i][j - 1] + img[i + 1][j - 1]);
                int gy = (img[i + 1][j - 1] + 2 * img[i + 1][j] + img[i + 1][j + 1]) -
                         (img[i - 1][j - 1] + 2 * img[i - 1][j] + img[i - 1][j + 1]);
                int m = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
                if (m > 255)
                    m = 255;
                mag[i][j] = m;
                edges += m >= threshold;
            }
        for (int i = 1; i < g - 1; i++)
            for (int j = 1; j < g - 1; j++)
                img[i][j] = (img[i][j] + mag[i][j]) >> 1;
    }
    return edges;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 3500);
    pr_size_limit(n, 20000, "int index range");
    int g = n + 2; /* always positive VLA bound */
    int *img = pr_alloc((size_t)g * g, sizeof *img);
    int *mag = pr_alloc((size_t)g * g, sizeof *mag);
    /* blocky regions plus noise, so both flat areas and edges occur */
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            int base = ((i / 16 + j / 24) % 3) * 80;
            img[i * g + j] = base + pr_init_int(i, j, n, 0, 15);
        }

    pr_timer_start();
    int edges = sobel_rounds(g, ROUNDS, (int (*)[g])img, (int (*)[g])mag, 128);
    pr_timer_stop();

    printf("edges %d\n", edges);
    pr_check_i2("mag", mag, g, g, g);
    pr_check_i2("img", img, g, g, g);
    free(img);
    free(mag);
    return 0;
}
