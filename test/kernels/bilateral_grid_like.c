// KERNEL: bilateral_grid_like
// CATEGORY: image
// SIZES: test=0,1,2,3,7,8,9,17,33,65,130 bench=4096
// DESCRIPTION: simplified bilateral grid: build a coarse (y/8, x/8, intensity) grid of weighted values and weights by tent-function binning over 8x8 blocks (affine, clamped), blur it along z, x and y, slice it back per pixel by bilinear-in-space, tent-in-intensity interpolation; grid stages into temporaries malloc'd in the kernel; float heap images
#include "harness.h"
#include <math.h>

#ifndef ROUNDS
#define ROUNDS 1
#endif

#define S 8         /* spatial cell size in pixels */
#define R 8         /* intensity bins per unit of intensity */
#define GZ (R + 1)  /* intensity planes: z = 0 .. R */

static float *alloc_floats(size_t count)
{
    size_t bytes = count * sizeof(float);
    float *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return p;
}

/* in: h x w intensities in [0, 1); out: h x w. */
static __attribute__((noinline)) void bilateral(int h, int w, const float *in, float *out)
{
    int gh = (h + S - 1) / S, gw = (w + S - 1) / S;
    size_t cells = (size_t)gh * gw * GZ * 2; /* channel 0: weighted value, 1: weight */
    float *grid = alloc_floats(cells);
    float *blurz = alloc_floats(cells);
    float *blurx = alloc_floats(cells);
    float *blury = alloc_floats(cells);

    /* construction: each cell gathers its 8x8 block (clamped at the image
     * edge), every pixel spread over the two nearest intensity planes */
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++)
            for (int z = 0; z < GZ; z++) {
                float sv = 0.0f, sw = 0.0f;
                for (int dy = 0; dy < S; dy++)
                    for (int dx = 0; dx < S; dx++) {
                        int y = gy * S + dy < h - 1 ? gy * S + dy : h - 1;
                        int x = gx * S + dx < w - 1 ? gx * S + dx : w - 1;
                        float v = in[y * w + x];
                        float t = 1.0f - fabsf(v * (float)R - (float)z);
                        t = t > 0.0f ? t : 0.0f;
                        sv += t * v;
                        sw += t;
                    }
                grid[((gy * gw + gx) * GZ + z) * 2] = sv;
                grid[((gy * gw + gx) * GZ + z) * 2 + 1] = sw;
            }

    /* [1 2 1] / 4 along z, x and y, clamped */
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++)
            for (int z = 0; z < GZ; z++)
                for (int c = 0; c < 2; c++) {
                    int zm = z > 0 ? z - 1 : 0, zp = z < GZ - 1 ? z + 1 : GZ - 1;
                    blurz[((gy * gw + gx) * GZ + z) * 2 + c] =
                        0.25f * grid[((gy * gw + gx) * GZ + zm) * 2 + c] +
                        0.5f * grid[((gy * gw + gx) * GZ + z) * 2 + c] +
                        0.25f * grid[((gy * gw + gx) * GZ + zp) * 2 + c];
                }
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++)
            for (int z = 0; z < GZ; z++)
                for (int c = 0; c < 2; c++) {
                    int xm = gx > 0 ? gx - 1 : 0, xp = gx < gw - 1 ? gx + 1 : gw - 1;
                    blurx[((gy * gw + gx) * GZ + z) * 2 + c] =
                        0.25f * blurz[((gy * gw + xm) * GZ + z) * 2 + c] +
                        0.5f * blurz[((gy * gw + gx) * GZ + z) * 2 + c] +
                        0.25f * blurz[((gy * gw + xp) * GZ + z) * 2 + c];
                }
    for (int gy = 0; gy < gh; gy++)
        for (int gx = 0; gx < gw; gx++)
            for (int z = 0; z < GZ; z++)
                for (int c = 0; c < 2; c++) {
                    int ym = gy > 0 ? gy - 1 : 0, yp = gy < gh - 1 ? gy + 1 : gh - 1;
                    blury[((gy * gw + gx) * GZ + z) * 2 + c] =
                        0.25f * blurx[((ym * gw + gx) * GZ + z) * 2 + c] +
                        0.5f * blurx[((gy * gw + gx) * GZ + z) * 2 + c] +
                        0.25f * blurx[((yp * gw + gx) * GZ + z) * 2 + c];
                }

    /* slicing: bilinear between the pixel's cell and the next one, tent
     * weights over the intensity planes (only two are non-zero) */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int cy = y / S, cx = x / S;
            int cy1 = cy + 1 < gh ? cy + 1 : gh - 1, cx1 = cx + 1 < gw ? cx + 1 : gw - 1;
            float fy = (float)(y % S) * (1.0f / S), fx = (float)(x % S) * (1.0f / S);
            float v = in[y * w + x];
            float num = 0.0f, den = 0.0f;
            for (int z = 0; z < GZ; z++) {
                float t = 1.0f - fabsf(v * (float)R - (float)z);
                t = t > 0.0f ? t : 0.0f;
                float v00 = blury[((cy * gw + cx) * GZ + z) * 2], v01 = blury[((cy * gw + cx1) * GZ + z) * 2];
                float v10 = blury[((cy1 * gw + cx) * GZ + z) * 2], v11 = blury[((cy1 * gw + cx1) * GZ + z) * 2];
                float w00 = blury[((cy * gw + cx) * GZ + z) * 2 + 1], w01 = blury[((cy * gw + cx1) * GZ + z) * 2 + 1];
                float w10 = blury[((cy1 * gw + cx) * GZ + z) * 2 + 1], w11 = blury[((cy1 * gw + cx1) * GZ + z) * 2 + 1];
                float vi = (1.0f - fy) * ((1.0f - fx) * v00 + fx * v01) + fy * ((1.0f - fx) * v10 + fx * v11);
                float wi = (1.0f - fy) * ((1.0f - fx) * w00 + fx * w01) + fy * ((1.0f - fx) * w10 + fx * w11);
                num += t * vi;
                den += t * wi;
            }
            out[y * w + x] = den > 0.0f ? num / den : v;
        }

    free(grid);
    free(blurz);
    free(blurx);
    free(blury);
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 4096);
    pr_size_limit(n, 16384, "int index range");
    int h = n, w = n;
    float *in = pr_alloc((size_t)h * w, sizeof *in);
    float *out = pr_alloc((size_t)h * w, sizeof *out);
    /* smooth gradient, a few plateaus (edges to preserve) and noise; [0, 1) */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int plateau = ((y / 37 + x / 53) % 3) * 60;
            int ramp = (int)(((long)x * 40) / (w > 1 ? w : 1));
            in[y * w + x] = (float)(plateau + ramp + pr_init_int(y, x, n, 0, 40)) / 256.0f;
        }

    pr_timer_start();
    for (int r = 0; r < ROUNDS; r++)
        bilateral(h, w, in, out);
    pr_timer_stop();

    pr_check_f2("out", out, h, w, w);
    free(in);
    free(out);
    return 0;
}
