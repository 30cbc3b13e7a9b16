/* Test helpers for the lowering rules of lower-core (matmul, pool, layout) and the partition
 * and zoo-compile tests.
 *
 * A test describes a small float model once, as a build callback; lc_check builds it
 *   - in float, with every probed tensor as an extra output, and runs it on the CPU executor
 *     to calibrate (per-tensor ranges of inputs, probes and outputs);
 *   - in the requested mode: LC_FLOAT as is; LC_A8W8 / LC_A16W8 as a QDQ graph (activations
 *     int8 asymmetric or int16 symmetric from the calibrated ranges, weights int8 symmetric
 *     per channel, bias int32 at scale sx*sw), written to ONNX bytes and imported back (as a
 *     model file would be);
 * then compiles it for a spec, runs the program, and asserts
 *   - every output against the reference (the CPU executor on the same model, i.e. the QDQ
 *     graph's float semantics) with lc_assert_steps: quantized outputs within qtol output
 *     steps, float outputs within fp32 rounding (no fixed floor either way);
 *   - every delegate, written to .tosa bytes, read back and run alone on the interpreter with
 *     the values the program fed it, gives bit-identical outputs.
 * The result lists the report's placement counts and the delegates' operators for the test's
 * own assertions. */
#ifndef TOSAC_LOWER_CORE_TESTUTIL_H
#define TOSAC_LOWER_CORE_TESTUTIL_H

#include "backend_testutil.h"

#include "tosac/ir.h"
#include "tosac/program.h"
#include "tosac/quant.h"
#include "tosac/tosa.h"

typedef enum lc_mode { LC_FLOAT, LC_A8W8, LC_A16W8 } lc_mode;

typedef struct lc_b lc_b;
typedef void (*lc_build_fn)(lc_b *b, const void *arg);

/* ---- inside a build callback ---- */
ir_graph *lc_graph(lc_b *b);
lc_mode lc_mode_of(const lc_b *b);
/* The model's default-domain opset, for operators newer than the mode's (13, or 21 for
 * a16w8); call first in the build callback. */
void lc_set_opset(lc_b *b, int64_t opset);
/* A float graph input with its sample data; returns the tensor ops should read (its
 * dequantized value in the QDQ modes). */
int lc_input(lc_b *b, const char *name, int rank, const int64_t *shape, const float *data);
/* A graph input of any dtype (int64 indices, bool masks, ...): never quantized; data holds
 * numel(shape) elements of dt. */
int lc_input_typed(lc_b *b, const char *name, tosac_dtype dt, int rank, const int64_t *shape,
                   const void *data);
/* Float weights (a constant); QDQ modes: int8 symmetric, per channel along axis (or per tensor
 * when axis < 0), read through a DequantizeLinear. */
int lc_weight(lc_b *b, const char *name, int rank, const int64_t *shape, const float *data,
              int axis);
/* A bias of n floats for an op reading x and weights w (both from lc_input/lc_weight/lc_q):
 * QDQ modes: int32 at scale sx*sw[c] through a DequantizeLinear. */
int lc_bias(lc_b *b, const char *name, int64_t n, const float *data, int x, int w);
/* A 1-D int64 constant (shapes, axes, split sizes). */
int lc_ints(lc_b *b, const char *name, int n, const int64_t *v);
/* A node with n_out new outputs (type and shape inferred) named "<name>_<i>"; returns the node index. */
int lc_node(lc_b *b, const char *op, const char *name, const int *ins, int n_in, int n_out);
/* Output i of node k. */
int lc_out(lc_b *b, int node, int i);
/* A quantization point on t (QDQ modes: Q -> DQ with calibrated parameters); returns the
 * tensor to read. */
int lc_q(lc_b *b, int t);
/* Marks t as a graph output (QDQ modes: through Q -> DQ). */
void lc_output(lc_b *b, int t);
/* Marks t as a graph output as it is (bool / integer results: compared exactly). */
void lc_output_plain(lc_b *b, int t);

