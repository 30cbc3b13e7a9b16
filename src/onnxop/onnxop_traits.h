/* Operator traits: what the quantizer and the graph passes know about an ONNX operator's
 * class, one row per op type in onnxop_traits.c, so adding an operator adds one row there
 * instead of an entry in each pass's own list.
 *
 * Input slots are given as masks (onnxop_slot_in): bit k is input k, bit 31 stands for every
 * input from 31 on (variadic operators: Concat, Max, ...). Runtime-safe (no allocation). */
#ifndef TOSAC_ONNXOP_TRAITS_H
#define TOSAC_ONNXOP_TRAITS_H

#include <stdbool.h>
#include <stdint.h>

#include "tosac/ir.h"

/* How the post-training quantizer treats an operator (quant_plan.c). */
typedef enum onnxop_qclass {
    ONNXOP_Q_NONE = 0, /* stays float: reads DQ outputs */
    ONNXOP_Q_COMPUTE,  /* integer arithmetic with its own output range (Conv, Add, ...) */
    ONNXOP_Q_SHARED,   /* passes values through: its data inputs and outputs share one range
                          (Reshape, Transpose, MaxPool, Concat, ...) */
    ONNXOP_Q_OWN,      /* quantized, its output has its own range (Relu, Sigmoid, ...) */
} onnxop_qclass;

enum {
    ONNXOP_FUSES_ACT = 1u << 0,    /* a Relu/Clip reading its output alone is fused into it */
    ONNXOP_FUSABLE_ACT = 1u << 1,  /* the Relu/Clip that fuses (no Q/DQ between) */
    ONNXOP_QUANT_FORM = 1u << 2,   /* only in an already quantized model (Q, DQ, QLinear*) */
    ONNXOP_NO_QDQ_FOLD = 1u << 3,  /* never absorbs its Q/DQ neighbours (pass_fold_qdq.c) */
    ONNXOP_INDEX_RESULT = 1u << 4, /* integer/bool result is an index or truth value: folds on
                                      its dequantized inputs alone */
    ONNXOP_NO_CONST_FOLD = 1u << 5, /* never constant-folded: random draws, Constant (already
                                       one), Q/DQ (their structure is what the Q/DQ folding
                                       reads; pass_fold_constants.c folds a DQ on request) */
    ONNXOP_COPIES_VALUES = 1u << 6 /* every output element is an element of input 0 (an int64
                                      value range carries through, pass_narrow_int64.c) */
};

#define ONNXOP_SLOTS_ALL 0xffffffffu
#define ONNXOP_SLOTS_FROM(k) (0xffffffffu << (k))
#define ONNXOP_SLOT(k) (1u << (k))

typedef struct onnxop_traits {
    const char *op_type; /* ai.onnx operator; the table is sorted by it */
    uint32_t flags;
    onnxop_qclass qclass;
    /* Input slots holding activations the quantizer quantizes (for Q_SHARED ones: the slots
     * sharing the output's range); the others are parameters (shapes, axes, indices, clip
     * bounds, roi/scales, weights and bias through their own rules). */
    uint32_t q_data;
    /* Input slots where a constant is quantized per tensor like an activation (for Q_SHARED
     * operators at the output's parameters, its range merged into the output's). */
    uint32_t q_const;
    /* Float constant parameter inputs that stay float when the op absorbs its Q/DQ
     * (pass_fold_qdq.c): Clip bounds, Resize roi/scales, a float Conv/Gemm bias. */
    uint32_t float_params;
    /* Integer compile-time parameter inputs (shapes, axes, counts, pads), never values
     * (pass_narrow_int64.c). */
    uint32_t int_params;
} onnxop_traits;

/* The row of n's operator (ai.onnx domain ""), or NULL: no traits (everything 0). */
const onnxop_traits *onnxop_traits_of(const ir_node *n);
/* The row for an ai.onnx op type, or NULL. */
const onnxop_traits *onnxop_traits_find(const char *op_type);
/* n's flags & flag (false when n has no row). */
bool onnxop_has(const ir_node *n, uint32_t flag);
/* n's quantizer class (ONNXOP_Q_NONE when n has no row). */
onnxop_qclass onnxop_qclass_of(const ir_node *n);
/* Whether input slot k is in mask. */
static inline bool onnxop_slot_in(uint32_t mask, int k)
{
    return k >= 0 && ((mask >> (k < 31 ? k : 31)) & 1u);
}

/* The table itself (tests walk it). */
extern const onnxop_traits onnxop_traits_table[];
extern const int onnxop_traits_count;

#endif
