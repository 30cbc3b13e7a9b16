/* Pieces of the quantizer shared by the src/quant files (not part of the public API). */
#ifndef TOSAC_QUANT_INTERNAL_H
#define TOSAC_QUANT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu_exec.h"
#include "tosac/quant.h"

/* ---- observers (quant_observer.c) ---- */

/* Running min/max of the finite values seen (NaN and +-inf are ignored: a mask value of
 * -inf must not blow the range up). */
typedef struct quant_range {
    float lo, hi;
    bool seen;
} quant_range;

void quant_range_init(quant_range *r);
/* Returns the number of non-finite values skipped. */
int64_t quant_range_observe(quant_range *r, const float *x, int64_t n);
void quant_range_merge(quant_range *dst, const quant_range *src);

/* Moving-average min/max (quant_observer_ema.c), as PyTorch's MovingAverageMinMaxObserver:
 * each sample's min/max moves the range by QUANT_EMA_C of the difference (the first sample
 * sets it). Call once per sample with all of that sample's values. */
#define QUANT_EMA_C 0.01
void quant_ema_observe(quant_range *r, const float *x, int64_t n);

/* A histogram of the finite non-zero values over [lo, hi] (lo <= 0 <= hi, from the min/max
 * pass), zeros counted apart: quantization keeps 0 exact in every scheme here, so the
 * searches need not weigh them (quant_histogram.c). */
#define QUANT_HIST_BINS 2048
typedef struct quant_hist {
    double lo, hi, width;
    double zeros;
    double bins[QUANT_HIST_BINS];
} quant_hist;
/* Over [min(r.lo, 0), max(r.hi, 0)]; false when that range is empty (no histogram needed). */
bool quant_hist_init(quant_hist *h, const quant_range *r);
void quant_hist_observe(quant_hist *h, const float *x, int64_t n);
double quant_hist_center(const quant_hist *h, int bin);
/* Bin holding v (clamped to the bins). */
int quant_hist_bin(const quant_hist *h, double v);

/* The range searches over a histogram; each writes out (seen, lo <= 0 <= hi).
 * Percentile (quant_observer_percentile.c): lo, hi at the (100 - pct) and pct percentiles of
 * all values (zeros included), linear inside a bin. */
void quant_hist_percentile(const quant_hist *h, double pct, quant_range *out);
/* MSE (quant_observer_mse.c): the candidate range of least expected squared error under the
 * scheme's grid: clipping error from the bin centres outside, step^2 / 12 per value inside. */
void quant_hist_mse(const quant_hist *h, quant_scheme s, quant_range *out);
/* Entropy (quant_observer_entropy.c): the candidate of least KL(P || Q), P the clipped
 * distribution (outliers folded into the edge bins), Q its quantization to the scheme's levels
 * (TensorRT's calibration, over an asymmetric range). */
void quant_hist_entropy(const quant_hist *h, quant_scheme s, quant_range *out);

/* One warning line naming tensors: "calibration: <what> in N tensors: 'a' (detail), ... and
 * M more<tail>" (the first QUANT_NAMES_SHOWN named). Nothing when the list is empty. */
#define QUANT_NAMES_SHOWN 8
typedef struct quant_names {
    int n;
    size_t len;
    char text[1024];
} quant_names;
void quant_names_add(quant_names *l, const char *name, const char *detail);
void quant_names_warn(const quant_names *l, const char *what, const char *tail);

/* ---- quantization parameters (quant_params.c) ---- */

typedef struct quant_qparams {
    float scale;
    int64_t zero_point;
    tosac_dtype dtype; /* I8 or I16 (activations), I8 (weights), I32 (bias) */
} quant_qparams;

/* Activation parameters for a range under a scheme: A8W8 asymmetric int8 over [min(lo,0),
 * max(hi,0)], A16W8 symmetric int16 with scale max|x| / 32767. A range that gives no normal
 * float scale (never seen, all zero, or narrower than ~1e-36) gets the parameters of [-1, 1]
 * (zeros stay exact, and the unit range is the common one of normalised activations, where
 * 1 would leave 3 int8 levels for it); returns true then, for the caller's warning. */
bool quant_act_params(quant_scheme s, const quant_range *r, quant_qparams *out);

