// KERNEL: masked_cols
// CATEGORY: image
// SIZES: test=0,1,7,33,65,130 bench=4000
// DESCRIPTION: masked column-wise update: pixels above a threshold are scaled and counted, pixels below it are squared into a second image; the loops walk the images down their columns (a data-dependent branch with stores under it inside each statement)
#include "harness.h"

#define PASSES 4

static __attribute__((noinline)) void masked_update(int n, float thr, float (*restrict img)[n],
                                                    float (*restrict low)[n],
                                                    int (*restrict hits)[n])
{
    for (int p = 0; p < PASSES; p++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                float v = img[i][j];
                if (v > thr) {
                    img[i][j] = v * 0.75f;
                    hits[i][j] += 1;
                } else if (v < 0.25f * thr) {
                    low[i][j] = v * v + low[i][j];
                }
            }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4000);
    pr_size_limit(n, 20000, "int index range");
    float (*img)[n] = pr_alloc((size_t)n * n, sizeof(float));
    float (*low)[n] = pr_alloc((size_t)n * n, sizeof(float));
    int (*hits)[n] = pr_alloc((size_t)n * n, sizeof(int));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            img[i][j] = pr_initf(i, j, n);
            low[i][j] = 0.0f;
            hits[i][j] = 0;
        }

    pr_timer_start();
    masked_update(n, 0.5f, img, low, hits);
    pr_timer_stop();

    pr_check_f2("img", &img[0][0], n, n, n);
    pr_check_f2("low", &low[0][0], n, n, n);
    pr_check_i2("hits", &hits[0][0], n, n, n);
    free(img);
    free(low);
    free(hits);
    return 0;
}
