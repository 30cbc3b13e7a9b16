/* RNN, GRU and LSTM: attributes, layouts and directions; the recurrence is kern_rnn_f32. */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/rnn.h"

static tosac_code parse_act(cpu_ctx *c, const char *name, int k, kern_rnn_act *a)
{
    static const struct {
        const char *name;
        kern_act fn;
        float alpha, beta; /* defaults when activation_alpha/beta do not say */
    } acts[] = {
        {"Relu", KERN_ACT_RELU, 0, 0}, {"Tanh", KERN_ACT_TANH, 0, 0},
        {"Sigmoid", KERN_ACT_SIGMOID, 0, 0}, {"Affine", KERN_ACT_AFFINE, 1, 0},
        {"LeakyRelu", KERN_ACT_LEAKY_RELU, 0.01f, 0}, {"ThresholdedRelu", KERN_ACT_THRESHOLDED_RELU, 1, 0},
        {"ScaledTanh", KERN_ACT_SCALED_TANH, 1, 1}, {"HardSigmoid", KERN_ACT_HARD_SIGMOID, 0.2f, 0.5f},
        {"Elu", KERN_ACT_ELU, 1, 0}, {"Softsign", KERN_ACT_SOFTSIGN, 0, 0},
        {"Softplus", KERN_ACT_SOFTPLUS, 0, 0},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (strcmp(acts[i].name, name) == 0) {
            a->fn = acts[i].fn;
            a->alpha = acts[i].alpha;
            a->beta = acts[i].beta;
            const ir_attr *al = ir_node_attr(c->node, "activation_alpha");
            const ir_attr *be = ir_node_attr(c->node, "activation_beta");
            if (al && al->kind == IR_ATTR_FLOATS && k < al->n)
                a->alpha = al->floats[k];
            if (be && be->kind == IR_ATTR_FLOATS && k < be->n)
                a->beta = be->floats[k];
            return TOSAC_OK;
        }
    return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "activation '%s' is not supported", name);
}

/* The recurrence's attributes (layout, direction, hidden_size, clip, the gates' options and
 * each direction's activations), parsed and checked once (prepare step). */
typedef struct rnn_prep {
    int layout, dirs, reverse, has_hidden, linear_before_reset, input_forget;
    int64_t hidden;
    float clip;
    kern_rnn_act act[2][3];     /* per direction, per gate function */
} rnn_prep;

static tosac_code rnn_prepare(cpu_ctx *c, void *st, kern_rnn_kind kind)
{
    rnn_prep *rp = st;
    rp->layout = (int)cpu_attr_i(c, "layout", 0);
    const char *dir = cpu_attr_s(c, "direction", "forward");
    int dirs = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
    CPU_CHECK(c, dirs == 2 || strcmp(dir, "forward") == 0 || strcmp(dir, "reverse") == 0,
              "unknown direction '%s'", dir);
    rp->dirs = dirs;
    rp->reverse = strcmp(dir, "reverse") == 0;
    rp->hidden = cpu_attr_i(c, "hidden_size", INT64_MIN);
    rp->has_hidden = rp->hidden != INT64_MIN;
    rp->clip = cpu_attr_f(c, "clip", 0);
    rp->linear_before_reset = (int)cpu_attr_i(c, "linear_before_reset", 0);
    rp->input_forget = (int)cpu_attr_i(c, "input_forget", 0);
    const ir_attr *acts = ir_node_attr(c->node, "activations");
    static const char *const defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    int per_dir = kind == KERN_RNN ? 1 : kind == KERN_GRU ? 2 : 3;
    int nact = acts && acts->kind == IR_ATTR_STRINGS ? acts->n : 0;
    CPU_CHECK(c, nact == 0 || nact == per_dir * dirs || nact == per_dir,
              "activations has %d names for %d directions", nact, dirs);
    for (int d = 0; d < dirs; d++)
        for (int k = 0; k < per_dir; k++) {
            const char *name = nact == per_dir * dirs ? acts->strings[d * per_dir + k]
                               : nact ? acts->strings[k] : defaults[per_dir - 1][k];
            tosac_code rc = parse_act(c, name, nact == per_dir * dirs ? d * per_dir + k : k,
                                      &rp->act[d][k]);
            if (rc)
                return rc;
        }
    return TOSAC_OK;
}