/* ONNX QuantizeLinear of one value: saturate(round_half_even(x / scale) + zp) to [qmin, qmax]. */
int64_t quant_value(float x, float scale, int64_t zp, int64_t qmin, int64_t qmax);

/* Symmetric per-channel int8 weights. w is viewed as [outer, n, inner] with the channel axis
 * in the middle; scales[c] = max|w[:, c, :]| / 127 (1 for an all-zero channel) and
 * q = clamp(round(w / scale), -127, 127). */
void quant_weight_scales(const float *w, int64_t outer, int64_t n, int64_t inner, float *scales);
void quant_weight_values(const float *w, int64_t outer, int64_t n, int64_t inner,
                         const float *scales, int8_t *q);

/* int32 bias: scale[c] = s_in * s_w[c] (s_w has n values, or 1 value for all channels),
 * q[c] = round(b[c] / scale[c]). Returns the first channel whose value does not fit int32
 * (never clamped: a bias that lost its value would go unnoticed), or -1. */
int64_t quant_bias_values(const float *b, int64_t n, float s_in, const float *s_w, int n_sw,
                          float *scales, int32_t *q);

/* ---- calibration (quant_calibrate.c) ---- */

/* What the calibration runs saw of one tensor of the top-level graph. */
typedef struct quant_seen {
    quant_range range;   /* the method's range (what the plan uses) */
    quant_range minmax;  /* min/max over all samples */
    bool is_float;       /* produced as float32 on the runs */
    int64_t nonfinite;   /* NaN / inf values seen (left out of the range) */
    int rank;            /* -1 when never produced */
    int64_t shape[TOSAC_MAX_RANK];
    double *mean;        /* per channel (axis 1), for bias correction; NULL when not needed */
    int64_t n_mean;
    float *wscale;       /* a weight: the per-channel scales its rounded values were made at
                          * (quant_weight_round.c), NULL: max|w| / 127 as usual */
    int64_t n_wscale;
} quant_seen;

/* Bias correction (quant_bias_correct.c). One more pass: the per-channel mean of every tensor
 * a Conv (or a Gemm, transA = 0) with constant weights and bias reads, into seen[].mean. */
tosac_code quant_channel_means(ir_model *m, const quant_options *o, const quant_calib *c,
                               quant_seen *seen, tosac_error *err);
/* Frees the means of seen[0 .. n). */
void quant_seen_free(quant_seen *seen, int n);
/* corr[o] = sum over node i's weights of (dequantized - float) * mean of its input channel,
 * for the weights w quantized at the per-output-channel scales sw (n_sw of them); false when
 * the node's input has no mean or the shapes do not line up. */
bool quant_bias_correction(const ir_graph *g, int i, const tosac_tensor *w, const float *sw,
                           int n_sw, const quant_seen *seen, double *corr);

struct quant_plan;
/* Error-compensating weight rounding (quant_weight_round.c): one more pass measures the input
 * covariance of every Conv (2-D) and Gemm (transA = 0) the plan quantizes, whose weight is an
 * initializer it alone reads; the weights are rewritten as the dequantized values q * s that
 * GPTQ's rounding gives, and seen[w].wscale records s. */
tosac_code quant_round_weights(ir_model *m, const quant_options *o, const quant_calib *c,
                               quant_seen *seen, int n_seen, const struct quant_plan *p,
                               tosac_error *err);
/* h (k x k, upper triangle of sum x x^T) -> the upper Cholesky factor U of its damped inverse
 * (H + 0.01 mean(diag) I)^-1 = U^T U, in place; work: k x k. False when not positive definite. */
bool quant_round_factor(double *h, int64_t k, double *work);
/* One output channel: w (k values, float weights, overwritten) rounded in order to q at scale,
 * each rounding error carried onto the later weights through u (quant_round_factor). */
void quant_round_row(const double *u, int64_t k, double *w, float scale, int8_t *q);

/* Runs the float model on every sample and fills seen[0 .. n_tensors) of m->graph, the
 * ranges by o->method (a second pass fills the histograms). */
tosac_code quant_calibrate(ir_model *m, const quant_options *o, const quant_calib *c,
                           quant_seen *seen, tosac_error *err);

