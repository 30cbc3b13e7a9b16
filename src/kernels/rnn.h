/* Recurrent kernels: ONNX RNN, GRU and LSTM, one direction per call, f32. */
#ifndef TOSAC_KERNELS_RNN_H
#define TOSAC_KERNELS_RNN_H

#include "kernels/kern.h"

typedef enum kern_rnn_kind { KERN_RNN, KERN_GRU, KERN_LSTM } kern_rnn_kind;

typedef enum kern_act {
    KERN_ACT_RELU, KERN_ACT_TANH, KERN_ACT_SIGMOID, KERN_ACT_AFFINE, KERN_ACT_LEAKY_RELU,
    KERN_ACT_THRESHOLDED_RELU, KERN_ACT_SCALED_TANH, KERN_ACT_HARD_SIGMOID, KERN_ACT_ELU,
    KERN_ACT_SOFTSIGN, KERN_ACT_SOFTPLUS,
} kern_act;

typedef struct kern_rnn_act {
    kern_act fn;
    float alpha, beta;
} kern_rnn_act;

typedef struct kern_rnn_params {
    kern_rnn_kind kind;
    int64_t seq, batch, input, hidden;
    int reverse;
    kern_rnn_act act[3];     /* f, g, h (RNN uses f; GRU f, g; LSTM f, g, h) */
    float clip;              /* 0: no clipping */
    int linear_before_reset; /* GRU */
    int input_forget;        /* LSTM */
    /* element strides of x and y: x[t, b, :] at t * x_ts + b * x_bs (covers layout 0/1),
     * y[t, b, :] at t * y_ts + b * y_bs */
    int64_t x_ts, x_bs, y_ts, y_bs;
} kern_rnn_params;

/* Number of floats of scratch kern_rnn_f32 needs. */
int64_t kern_rnn_scratch(const kern_rnn_params *p);

/* One direction. w [G*hidden, input], r [G*hidden, hidden], b [2*G*hidden] or NULL,
 * peep [3*hidden] or NULL (LSTM: i, o, f), seq_lens [batch] or NULL, h0/c0 [batch, hidden]
 * or NULL (zeros). y (may be NULL) gets every step's hidden state (0 past a sequence's
 * length); yh, yc (may be NULL) the last state of each sequence [batch, hidden]. */
void kern_rnn_f32(const kern_rnn_params *p, const float *x, const float *w, const float *r,
                  const float *b, const float *peep, const int64_t *seq_lens, const float *h0,
                  const float *c0, float *y, float *yh, float *yc, float *scratch);

#endif