static tosac_code rnn_prepare_rnn(cpu_ctx *c, void *st) { return rnn_prepare(c, st, KERN_RNN); }
static tosac_code rnn_prepare_gru(cpu_ctx *c, void *st) { return rnn_prepare(c, st, KERN_GRU); }
static tosac_code rnn_prepare_lstm(cpu_ctx *c, void *st) { return rnn_prepare(c, st, KERN_LSTM); }

static const cpu_op_prep rnn_prep_op = {rnn_prepare_rnn, sizeof(rnn_prep), NULL};
static const cpu_op_prep gru_prep_op = {rnn_prepare_gru, sizeof(rnn_prep), NULL};
static const cpu_op_prep lstm_prep_op = {rnn_prepare_lstm, sizeof(rnn_prep), NULL};

static tosac_code rnn(cpu_ctx *c, kern_rnn_kind kind)
{
    const rnn_prep *rp = c->prep;
    const tosac_tensor *x, *w, *r;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &w);
    if (!rc)
        rc = cpu_req(c, 2, &r);
    if (rc)
        return rc;
    const tosac_tensor *b = cpu_opt(c, 3), *sl = cpu_opt(c, 4), *h0 = cpu_opt(c, 5);
    const tosac_tensor *c0 = kind == KERN_LSTM ? cpu_opt(c, 6) : NULL;
    const tosac_tensor *pp = kind == KERN_LSTM ? cpu_opt(c, 7) : NULL;
    CPU_CHECK(c, x->dtype == TOSAC_DT_F32 && w->dtype == TOSAC_DT_F32 && r->dtype == TOSAC_DT_F32,
              "only float32 is supported");
    CPU_CHECK(c, x->rank == 3 && w->rank == 3 && r->rank == 3, "X, W and R must be 3-D");
    int layout = rp->layout, dirs = rp->dirs;
    int G = kind == KERN_RNN ? 1 : kind == KERN_GRU ? 3 : 4;
    kern_rnn_params p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.seq = x->shape[layout ? 1 : 0];
    p.batch = x->shape[layout ? 0 : 1];
    p.input = x->shape[2];
    p.hidden = w->shape[1] / G;
    int64_t H = p.hidden, B = p.batch, S = p.seq;
    CPU_CHECK(c, w->shape[0] == dirs && w->shape[1] == G * H && w->shape[2] == p.input,
              "W must be [%d, %d*hidden, %lld]", dirs, G, (long long)p.input);
    CPU_CHECK(c, !rp->has_hidden || rp->hidden == H, "hidden_size disagrees with W");
    CPU_CHECK(c, r->shape[0] == dirs && r->shape[1] == G * H && r->shape[2] == H, "R has the wrong shape");
    if (b)
        CPU_CHECK(c, b->dtype == TOSAC_DT_F32 && tosac_tensor_numel(b) == dirs * 2 * G * H, "B has the wrong shape");
    if (sl)
        CPU_CHECK(c, tosac_tensor_numel(sl) == B && tosac_dtype_is_int(sl->dtype), "sequence_lens must hold batch ints");
    for (int k = 0; k < 2; k++) {
        const tosac_tensor *s = k ? c0 : h0;
        if (s)
            CPU_CHECK(c, s->dtype == TOSAC_DT_F32 && tosac_tensor_numel(s) == dirs * B * H,
                      "initial state has the wrong shape");
    }
    if (pp)
        CPU_CHECK(c, pp->dtype == TOSAC_DT_F32 && tosac_tensor_numel(pp) == dirs * 3 * H, "P has the wrong shape");
    p.clip = rp->clip;
    p.linear_before_reset = rp->linear_before_reset;
    p.input_forget = rp->input_forget;
    /* outputs: Y [S, dirs, B, H] (layout 1: [B, S, dirs, H]); Y_h/Y_c [dirs, B, H] ([B, dirs, H]) */
    int64_t ys[4] = {S, dirs, B, H}, hs[3] = {dirs, B, H};
    if (layout) {
        ys[0] = B;
        ys[1] = S;
        ys[2] = dirs;
        hs[0] = B;
        hs[1] = dirs;
    }
    tosac_tensor *y = NULL, *yh = NULL, *yc = NULL;
    if (c->n_out > 0 && c->node->outputs[0] >= 0 && (rc = cpu_out(c, 0, TOSAC_DT_F32, 4, ys, &y)))
        return rc;
    if (c->n_out > 1 && c->node->outputs[1] >= 0 && (rc = cpu_out(c, 1, TOSAC_DT_F32, 3, hs, &yh)))
        return rc;
    if (kind == KERN_LSTM && c->n_out > 2 && c->node->outputs[2] >= 0 &&
        (rc = cpu_out(c, 2, TOSAC_DT_F32, 3, hs, &yc)))
        return rc;
    int64_t *lens = NULL;
    float *scratch = cpu_temp(c, (size_t)kern_rnn_scratch(&p) * sizeof(float));
    float *lasth = cpu_temp(c, (size_t)(B * H * 2 > 0 ? B * H * 2 : 1) * sizeof(float)), *lastc = lasth + B * H;
    /* states for one direction are gathered from / scattered to the layout-dependent tensors */
    float *h0d = cpu_temp(c, (size_t)(B * H * 2 > 0 ? B * H * 2 : 1) * sizeof(float)), *c0d = h0d + B * H;
    if (sl)
        lens = cpu_temp(c, (size_t)B * sizeof(int64_t));
    if (!scratch || !lasth || !h0d || (sl && !lens)) {
        rc = cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
        goto done;
    }
    for (int64_t i = 0; sl && i < B; i++)
        lens[i] = kern_get_i64(sl->dtype, sl->data, i);
    p.x_ts = layout ? p.input : B * p.input;
    p.x_bs = layout ? S * p.input : p.input;
    p.y_ts = layout ? dirs * H : dirs * B * H;
    p.y_bs = layout ? S * dirs * H : H;
    for (int d = 0; d < dirs && !rc; d++) {
        p.reverse = dirs == 2 ? d == 1 : rp->reverse;
        memcpy(p.act, rp->act[d], sizeof p.act);
        for (int64_t bi = 0; bi < B; bi++)
            for (int64_t j = 0; j < H; j++) {
                int64_t at = layout ? (bi * dirs + d) * H + j : (d * B + bi) * H + j;
                h0d[bi * H + j] = h0 ? ((const float *)h0->data)[at] : 0;
                c0d[bi * H + j] = c0 ? ((const float *)c0->data)[at] : 0;
            }
        kern_rnn_f32(&p, x->data, (const float *)w->data + d * G * H * p.input,
                     (const float *)r->data + d * G * H * H, b ? (const float *)b->data + d * 2 * G * H : NULL,
                     pp ? (const float *)pp->data + d * 3 * H : NULL, lens, h0d, c0d,
                     y ? (float *)y->data + (layout ? d * H : d * B * H) : NULL, lasth, lastc, scratch);
        for (int64_t bi = 0; bi < B; bi++)
            for (int64_t j = 0; j < H; j++) {
                int64_t at = layout ? (bi * dirs + d) * H + j : (d * B + bi) * H + j;
                if (yh)
                    ((float *)yh->data)[at] = lasth[bi * H + j];
                if (yc)
                    ((float *)yc->data)[at] = lastc[bi * H + j];
            }
    }
done:
    cpu_release(c, scratch);
    cpu_release(c, lasth);
    cpu_release(c, h0d);
    cpu_release(c, lens);
    return rc;
}

static tosac_code op_rnn(cpu_ctx *c) { return rnn(c, KERN_RNN); }
static tosac_code op_gru(cpu_ctx *c) { return rnn(c, KERN_GRU); }
static tosac_code op_lstm(cpu_ctx *c) { return rnn(c, KERN_LSTM); }

const cpu_op_entry cpu_ops_rnn[] = {
    {"RNN", op_rnn, CPU_F16_VIA_F32, &rnn_prep_op},
    {"GRU", op_gru, CPU_F16_VIA_F32, &gru_prep_op},
    {"LSTM", op_lstm, CPU_F16_VIA_F32, &lstm_prep_op},
    {NULL, NULL, 0, NULL},
};
