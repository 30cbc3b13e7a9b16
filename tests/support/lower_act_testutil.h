/* Single-operator models for the activation / softmax / quantization / norm lowering tests:
 * the float model x -> op -> y, and its QDQ twin x -Q-DQ-> op -Q-DQ-> y (int8 or int16). A
 * case is compiled under a spec (tosac_compile_model), the delegates counted, the emitted
 * operators listed, the program run against the float model on the CPU executor (lc_tol:
 * qtol output steps, float outputs 1e-5 relative, no fixed floor) and the delegate's TOSA
 * graph run alone on the interpreter, which must give the program's result. */
#ifndef TOSAC_LOWER_ACT_TESTUTIL_H
#define TOSAC_LOWER_ACT_TESTUTIL_H

#include "backend_testutil.h"

#include "tosac/ir.h"
#include "tosac/tosa.h"

/* A constant input of the operator (after x), float; quantized through Q/DQ in the QDQ model
 * when qscale > 0 (int8, zero point 0). */
typedef struct lat_const {
    const char *name;
    int rank;
    int64_t shape[4];
    const float *data;
    float qscale;
} lat_const;

typedef struct lat_op {
    const char *op_type;
    int rank;
    int64_t shape[4];                      /* x and y */
    int n_extra;
    lat_const extra[4];
    void (*attrs)(ir_graph *g, int node);  /* NULL: none */
    int64_t opset;                         /* 0: 13 */
} lat_op;

typedef struct lat_quant {
    tosac_dtype dt;                        /* F32: no Q/DQ (float model) */
    float sx, sy;
    int64_t zx, zy;
} lat_quant;

typedef struct lat_result {
    int delegated;                         /* "delegate" placements in the report */
    char ops[1024];                        /* delegate 0's operators (no CONST), space separated */
    const tosa_graph *tg;                  /* delegate 0, or NULL */
    void *prog_;                           /* the program (owns tg) */
    double max_err;                        /* largest |program - float reference| */
} lat_result;

/* Builds the model for q. */
ir_model *lat_model(const lat_op *op, const lat_quant *q);

/* Compiles the case under spec and checks it as described above; x has numel(shape) values.
 * qtol is the allowed error in output steps (1 unless a test states why). */
void lat_run(const lat_op *op, const lat_quant *q, const char *spec, const float *x, double qtol,
             lat_result *r);
void lat_result_free(lat_result *r);

/* The dtype of the output of the nth operator `op` of delegate 0 (test fails if none). */
tosac_dtype lat_out_dtype(const lat_result *r, tosa_op op, int nth);
/* Number of operators `op` in delegate 0. */
int lat_count(const lat_result *r, tosa_op op);

/* n values spread evenly over [lo, hi]. */
void lat_ramp(float *x, int n, float lo, float hi);

#endif