/* Called with every float value of graph tensor `tensor` on one sample. */
typedef void (*quant_visit_fn)(void *ctx, int tensor, const tosac_tensor *t);
/* One pass: runs m on every sample, every node output made a graph output for the run. */
tosac_code quant_run_pass(ir_model *m, const quant_options *o, const char *pass,
                          const quant_calib *c, quant_visit_fn visit, void *ctx,
                          tosac_error *err);

/* The same, body_fn (when not NULL) also seeing every value made inside an If/Loop/Scan body
 * (cpu_plan_set_body_observer: a Loop body's on every iteration). */
tosac_code quant_run_pass_deep(ir_model *m, const quant_options *o, const char *pass,
                               const quant_calib *c, quant_visit_fn visit, void *ctx,
                               cpu_observer body_fn, void *body_ctx, tosac_error *err);

/* Makes every node output (Constant nodes aside) a graph output, for runs that read them all
 * (the caller restores g->n_outputs). */
tosac_code quant_mark_all_outputs(ir_graph *g, tosac_error *err);

/* ---- graph rewrites ---- */

/* Folds BatchNormalization into the Conv that feeds it alone (quant_fold_bn.c). */
tosac_code quant_fold_batchnorm(ir_graph *g, tosac_error *err);

/* Rewrites Div, BatchNormalization, Layer/InstanceNormalization, Clip with runtime bounds and
 * PRelu with a per-channel slope into quantized operators (quant_decompose.c). */
tosac_code quant_decompose(ir_model *m, tosac_error *err);

/* Raises the ai.onnx opset to at least target, rewriting operators whose signature changed
 * (quant_opset.c). seen (may be NULL) gives the ranks the calibration runs observed. */
tosac_code quant_upgrade_opset(ir_model *m, int64_t target, const quant_seen *seen,
                               tosac_error *err);

/* ---- the plan: which tensors get Q/DQ with which parameters (quant_plan.c) ---- */

typedef enum quant_role {
    QROLE_NONE = 0,    /* stays as it is */
    QROLE_ACT,         /* activation: Q -> DQ after it, per tensor */
    QROLE_FUSED,       /* Conv/Gemm/MatMul/Add output read only by a Relu/Clip: no Q/DQ */
} quant_role;

typedef struct quant_plan {
    int n_tensors;
    int n_nodes;           /* of the graph the plan was built on */
    bool *keep_float;      /* per node id < n_nodes: excluded (--exclude), stays float */
    bool *int16;           /* per node id < n_nodes: raised to a16w8 (--int16, --mixed) */
    bool *wide;            /* per tensor id: an int16 activation (an int16 node reads or
                            * writes its group) */
    quant_qparams *narrow; /* per tensor id, where wide under a8w8: the int8 parameters its
                            * int8 readers see (a Q/DQ requantization in front of them) */
    quant_role *role;      /* per tensor id */
    int *group;            /* union-find parent: tensors sharing one range */
    quant_qparams *qp;     /* per tensor id (valid for QROLE_ACT) */
    bool control;          /* quant_plan_build's control: If/Loop edges are activations */
    bool *outside;         /* NULL, or per tensor id: an If/Loop body's capture or input the
                            * enclosing graph's Q/DQ quantizes at qp already (no pair here) */
} quant_plan;

/* Node i is an activation whose output range follows from input x's (quant_image.c):
 * Sigmoid, HardSigmoid, HardSwish, Tanh, Mul(x, Sigmoid(x)), Mul(x, HardSigmoid(x)). */
bool quant_image_of(const ir_graph *g, int i, int *x);
/* The values node i's output takes for inputs in [lo, hi]. */
void quant_image_range(const ir_graph *g, int i, double lo, double hi, quant_range *out);

/* keep_float (may be NULL): per node id, nodes that stay float (copied into p); int16 (may be
 * NULL): per node id, nodes whose activations are int16 in an a8w8 plan (copied); control:
 * the If/Loop bodies are quantized too (quant_body.c), so the If/Loop edges are activations. */
tosac_code quant_plan_build(const ir_graph *g, quant_scheme s, const quant_seen *seen,
                            const bool *keep_float, const bool *int16, bool control,
                            quant_plan *p, tosac_error *err);
