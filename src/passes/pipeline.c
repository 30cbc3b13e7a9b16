/* The pass pipeline, in order. */
#include <stdio.h>

#include "passes/passes.h"

static const struct {
    const char *name;
    pass_fn fn;
} pipeline[] = {
    /* Exporter noise (Constant nodes, Cast(ConstantOfShape) zero points, identity Casts
     * between Q and DQ) becomes plain constants, so the Q/DQ patterns are visible. */
    {"fold_constants", pass_fold_constants},
    /* TOSA 1.0 has no uint8 tensors: uint8 quantized values become int8 with zp - 128
     * (exact), so delegates and the boundary Q/DQ see int8. */
    {"u8_to_i8", pass_u8_to_i8},
    /* TOSA has no batch normalization: folded into the Conv/ConvTranspose/Gemm before it
     * (float weights, or the int8 weights' per-channel scales in QDQ graphs). */
    {"fold_bn", pass_fold_bn},
    /* TOSA has no float division: multiply by the reciprocal (a constant one computed once;
     * in QDQ graphs requantized so the Mul still folds). */
    {"decompose_div", pass_decompose_div},
    /* TOSA ADD takes two operands: variadic Sum/Mean become chains of Add. */
    {"decompose_sum", pass_decompose_sum},
    /* A float scalar multiplier left between a DQ and a Q (e.g. "/ 6" after decompose_div)
     * becomes an exactly quantized constant, so its Mul folds instead of hopping to the CPU. */
    {"quantize_scalar_mul", pass_quantize_scalar_mul},
    /* Q/DQ pairs become quantization parameters on integer tensors, so that every later
     * stage sees "Conv(x_q i8, w_q i8, b i32) -> y_q i8" instead of float islands. */
    {"fold_qdq", pass_fold_qdq},
    /* What is left of DQ -> Q pairs is a change of quantization: a quantized Identity that
     * lowers to one RESCALE, instead of a float hop through the CPU. */
    {"fold_requant", pass_fold_requant},
    /* With PRO-FP (TOSA-1.0+INT+FP), a folded node whose integer form does not lower gets
     * DQ -> float op -> Q back: Q/DQ and the float op lower inside the delegate, which stays
     * whole instead of being cut by a CPU node. */
    {"unfold_float", pass_unfold_float},
    /* Without EXT-INT64 a delegate holds int32 only: int64 values whose range provably fits
     * become int32 (last: it trial-lowers nodes exactly as the partitioner will). */
    {"narrow_int64", pass_narrow_int64},
};

tosac_code passes_run(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        tosac_code rc = pipeline[i].fn(g, c, err);
        if (rc)
            return tosac_fail(err, rc, "pass %s failed", pipeline[i].name);
        if (ir_graph_verify(g, err)) { /* the input was valid: the pass broke the graph */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            tosac_error_clear(err);
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "pass %s left an invalid graph: %s",
                              pipeline[i].name, why);
        }
    }
    return TOSAC_OK;
}
