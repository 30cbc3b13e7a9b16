/* The backend matrix: one single-operator model per row, compiled under each spec column that
 * applies (backend_matrix.c runs them, backend_matrix_cases.c lists them). */
#ifndef TOSAC_BACKEND_MATRIX_H
#define TOSAC_BACKEND_MATRIX_H

#include "lower_core_testutil.h"

enum {
    MX_I8,      /* TOSA-1.0+INT, a8w8 QDQ model */
    MX_I16,     /* TOSA-1.0+INT+int16, a16w8 QDQ model */
    MX_Q8,      /* TOSA-1.0+INT, the float model through tosac's quantizer (a8w8) */
    MX_Q16,     /* TOSA-1.0+INT+int16, the float model through tosac's quantizer (a16w8) */
    MX_FP,      /* TOSA-1.0+FP, float model */
    MX_I64_11,  /* TOSA-1.1+INT+int64, int64 model (values beyond int32) */
    MX_I64_10,  /* TOSA-1.0+INT, the same int64 model */
    MX_NCOLS
};
#define MX_COL(c) (1u << (c))
#define MX_QUANT (MX_COL(MX_I8) | MX_COL(MX_I16))
#define MX_TQUANT (MX_COL(MX_Q8) | MX_COL(MX_Q16))
#define MX_INTS (MX_QUANT | MX_TQUANT)
#define MX_FLOATS (MX_INTS | MX_COL(MX_FP))
#define MX_INT64 (MX_COL(MX_I64_11) | MX_COL(MX_I64_10))

typedef struct mx_case {
    const char *row;             /* row label */
    const char *op;              /* the ONNX operator */
    tosac_dtype dt;              /* runtime inputs: F32 (quantized in QDQ columns), I64 or I32
                                  * (an integer model, never quantized) */
    int rank;
    int64_t shape[5];            /* input x (and x2 unless rank2) */
    int n_x;                     /* runtime inputs: 1 or 2 */
    int rank2;
    int64_t shape2[4];
    float lo, hi;                /* float input range (x2: the same unless lo2 < hi2) */
    float lo2, hi2;
    int (*more)(lc_b *b, int *ins, int n); /* appends constant inputs; returns the new count */
    void (*attrs)(lc_b *b, int node);
    int n_out;                   /* 0 means 1 */
    bool plain;                  /* outputs are bool / integer: exact, not quantized */
    bool int_model;              /* float input unused: an integer/bool model (no quantized
                                  * tensor, its int32 present) */
    const char *tosa_op;         /* an operator the delegate must hold ("CONV2D") */
    const char *tosa_qop;        /* ... in the a8w8/a16w8 columns, when different ("TABLE");
                                  * "A|B": either */
    unsigned cols;               /* columns that apply */
    unsigned cpu_cols;           /* columns where the node stays on the CPU by design */
    const char *cpu_category;    /* ... with this report category */
    bool acc48;                  /* a16w8: tosa_op accumulates in i48 */
    double qtol;                 /* allowed error in int16 output steps; 0 means 1 */
    double qtol_q16;             /* ... in the --quantize a16w8 column (its ranges, and the
                                  * int16 TABLEs of decompositions); 0: as above */
    const char *why_qtol_q16;
    int nodes;                   /* model nodes delegated (rows building a chain); 0 means 1 */
    int nodes_q;                 /* ... in the --quantize columns (the quantizer's
                                  * decompositions are model nodes there); 0: as nodes */
    const char *why_qtol;        /* the stated reason when qtol > 1 */
    unsigned bug_cols;           /* columns with a known, reported bug: not checked; the table
                                  * shows the bug instead of a result */
    const char *bug;
    int64_t opset;               /* the model's opset when the operator is newer (0: 13/21) */
    const char *spec_ext;        /* appended to the column's spec ("+fft"), or NULL */
} mx_case;

/* A peer test file (backend_matrix_peer.c): the configs it is tested under there and the
 * matrix rows mirroring it ("A;B"), or NULL and why there is none. */
enum { MX_PEER_INT = 1, MX_PEER_FP = 2, MX_PEER_A16 = 4 };
typedef struct mx_peer {
    const char *file;            /* test_<file>.py */
    unsigned tested;             /* MX_PEER_*: the configs the peer tests it under */
    const char *rows;            /* the rows mirroring it, ';'-separated, or NULL */
    const char *fp_rows;         /* the FP config's rows when not the same, or NULL */
    const char *why;             /* rows == NULL: why there is no delegated form; else, with
                                  * fp_rows: why the FP rows are more (the peer tests them
                                  * under FP alone) */
} mx_peer;

extern const mx_peer mx_peers[];
extern const int mx_n_peers;

extern const mx_case mx_cases[];
extern const int mx_n_cases;

#endif
