/* The pass pipeline, in order. */
#include <stdbool.h>
#include <stdio.h>

#include "passes/passes.h"

static const struct {
    const char *name;
    pass_fn fn;
    bool bodies; /* also run on If/Loop bodies (parents first) */
} pipeline[] = {
    /* Exporter noise (Constant nodes, Cast(ConstantOfShape) zero points, identity Casts
     * between Q and DQ) becomes plain constants, so the Q/DQ patterns are visible. */
    {"fold_constants", pass_fold_constants, false},
    /* TOSA 1.0 has no uint8 tensors: uint8 quantized values become int8 with zp - 128
     * (exact), so delegates and the boundary Q/DQ see int8. */
    {"u8_to_i8", pass_u8_to_i8, false},
    /* TOSA has no batch normalization: folded into the Conv/ConvTranspose/Gemm before it
     * (float weights, or the int8 weights' per-channel scales in QDQ graphs). */
    {"fold_bn", pass_fold_bn, false},
    /* TOSA has no float division: multiply by the reciprocal (a constant one computed once;
     * in QDQ graphs requantized so the Mul still folds). */
    {"decompose_div", pass_decompose_div, false},
    /* TOSA ADD takes two operands: variadic Sum/Mean become chains of Add. */
    {"decompose_sum", pass_decompose_sum, false},
    /* A float scalar multiplier left between a DQ and a Q (e.g. "/ 6" after decompose_div)
     * becomes an exactly quantized constant, so its Mul folds instead of hopping to the CPU. */
    {"quantize_scalar_mul", pass_quantize_scalar_mul, false},
    /* Q/DQ pairs become quantization parameters on integer tensors, so that every later
     * stage sees "Conv(x_q i8, w_q i8, b i32) -> y_q i8" instead of float islands. */
    /* The Q/DQ at If/Loop body edges move across them (integer COND_IF / WHILE_LOOP edges),
     * and the bodies' own Q/DQ fold like the top level's, so quantized bodies lower. */
    {"qdq_bodies", pass_qdq_bodies, true},
    {"fold_qdq", pass_fold_qdq, true},
    /* What is left of DQ -> Q pairs is a change of quantization: a quantized Identity that
     * lowers to one RESCALE, instead of a float hop through the CPU. */
    {"fold_requant", pass_fold_requant, true},
    /* With PRO-FP (TOSA-1.0+INT+FP), a folded node whose integer form does not lower gets
     * DQ -> float op -> Q back: Q/DQ and the float op lower inside the delegate, which stays
     * whole instead of being cut by a CPU node. */
    {"unfold_float", pass_unfold_float, false},
    /* Without EXT-INT64 a delegate holds int32 only: int64 values whose range provably fits
     * become int32 (last: it trial-lowers nodes exactly as the partitioner will). */
    {"narrow_int64", pass_narrow_int64, false},
};

/* fn on g, then on the bodies of its If/Loop nodes (Scan bodies stay as they are: no TOSA
 * form lowers them, and the CPU runs them as imported). */
static tosac_code run_deep(pass_fn fn, ir_graph *g, const pass_ctx *c, int depth,
                           tosac_error *err)
{
    tosac_code rc = fn(g, c, err);
    for (int i = 0; !rc && depth < 32 && i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        ir_graph *sub;
        if (n->dead || !(ir_node_is(n, "If") || ir_node_is(n, "Loop")))
            continue;
        for (int k = 0; !rc && (sub = ir_node_subgraph(n, k)); k++)
            rc = run_deep(fn, sub, c, depth + 1, err);
    }
    return rc;
}

tosac_code passes_run(ir_graph *g, const pass_ctx *c, tosac_error *err)
{
    for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
        tosac_code rc = pipeline[i].bodies ? run_deep(pipeline[i].fn, g, c, 0, err)
                                           : pipeline[i].fn(g, c, err);
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
