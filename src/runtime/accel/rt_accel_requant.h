/* The RESCALE (i32 -> i8, scale32) and optional CLAMP (i8) that follow an int32 accumulating
 * operator (CONV2D, MATMUL), matched for fusion into its kernel's epilogue (qgemm.h). Every
 * static check of the reference's RESCALE and CLAMP (interp_type_conversion.c,
 * interp_activation.c) is made here; anything else is not matched (the operator then runs
 * unfused). */
#ifndef TOSAC_RT_ACCEL_REQUANT_H
#define TOSAC_RT_ACCEL_REQUANT_H

#include "runtime/accel/rt_accel.h"
#include "ukernels/qgemm.h"

typedef struct rt_accel_requant {
    int ops[2], n_ops;          /* the RESCALE, then the CLAMP when fused */
    int final;                  /* the tensor the group ends in */
    const int32_t *mult;        /* n values (n: the channel count, or 1) */
    const int8_t *shift;
    int n;
    int double_round;
    int32_t out_zp, lo, hi;     /* the int8 range intersected with the CLAMP's */
} rt_accel_requant;

/* Matches the RESCALE that is the sole reader of tensor t (the int32 result of operator
 * prod, channels in its last dimension: nc), and the CLAMP that is the sole reader of its
 * result, both next in execution order. Returns 1 and fills rq, or 0. */
int rt_accel_match_requant(const rt_accel_block *ab, int prod, int t, int64_t nc,
                           rt_accel_requant *rq);

/* The epilogue fields of q: rq's RESCALE (+CLAMP) when rq is non-NULL, else int32 out. */
void rt_accel_requant_qgemm(const rt_accel_requant *rq, qgemm_params *q);

/* A fused epilogue found a value its RESCALE's REQUIRE rejects: runs the group's first
 * operator (c, its reference function first) and then the RESCALE rescale_op of bs on the
 * reference, which report the failure in the reference's words. */
tosac_code rt_accel_requant_report(interp_ctx *c, interp_op_fn first,
                                   const interp_block_state *bs, int rescale_op);

#endif
