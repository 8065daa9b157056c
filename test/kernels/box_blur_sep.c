// KERNEL: box_blur_sep
// CATEGORY: image
// SIZES: test=0,1,2,4,5,7,33,65,130 bench=4500
// DESCRIPTION: separable 5x5 box blur applied eight times (horizontal pass into a temporary image, vertical pass back), float heap images with flat indexing
#include "harness.h"

#define ROUNDS 8

/* img and tmp are h x w; border pixels (2 wide) keep their values. */
static __attribute__((noinline)) void box_blur3(int h, int w, int rounds, float *img, float *tmp)
{
    const float inv5 = 0.2f;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                if (j >= 2 && j < w - 2)
                    tmp[i * w + j] = (img[i * w + j - 2] + img[i * w + j - 1] + img[i * w + j] +
                                      img[i * w + j + 1] + img[i * w + j + 2]) * inv5;
                else
                    tmp[i * w + j] = img[i * w + j];
            }
        for (int i = 2; i < h - 2; i++)
            for (int j = 0; j < w; j++)
                img[i * w + j] = (tmp[(i - 2) * w + j] + tmp[(i - 1) * w + j] + tmp[i * w + j] +
                                  tmp[(i + 1) * w + j] + tmp[(i + 2) * w + j]) * inv5;
    }
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4500);
    pr_size_limit(n, 20000, "int index range");
    int h = n, w = n + 3;
    float *img = pr_alloc((size_t)h * w, sizeof *img);
    float *tmp = pr_alloc((size_t)h * w, sizeof *tmp);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            img[i * w + j] = (float)pr_init_int(i, j, n, 0, 255);

    pr_timer_start();
    box_blur3(h, w, ROUNDS, img, tmp);
    pr_timer_stop();

    pr_check_f2("img", img, h, w, w);
    pr_check_f2("tmp", tmp, h, w, w);
    free(img);
    free(tmp);
    return 0;
}
