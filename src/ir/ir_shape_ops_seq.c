/* Static shape rules for the recurrent layers (RNN, GRU, LSTM), the losses
 * (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) and TfIdfVectorizer, after ONNX. */
#include "ir_shape.h"

#include <string.h>

#define NODE (&c->g->nodes[node])

/* X [S, B, I] (layout 1: [B, S, I]), W [dirs, G*H, I] -> Y [S, dirs, B, H] ([B, S, dirs, H]),
 * Y_h / Y_c [dirs, B, H] ([B, dirs, H]); G = 1 (RNN), 3 (GRU), 4 (LSTM). */
static tosac_code r_recurrent(shape_ctx *c, int node)
{
    const ir_tensor *x, *w;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &w))
        return c->err->code;
    const char *op = NODE->op_type;
    int64_t g = strcmp(op, "RNN") == 0 ? 1 : strcmp(op, "GRU") == 0 ? 3 : 4;
    int64_t layout = ir_node_attr_int(NODE, "layout", 0);
    const char *dir = ir_node_attr_string(NODE, "direction", "forward");
    int64_t dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    if (dirs == 1 && strcmp(dir, "forward") != 0 && strcmp(dir, "reverse") != 0)
        return sh_bad(c, node, "unknown direction");
    if (x->rank != 3 || w->rank != 3 || w->shape[0] != dirs || w->shape[1] % g ||
        w->shape[2] != x->shape[2] || (layout != 0 && layout != 1))
        return sh_bad(c, node, "inconsistent shapes: X must be 3-D and W [dirs, G*hidden, input]");
    int64_t h = w->shape[1] / g;
    if (ir_node_attr_int(NODE, "hidden_size", h) != h)
        return sh_bad(c, node, "hidden_size disagrees with W");
    int64_t s = x->shape[layout ? 1 : 0], b = x->shape[layout ? 0 : 1];
    int64_t y0[4] = {s, dirs, b, h}, y1[4] = {b, s, dirs, h};
    int64_t h0[3] = {dirs, b, h}, h1[3] = {b, dirs, h};
    if (sh_set(c, node, 0, x->dtype, 4, layout ? y1 : y0) ||
        sh_set(c, node, 1, x->dtype, 3, layout ? h1 : h0))
        return c->err->code;
    return g == 4 ? sh_set(c, node, 2, x->dtype, 3, layout ? h1 : h0) : TOSAC_OK;
}

/* scores [N, C, d...], target [N, d...]: the loss is a scalar, or target's shape when
 * reduction is "none"; SoftmaxCrossEntropyLoss's log_prob output has the scores' shape. */
static tosac_code r_loss(shape_ctx *c, int node)
{
    const ir_tensor *x, *t;
    if (sh_need(c, node, 0, &x) || sh_need(c, node, 1, &t))
        return c->err->code;
    if (x->rank < 2 || t->rank != x->rank - 1 || t->shape[0] != x->shape[0])
        return sh_bad(c, node, "inconsistent shapes: scores [N, C, d...] and target [N, d...]");
    for (int d = 1; d < t->rank; d++)
        if (t->shape[d] != x->shape[d + 1])
            return sh_bad(c, node, "inconsistent shapes: scores [N, C, d...] and target [N, d...]");
    const char *red = ir_node_attr_string(NODE, "reduction", "mean");
    bool none = strcmp(red, "none") == 0;
    if (!none && strcmp(red, "mean") != 0 && strcmp(red, "sum") != 0)
        return sh_bad(c, node, "unknown reduction");
    if (sh_set(c, node, 0, x->dtype, none ? t->rank : 0, t->shape))
        return c->err->code;
    return sh_set(c, node, 1, x->dtype, x->rank, x->shape);
}

/* [C] -> [max(ngram_indexes) + 1], [N, C] -> [N, max + 1], float. */
static tosac_code r_tfidf(shape_ctx *c, int node)
{
    const ir_tensor *x;
    if (sh_need(c, node, 0, &x))
        return c->err->code;
    int n;
    const int64_t *idx = ir_node_attr_ints(NODE, "ngram_indexes", &n);
    if (!idx || n < 1 || (x->rank != 1 && x->rank != 2))
        return sh_bad(c, node, "ngram_indexes missing or input not 1-D/2-D");
    int64_t cols = 0;
    for (int i = 0; i < n; i++) {
        if (idx[i] < 0 || idx[i] >= ((int64_t)1 << 31))
            return sh_bad(c, node, "ngram_indexes entry out of range");
        if (idx[i] + 1 > cols)
            cols = idx[i] + 1;
    }
    int64_t out[2] = {x->shape[0], cols};
    return sh_set(c, node, 0, TOSAC_DT_F32, x->rank, x->rank == 2 ? out : out + 1);
}

static const struct {
    const char *op;
    shape_rule fn;
} rules[] = {
    {"RNN", r_recurrent}, {"GRU", r_recurrent}, {"LSTM", r_recurrent},
    {"NegativeLogLikelihoodLoss", r_loss}, {"SoftmaxCrossEntropyLoss", r_loss},
    {"TfIdfVectorizer", r_tfidf},
};

shape_rule ir_shape_rule_seq(const char *op_type)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].op, op_type) == 0)
            return rules[i].fn;
    return NULL;
}
