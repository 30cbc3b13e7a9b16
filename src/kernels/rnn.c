/* RNN / GRU / LSTM as the ONNX operator docs write them (gate orders: LSTM i, o, f, c;
 * GRU z, r, h). Each step computes x*W^T + h*R^T + biases per gate, then the cell update. */
#include "kernels/rnn.h"

#include <math.h>
#include <string.h>

static float act(const kern_rnn_act *a, float v)
{
    switch (a->fn) {
    case KERN_ACT_RELU: return v > 0 ? v : 0;
    case KERN_ACT_TANH: return tanhf(v);
    case KERN_ACT_SIGMOID: return 1.0f / (1.0f + expf(-v));
    case KERN_ACT_AFFINE: return a->alpha * v + a->beta;
    case KERN_ACT_LEAKY_RELU: return v >= 0 ? v : a->alpha * v;
    case KERN_ACT_THRESHOLDED_RELU: return v > a->alpha ? v : 0;
    case KERN_ACT_SCALED_TANH: return a->alpha * tanhf(a->beta * v);
    case KERN_ACT_HARD_SIGMOID: return fmaxf(0, fminf(1, a->alpha * v + a->beta));
    case KERN_ACT_ELU: return v >= 0 ? v : a->alpha * (expf(v) - 1);
    case KERN_ACT_SOFTSIGN: return v / (1 + fabsf(v));
    case KERN_ACT_SOFTPLUS: return logf(1 + expf(v));
    }
    return v;
}

static int gates_of(kern_rnn_kind k) { return k == KERN_RNN ? 1 : k == KERN_GRU ? 3 : 4; }

int64_t kern_rnn_scratch(const kern_rnn_params *p)
{
    int64_t G = gates_of(p->kind), H = p->hidden;
    /* gates from x, gates from h, h state, c state, GRU r*h */
    return 2 * G * H + 2 * p->batch * H + H;
}

static float clipf(const kern_rnn_params *p, float v)
{
    return p->clip > 0 ? fmaxf(-p->clip, fminf(p->clip, v)) : v;
}

/* out[g] = sum_k in[k] * m[g, k] for g < rows */
static void matvec(const float *m, const float *in, int64_t rows, int64_t cols, float *out)
{
    for (int64_t g = 0; g < rows; g++) {
        float acc = 0;
        const float *row = m + g * cols;
        for (int64_t k = 0; k < cols; k++)
            acc += row[k] * in[k];
        out[g] = acc;
    }
}

void kern_rnn_f32(const kern_rnn_params *p, const float *x, const float *w, const float *r,
                  const float *b, const float *peep, const int64_t *seq_lens, const float *h0,
                  const float *c0, float *y, float *yh, float *yc, float *scratch)
{
    const int64_t G = gates_of(p->kind), H = p->hidden, B = p->batch, I = p->input;
    /* rh: GRU's r (.) h before it is multiplied by Rh */
    float *gx = scratch, *gh = gx + G * H, *hs = gh + G * H, *cs = hs + B * H, *rh = cs + B * H;
    for (int64_t i = 0; i < B * H; i++) {
        hs[i] = h0 ? h0[i] : 0;
        cs[i] = c0 ? c0[i] : 0;
    }
    const float *wb = b, *rb = b ? b + G * H : NULL;
    for (int64_t bi = 0; bi < B; bi++) {
        int64_t len = seq_lens ? seq_lens[bi] : p->seq;
        if (len > p->seq)
            len = p->seq;
        if (len < 0)
            len = 0;
        float *h = hs + bi * H, *c = cs + bi * H;
        for (int64_t step = 0; step < p->seq; step++) {
            int64_t t = p->reverse ? len - 1 - step : step;
            if (step >= len) {
                if (y) /* steps past the sequence end are zero, in either direction */
                    memset(y + step * p->y_ts + bi * p->y_bs, 0, (size_t)H * sizeof(float));
                continue;
            }
            const float *xt = x + t * p->x_ts + bi * p->x_bs;
            matvec(w, xt, G * H, I, gx);
            for (int64_t g = 0; g < G * H; g++)
                gx[g] += wb ? wb[g] : 0;
            if (p->kind == KERN_GRU) {
                /* z and r use h directly; the h gate depends on linear_before_reset */
                matvec(r, h, 2 * H, H, gh);
                for (int64_t j = 0; j < H; j++) {
                    float z = act(&p->act[0], clipf(p, gx[j] + gh[j] + (rb ? rb[j] : 0)));
                    float rr = act(&p->act[0], clipf(p, gx[H + j] + gh[H + j] + (rb ? rb[H + j] : 0)));
                    gh[j] = z;
                    gh[H + j] = rr;
                }
                float *hn = gh + 2 * H;
                if (p->linear_before_reset) {
                    matvec(r + 2 * H * H, h, H, H, hn);
                    for (int64_t j = 0; j < H; j++)
                        hn[j] = gh[H + j] * (hn[j] + (rb ? rb[2 * H + j] : 0));
                } else {
                    for (int64_t j = 0; j < H; j++)
                        rh[j] = gh[H + j] * h[j];
                    matvec(r + 2 * H * H, rh, H, H, hn);
                    for (int64_t j = 0; j < H; j++)
                        hn[j] += rb ? rb[2 * H + j] : 0;
                }
                for (int64_t j = 0; j < H; j++) {
                    float ht = act(&p->act[1], clipf(p, gx[2 * H + j] + hn[j]));
                    float z = gh[j];
                    h[j] = (1 - z) * ht + z * h[j];
                }
            } else {
                matvec(r, h, G * H, H, gh);
                for (int64_t g = 0; g < G * H; g++)
                    gx[g] += gh[g] + (rb ? rb[g] : 0);
                if (p->kind == KERN_RNN) {
                    for (int64_t j = 0; j < H; j++)
                        h[j] = act(&p->act[0], clipf(p, gx[j]));
                } else {
                    for (int64_t j = 0; j < H; j++) {
                        float pi = peep ? peep[j] : 0, po = peep ? peep[H + j] : 0,
                              pf = peep ? peep[2 * H + j] : 0;
                        float it = act(&p->act[0], clipf(p, gx[j] + pi * c[j]));
                        float ft = p->input_forget ? 1 - it
                                                   : act(&p->act[0], clipf(p, gx[2 * H + j] + pf * c[j]));
                        float ct = act(&p->act[1], clipf(p, gx[3 * H + j]));
                        c[j] = ft * c[j] + it * ct;
                        float ot = act(&p->act[0], clipf(p, gx[H + j] + po * c[j]));
                        h[j] = ot * act(&p->act[2], c[j]);
                    }
                }
            }
            if (y)
                memcpy(y + t * p->y_ts + bi * p->y_bs, h, (size_t)H * sizeof(float));
        }
        if (yh)
            memcpy(yh + bi * H, h, (size_t)H * sizeof(float));
        if (yc)
            memcpy(yc + bi * H, c, (size_t)H * sizeof(float));
    }
}
