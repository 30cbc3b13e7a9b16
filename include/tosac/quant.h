/* Post-training quantization: float ONNX graph IR -> QDQ graph IR.
 *
 * tosac_quantize calibrates the float model on sample inputs (an observer per tensor, run with
 * the CPU executor: min/max, moving-average min/max, or a histogram searched for a percentile,
 * the least squared error or the least KL divergence), then rewrites the graph into the QDQ form onnxruntime and ExecuTorch emit:
 *   activations: x -> QuantizeLinear -> DequantizeLinear -> op   (per-tensor)
 *   weights:     int8 initializer (per output channel) -> DequantizeLinear -> op
 *   bias:        int32 initializer (scale = s_in * s_w[c]) -> DequantizeLinear -> op (a8w8;
 *                a value beyond int32 is an error naming the tensor)
 * Schemes (as ExecuTorch's Arm quantizer):
 *   A8W8:  int8 asymmetric activations (range extended to include 0), int8 symmetric
 *          per-channel weights in [-127, 127], int32 bias.
 *   A16W8: int16 symmetric activations (zero point 0, scale = max|x| / 32767), int8 weights,
 *          float bias: the convolutions accumulate in int48, and ONNX DequantizeLinear has no
 *          48-bit input, so the compiler quantizes the bias to int48 at s_in * s_w[c].
 * The model's ai.onnx opset is raised when the QDQ form needs it (13 for per-channel
 * weights, 21 for int16 Q/DQ); the operators whose signature changed are rewritten.
 * BatchNormalization that directly follows a Conv is folded into it first; Relu/Clip right
 * after Conv/Gemm/MatMul/Add are fused (quantized after the activation only). Div, other
 * BatchNormalizations, Layer/InstanceNormalization, Clip with runtime bounds and per-channel
 * PRelu are decomposed into quantized operators before calibration. Operators not
 * quantized stay float between a DequantizeLinear and a QuantizeLinear, so the model keeps
 * its meaning. See src/quant/quant_plan.c for the per-operator rules. */
#ifndef TOSAC_QUANT_H
#define TOSAC_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "tosac/error.h"
#include "tosac/ir.h"
#include "tosac/tensor.h"

typedef enum quant_scheme {
    QUANT_A8W8 = 0,
    QUANT_A16W8 = 1,
} quant_scheme;

/* How calibration turns the observed values into an activation range (src/quant/quant_observer*.c). */
typedef enum quant_calib_method {
    QUANT_CALIB_DEFAULT = 0, /* QUANT_CALIB_DEFAULT_IS: the measured best (docs/USAGE.md) */
    QUANT_CALIB_MINMAX,      /* min and max over all samples */
    QUANT_CALIB_MOVING_AVG,  /* per-sample min/max, averaged: x += 0.01 (sample - x) */
    QUANT_CALIB_PERCENTILE,  /* histogram; each tail clipped at 1 - percentile */
    QUANT_CALIB_MSE,         /* histogram; the range of least expected squared error */
    QUANT_CALIB_ENTROPY,     /* histogram; the range of least KL divergence (TensorRT's) */
} quant_calib_method;
#define QUANT_CALIB_DEFAULT_IS QUANT_CALIB_MSE
/* How int8 weights are rounded (src/quant/quant_weight_round.c). */
typedef enum quant_weight_rounding {
    QUANT_WROUND_DEFAULT = 0, /* QUANT_WROUND_DEFAULT_IS */
    QUANT_WROUND_NEAREST,     /* each weight to its nearest step */
    QUANT_WROUND_GPTQ,        /* in order, each error compensated on the later weights through
                               * the layer input's covariance on the samples (GPTQ) */
} quant_weight_rounding;
#define QUANT_WROUND_DEFAULT_IS QUANT_WROUND_GPTQ
#define QUANT_PERCENTILE_DEFAULT 99.99
#define QUANT_MIXED_AUTO_BUDGET (-1)
#define QUANT_MIXED_AUTO_FRACTION 0.1 /* of the quantized nodes, at least one */

/* Progress of the calibration runs: pass names the pass ("calibration", "histograms",
 * "sqnr"), done of total samples; called with 0 as a pass starts, then after each sample. */
typedef void (*quant_progress_fn)(void *ctx, const char *pass, int done, int total);