/* The three modes with the spec each compiles under, the activation type and the
 * accumulator type of its convolutions/matmuls. */
typedef struct lc_mode_case {
    lc_mode mode;
    const char *spec;
    tosac_dtype dt, acc;
} lc_mode_case;
extern const lc_mode_case lc_modes[3];

/* Deterministic test data: n values in [-amp, amp) from seed (an LCG). */
void lc_fill(float *v, int n, unsigned seed, float amp);

/* ---- running ---- */
typedef struct lc_op_info {
    tosa_op op;
    tosac_dtype in_dtype, out_dtype, acc_type;
    int32_t axis;                 /* the axis attribute (CONCAT, REDUCE_*, ...) */
} lc_op_info;

#define LC_MAX_OPS 512 /* GridSample under reflection: its first GATHER comes after 128 */
typedef struct lc_result {
    int delegated, cpu, folded;   /* report placements */
    int n_delegates;
    lc_op_info ops[LC_MAX_OPS];   /* non-constant operators of all delegates, in order (the
                                   * first LC_MAX_OPS) */
    int n_ops;
    tosac_dtype boundary[16];     /* dtypes of delegate 0's outputs */
    int n_boundary;
    char reasons[1024];           /* the CPU nodes' "op_type: reason", "; "-separated */
    char categories[512];         /* the CPU nodes' "op_type: category", "; "-separated */
    char cpu_graph[512];          /* the program's CPU graph: op types in order, space-separated */
    char delegate_readers[256];   /* op types reading delegate outputs on the CPU */
    unsigned char dtypes[TOSAC_DT_COUNT]; /* dtypes present among the delegates' tensors */
} lc_result;

/* Builds, compiles under spec, runs and checks (see above); qtol in output steps. */
void lc_check(lc_build_fn build, const void *arg, lc_mode mode, const char *spec, double qtol,
              lc_result *r);
/* The same for a float model quantized by tosac's own quantizer (tosac_quantize with the
 * scheme, calibrated on the inputs the program then runs on), as `tosac compile --quantize`
 * does: the reference is the CPU executor on the quantized model, quantized outputs are
 * compared in the steps of the DequantizeLinear writing them. */
void lc_check_quantize(lc_build_fn fn, const void *arg, quant_scheme scheme, const char *spec,
                       double qtol, lc_result *r);
/* Number of operators op (with output dtype out_dt unless TOSAC_DT_UNKNOWN). */
int lc_count(const lc_result *r, tosa_op op, tosac_dtype out_dt);
/* The first operator op, or NULL. */
const lc_op_info *lc_find(const lc_result *r, tosa_op op);

/* Runs program p on inputs; checks every delegate alone against the values the program
 * passed it (bit-exact), with each delegate graph first written to bytes and read back (or
 * taken from emitted[k] when not NULL). outs gets the program's n_out outputs. The delegates'
 * inputs and outputs are appended to p's CPU graph outputs (so p can be run again this way). */
void lc_run_program_checked(tosac_program *p, const tosac_tensor *ins, int n_in,
                            tosac_tensor *outs, int n_out, tosa_graph *const *emitted);
/* The allowed |y - ref| for one element: scale > 0 (a dequantized output) qtol steps plus
 * 1e-6 |ref| (the f32 rounding of q * scale on both sides: 2^-24 relative each, under 0.04
 * of a step even at |q| = 32767); scale 0 (float) 1e-5 (|ref| + ref_max), ref_max the
 * tensor's largest |ref| (a sum in another order errs relative to its terms, not its result). */
double lc_tol(double qtol, double scale, double ref, double ref_max);
/* Every f32 element within lc_tol; other dtypes must match exactly. */
void lc_assert_steps(const tosac_tensor *y, const tosac_tensor *ref, double scale, double qtol,
                     const char *what);
/* |y - ref| <= atol + 1e-3 |ref| for every element (both f32, same numel); other dtypes must
 * match exactly. */
void lc_assert_close(const tosac_tensor *y, const tosac_tensor *ref, double atol,
                     const char *what);

#endif
