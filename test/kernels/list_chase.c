// KERNEL: list_chase
// CATEGORY: irregular
// SIZES: test=0,1,2,7,33,65,1000 bench=1000000
// DESCRIPTION: pointer-chasing traversal of a singly linked list whose nodes are scattered in a heap array (random permutation order), with a running recurrence updating each node, several passes
#include "harness.h"

#define PASSES 16

struct node {
    struct node *next;
    double val;
    int key;
};

static __attribute__((noinline)) double walk_lists(struct node *head, int passes)
{
    double acc = 0.0;
    for (int p = 0; p < passes; p++) {
        struct node *q = head;
        while (q != NULL) {
            acc = 0.5 * acc + q->val;
            q->val = 0.75 * q->val + 0.125 * acc + (double)(q->key & 3) * 0.0625;
            q = q->next;
        }
    }
    return acc;
}

int main(int argc, char **argv)
{
    int n = pr_size(argc, argv, 1000000);
    pr_size_limit(n, 100000000, "node count");
    struct node *nodes = pr_alloc((size_t)n, sizeof *nodes);
    int *order = pr_alloc((size_t)n, sizeof *order);
    pr_permutation(order, n, 4242);
    for (int i = 0; i < n; i++) {
        nodes[i].val = pr_init(i, 0, n);
        nodes[i].key = i;
        nodes[i].next = NULL;
    }
    for (int i = 0; i + 1 < n; i++)
        nodes[order[i]].next = &nodes[order[i + 1]];
    struct node *head = n > 0 ? &nodes[order[0]] : NULL;

    pr_timer_start();
    double acc = walk_lists(head, PASSES);
    pr_timer_stop();

    double *vals = pr_alloc((size_t)n, sizeof *vals);
    for (int i = 0; i < n; i++)
        vals[i] = nodes[i].val;
    pr_check_scalar("acc", acc);
    pr_check_d("val", vals, n);
    free(vals);
    free(order);
    free(nodes);
    return 0;
}