/* The representative of t's shared-range group (no path compression: p stays const). */
int quant_plan_group(const quant_plan *p, int t);
/* The scheme node i is quantized with under p: A16W8 for an --int16 node, s otherwise. */
quant_scheme quant_plan_node_scheme(const quant_plan *p, quant_scheme s, int i);
/* Node i is quantized under p: an operator the plan quantizes and not kept float. */
bool quant_plan_quantizes(const quant_plan *p, const ir_graph *g, int i);

/* --exclude "NAME|OP_TYPE,...": *out (calloc'd, per node id) marks the nodes kept float; an
 * entry that names no node and no operator type is TOSAC_ERR_INPUT (quant_exclude.c). */
tosac_code quant_exclude_parse(const ir_graph *g, const char *list, bool **out,
                               tosac_error *err);
/* The same for another option's list (--int16); `option` names it in the error. */
tosac_code quant_node_list_parse(const ir_graph *g, const char *option, const char *list,
                                 bool **out, tosac_error *err);

/* The report (quant_report.c): a pass measuring each activation's SQNR against its float
 * values at its parameters, then the JSON text:
 * {"scheme","method","samples","tensors":[{"name","min","max","range_lo","range_hi","scale",
 *  "zero_point","dtype","sqnr_db"}],"kept_float":[names]}. */
tosac_code quant_report_build(ir_model *m, const quant_options *o, const quant_calib *c,
                              const quant_seen *seen, const quant_plan *p, char **out,
                              tosac_error *err);
/* SQNR in dB of values x against their quantization at qp: 10 log10(sum x^2 / sum e^2);
 * +inf when exact (JSON null), -inf for an all-zero signal with error. Accumulators: */
typedef struct quant_sqnr {
    double signal, noise;
} quant_sqnr;
void quant_sqnr_add(quant_sqnr *s, const quant_qparams *qp, const float *x, int64_t n);
double quant_sqnr_db(const quant_sqnr *s);
void quant_plan_free(quant_plan *p);

/* Operator classes of the plan (also used by the insertion). */
bool quant_op_is_quantized(const ir_node *n);
/* True when input slot k of n is a weight (per-channel int8) when constant; *axis gets the
 * channel axis for a tensor of the given rank. */
bool quant_weight_slot(const ir_node *n, int k, int rank, int *axis);
/* True when input slot k of n is a bias (int32, scale s_in * s_w) when constant. */
bool quant_bias_slot(const ir_node *n, int k);
/* True when a constant float at slot k is quantized like an activation (Add/Sub/Mul/Max/Min
 * operands, PRelu slopes, Concat inputs, Pad values, Where fills, Gather tables). */
bool quant_const_act_slot(const ir_node *n, int k);
/* ... and then at the output's parameters (Concat, Pad, Where, Gather), not its own range. */
bool quant_const_shares_output(const ir_node *n, int k);

/* ---- sensitivity (quant_sensitivity.c) ---- */

/* Below this SQNR (dB) of a node's output in the fake-quantized run, after a fall of at least
 * QUANT_SENS_DROP_DB from its inputs', quantization has destroyed the signal there: at 10 dB
 * the error is a third of the signal (cosine ~0.95), and a fall of 20 dB in one operator is
 * no accumulation of rounding but an operator amplifying its inputs' error (a Log of a
 * power spectrum whose small values int8 rounds to zero). */
#define QUANT_SENS_FLOOR_DB 10.0
#define QUANT_SENS_DROP_DB 20.0
/* Rounds of growing the float region before giving up (each one more run of the samples). */
#define QUANT_SENS_ROUNDS 8

/* One fake-quantized measurement: m (float, not yet rewritten) is copied, the copy gets the
 * Q/DQ of plan p and both run on every sample; per tensor of m, the SQNR (dB; NAN when not
 * measured, -INFINITY when the fake-quantized value is not finite where the float one is):
 * raw_db of the value its producer computes from quantized inputs, seen_db of the value its
 * readers see (after its own Q/DQ). */
tosac_code quant_sens_measure(ir_model *m, const quant_options *o, const quant_calib *c,
                              const quant_seen *seen, const quant_plan *p, double *raw_db,
                              double *seen_db, tosac_error *err);
/* The default sensitivity step: measures, keeps float (in keep_float, per node of m) the
 * nodes where the signal is destroyed and the quantized nodes feeding them, round by round,
 * rebuilding *p; warns naming them. With o->mixed_auto, raises the most sensitive quantized
 * nodes to int16 after (in int16). */