/* Plain data by design (options and calibration samples): the caller fills them. */
typedef struct quant_options {
    quant_scheme scheme;
    quant_calib_method method;
    double percentile;              /* QUANT_CALIB_PERCENTILE; 0: QUANT_PERCENTILE_DEFAULT */
    const char *exclude;            /* NULL, or "NAME|OP_TYPE,...": these nodes stay float */
    bool no_keep_float;             /* quantize the nodes the sensitivity step would keep
                                     * float (where quantization destroys the signal) */
    quant_weight_rounding rounding; /* of Conv/Gemm weights */
    bool bias_correction;           /* correct Conv/Gemm biases for the mean shift weight
                                     * rounding causes (quant_bias_correct.c) */
    const char *int16;              /* NULL, or "NAME|OP_TYPE,...": int16 activations for these
                                     * nodes in an a8w8 model (mixed precision) */
    int mixed_auto;                 /* 0; N > 0: raise the N most sensitive nodes to int16;
                                     * QUANT_MIXED_AUTO_BUDGET: QUANT_MIXED_AUTO_FRACTION of them */
    bool bodies;                    /* quantize inside If/Loop bodies too, their edges at the
                                     * enclosing values' parameters, so COND_IF / WHILE_LOOP
                                     * delegate with integer edges (compile sets it under
                                     * +cf; without it an If/Loop runs on the CPU, where
                                     * float bodies keep their accuracy) */
    /* With bodies: NULL, or asked for each top-level If/Loop node i of g (the float graph
     * the plan is made for) whether it can become COND_IF / WHILE_LOOP (compile's check).
     * When none can, bodies are not entered (as without bodies); else those that cannot are
     * kept float with their edges, as --exclude would: quantized bodies would buy them no
     * delegate and only lose accuracy. */
    bool (*body_lowers)(void *ctx, const ir_graph *g, int i);
    void *body_lowers_ctx;
    char **report;                  /* NULL, or gets the per-tensor report JSON (malloc'd) */
    quant_progress_fn progress;     /* NULL: quiet */
    void *progress_ctx;
} quant_options;

/* "a8w8" / "a16w8" (case-sensitive); TOSAC_ERR_INPUT naming the string otherwise. */
tosac_code quant_parse_scheme(const char *s, quant_scheme *out, tosac_error *err);
const char *quant_scheme_name(quant_scheme s);
/* "minmax", "moving-average", "percentile" or "percentile=P" (0 < P <= 100), "mse", "entropy";
 * TOSAC_ERR_INPUT naming the string otherwise. Sets o->method (and o->percentile). */
tosac_code quant_parse_method(const char *s, quant_options *o, tosac_error *err);
const char *quant_method_name(quant_calib_method m);
/* --weight-rounding: "nearest" or "gptq" into o->rounding; TOSAC_ERR_INPUT naming the string
 * otherwise. */
tosac_code quant_parse_rounding(const char *s, quant_options *o, tosac_error *err);
/* --mixed: "auto" (QUANT_MIXED_AUTO_BUDGET) or "auto=N" (N >= 1) into o->mixed_auto;
 * TOSAC_ERR_INPUT naming the string otherwise. */
tosac_code quant_parse_mixed(const char *s, quant_options *o, tosac_error *err);

/* ---- calibration data ---- */

/* n_samples samples of n_inputs tensors each, in graph-input order:
 * tensors[s * n_inputs + i] is graph input i of sample s. */
typedef struct quant_calib {
    int n_samples;
    int n_inputs;
    tosac_tensor *tensors;
} quant_calib;

/* Loads calibration samples for the graph inputs of m from --calib arguments:
 *   FILE.npy        one sample of a one-input model
 *   NAME=FILE.npy   one input of a sample; a sample is complete when every input is named,
 *                   and naming an input again starts the next sample
 *   DIR             every sub-folder DIR/<sample>/ holding <input name>.npy per input
 *                   (names with characters outside [A-Za-z0-9_.-] as '_'), sorted by name;
 *                   or DIR itself when it holds those files directly.
 * Every tensor is checked against its graph input: dtype equal, rank equal, every known dim
 * equal; a mismatch is TOSAC_ERR_INPUT naming the input and the file. */
tosac_code quant_calib_load(const ir_model *m, const char *const *args, int n_args,
                            quant_calib *out, tosac_error *err);
/* Checks one sample's tensors against the graph inputs (what quant_calib_load does per file). */
tosac_code quant_calib_check(const ir_graph *g, const tosac_tensor *t, int input,
                             const char *what, tosac_error *err);
void quant_calib_free(quant_calib *c);

/* ---- the quantizer ---- */

/* Quantizes m in place (see above). calib must hold at least one sample for every graph
 * input. On failure m may be partly rewritten: the caller discards it. */
tosac_code tosac_quantize(ir_model *m, const quant_options *o, const quant_calib *calib,
                          tosac_error *err);

#endif
