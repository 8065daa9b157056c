// KERNEL: matvec_rows
// CATEGORY: linear-algebra
// SIZES: test=0,1,7,33,65 bench=288
// DESCRIPTION: a small language model's matrix-vector products (llama2.c's matmul, floats, `val += w[i*n + j] * x[j]` summed in order): per token n x n, 8n/3 x n, n x 8n/3 and the 1000n/9 x n classifier (288: 288, 768, 32000 rows), one function called with each matrix
#include "harness.h"

#define TOKENS 8

static __attribute__((noinline)) void matmul(float *xout, const float *x, const float *w,
                                             int n, int d)
{
    for (int i = 0; i < d; i++) {
        float val = 0.0f;
        for (int j = 0; j < n; j++)
            val += w[i * n + j] * x[j];
        xout[i] = val;
    }
}

static float *filled(long rows, long cols, int salt)
{
    float *m = pr_alloc((size_t)(rows * cols), sizeof *m);
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            m[i * cols + j] = pr_initf(i + salt, j, cols + 1) - 0.5f;
    return m;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 288);
    pr_size_limit(n, 2000, "int index range of the classifier");
    int hidden = n * 8 / 3, vocab = n * 1000 / 9;
    float *wq = filled(n, n, 1), *w1 = filled(hidden, n, 2), *w2 = filled(n, hidden, 3);
    float *wc = filled(vocab, n, 4);
    float *x = filled(1, n, 5), *q = pr_alloc((size_t)n + 1, sizeof *q);
    float *h = pr_alloc((size_t)hidden + 1, sizeof *h), *y = pr_alloc((size_t)n + 1, sizeof *y);
    float *logits = pr_alloc((size_t)vocab + 1, sizeof *logits);

    pr_timer_start();
    for (int t = 0; t < TOKENS; t++) {
        matmul(q, x, wq, n, n);
        matmul(h, q, w1, n, hidden);
        matmul(y, h, w2, hidden, n);
        matmul(logits, y, wc, n, vocab);
        // The next token's input: the output and the logits squashed into (-1, 1).
        for (int j = 0; j < n; j++) {
            float l = logits[(j * 7 + t) % vocab];
            x[j] = y[j] / (1.0f + (y[j] < 0 ? -y[j] : y[j])) + 0.5f * l / (1.0f + (l < 0 ? -l : l));
        }
    }
    pr_timer_stop();

    pr_check_f("x", x, n);
    pr_check_f("logits", logits, vocab);
    free(wq), free(w1), free(w2), free(wc), free(x), free(q), free(h), free(y), free(logits);
    return 0;
}