tosac_code quant_sens_apply(ir_model *m, const quant_options *o, const quant_calib *c,
                            const quant_seen *seen, bool *keep_float, bool *int16,
                            quant_plan *p, tosac_error *err);

/* Inserts the Q/DQ nodes, quantizes weights and bias (quant_insert.c); seen (may be NULL)
 * gives the input means the biases are corrected with. */
tosac_code quant_insert(ir_graph *g, quant_scheme s, const quant_plan *p, const quant_seen *seen,
                        tosac_error *err);
/* Q -> DQ after t at qp (named after tensor name_of + suffix; *dq_out, if given, gets the DQ
 * output): the readers `only` lists (n_only >= 0) are switched to the DQ output, or all of
 * them (n_only < 0; a graph output keeps its name on the DQ output). */
tosac_code quant_pair(ir_graph *g, int t, int name_of, const char *suffix,
                      const quant_qparams *qp, const int *only, int n_only, int *dq_out,
                      tosac_error *err);

/* ---- If/Loop bodies (quant_body.c) ---- */

/* One If branch or Loop body below the top-level graph (nested ones included), with what the
 * calibration saw of its tensors. */
typedef struct quant_body {
    ir_graph *g;
    int parent;          /* index of the enclosing body, -1: the top-level graph */
    int node;            /* the If/Loop node of the enclosing graph holding it */
    quant_seen *seen;    /* per tensor id of g */
    int n_seen;
    int *outer;          /* per tensor id of g: outer_id when collected (the enclosing graph's
                          * insertion re-points captures to its DQ outputs) */
} quant_body;
typedef struct quant_bodies {
    quant_body *b;       /* parents before their children */
    int n;
} quant_bodies;

/* Lists every If/Loop body below g (Scan bodies stay float: no TOSA form lowers them). */
tosac_code quant_bodies_collect(ir_graph *g, quant_bodies *out, tosac_error *err);
void quant_bodies_free(quant_bodies *b);
/* One more calibration pass observing the bodies' tensors (min/max over every sample and, in a
 * Loop, every iteration; a capture takes its outer value's), then merges a Loop's carried
 * values' ranges (every iteration's inputs and outputs) into its outputs' in top (the
 * top-level seen), so one set of parameters covers them all. */
tosac_code quant_bodies_calibrate(ir_model *m, const quant_options *o, const quant_calib *c,
                                  quant_bodies *b, quant_seen *top, tosac_error *err);
/* Plans and inserts the Q/DQ of every body after the top-level graph got its own (top: its
 * plan, built on tensor ids that stay valid): a body's edges take the parameters of the
 * enclosing graph's value (capture, Loop carried value, If/Loop output), so COND_IF and
 * WHILE_LOOP edges are integers of one scale (pass_qdq_bodies.c moves the boundary Q/DQ). */
tosac_code quant_bodies_insert(ir_graph *g, quant_scheme s, const quant_plan *top,
                               quant_bodies *b, tosac_error *err);

/* ---- small graph helpers (quant_graph.c) ---- */

/* Adds a constant with a fresh name derived from base + suffix; returns its id or -1. */
int quant_add_const(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt, int rank,
                    const int64_t *shape, const void *data, tosac_error *err);
/* Adds a data tensor with a fresh name derived from base + suffix; returns its id or -1. */
int quant_add_tensor(ir_graph *g, const char *base, const char *suffix, tosac_dtype dt,
                     int rank, const int64_t *shape, tosac_error *err);
/* Constant float32 data of tensor t (initializer or Constant node), as a view; false if t is
 * not a float32 constant. */
bool quant_const_f32(const ir_graph *g, int t, tosac_tensor *out);
/* Appends an input to a node. */
tosac_code quant_node_append_input(ir_graph *g, int node, int tensor, tosac_error *err);
/* Removes an attribute from a node (no-op when absent). */
void quant_node_drop_attr(ir_graph *g, int node, const char *name);
/* Kills Constant nodes nobody reads and drops unreferenced tensors. */
tosac_code quant_cleanup(ir_graph *g, tosac_error *err);
/* A node name of g: want, or want_<k> when a node has it (quant_graph.c). */
void quant_node_name(const ir_graph *g, const char *want, char *buf, size_t len);

#endif
