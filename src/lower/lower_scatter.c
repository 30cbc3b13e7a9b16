/* ScatterND (reduction "none") with constant indices as one SCATTER: data [d0..dr-1] viewed
 * as values_in [1, K, C] with K = d0*..*d(q-1) and C the rest, each index tuple (the last
 * indices dim q) flattened to a row k at compile time ([1, W] int32), updates viewed as
 * [1, W, C]. Negative indices count from the end, as ONNX allows. A repeated row is refused:
 * ONNX leaves the result undefined and SCATTER requires each row to be written once.
 * Quantized (data moves unchanged): data and updates rescaled to the output's quantization
 * where theirs differs. Runtime indices stay on the CPU (their rows are not known). */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"

/* Operand slot of n as block tensor in Y's quantization (or as it is when float). */
static int operand(lower_ctx *c, const ir_node *n, int slot, const ir_tensor *Y, bool quant)
{
    const ir_tensor *T = lower_in_ir(c, n, slot);
    int t = lower_in(c, n, slot);
    if (t < 0 || !quant || lx_same_quant(T, Y))
        return t;
    return lx_rescale(c, t, lower_qscale(T) / lower_qscale(Y), lower_qzp(T), lower_qzp(Y),
                      Y->dtype, -1);
}

static tosac_code lower_scatter_nd(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *I = lower_in_ir(c, n, 1);
    const ir_tensor *U = lower_in_ir(c, n, 2), *Y = lower_out_ir(c, n, 0);
    if (!X || !I || !U || !Y || X->rank < 1 || I->rank < 1)
        return lx_unsupported(c, n, "needs data, indices, updates and an output");
    const char *red = ir_node_attr_string(n, "reduction", "none");
    if (strcmp(red, "none") != 0)
        return lx_unsupported(c, n, "reduction=\"%s\" (SCATTER only writes)", red);
    bool quant = lower_is_quantized(X) || lower_is_quantized(U) || lower_is_quantized(Y);
    tosac_code rc;
    if (quant && ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, U)) ||
                  (rc = lx_check_quant(c, n, Y))))
        return rc;
    if (!quant && (X->dtype != Y->dtype || U->dtype != Y->dtype))
        return lx_unsupported(c, n, "data, updates and output types differ");
    tosac_tensor iv;
    if (!lower_in_const(c, n, 1, &iv) || (iv.dtype != TOSAC_DT_I64 && iv.dtype != TOSAC_DT_I32))
        return lx_unsupported(c, n, "indices are not an int32/int64 constant");
    int q = (int)I->shape[I->rank - 1];
    if (q < 1 || q > X->rank)
        return lx_unsupported(c, n, "index tuples of length %d for data of rank %d", q, X->rank);
    int64_t K = 1, C = 1, W = tosac_tensor_numel(&iv) / q;
    for (int i = 0; i < X->rank; i++)
        *(i < q ? &K : &C) *= X->shape[i];
    if (K > INT32_MAX)
        return lx_unsupported(c, n, "data rows beyond int32");
    int64_t un = 1;
    for (int i = 0; i < U->rank; i++)
        un *= U->shape[i];
    if (W < 1 || un != W * C)
        return lx_unsupported(c, n, "updates of %lld elements for %lld rows of %lld",
                              (long long)un, (long long)W, (long long)C);
    int32_t *rows = malloc((size_t)(W > 0 ? W : 1) * sizeof *rows);
    bool *seen = calloc((size_t)(K > 0 ? K : 1), 1);
    if (!rows || !seen) {
        free(rows);
        free(seen);
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    const char *bad = NULL;
    for (int64_t w = 0; w < W && !bad; w++) {
        int64_t k = 0;
        for (int d = 0; d < q && !bad; d++) {
            int64_t v = iv.dtype == TOSAC_DT_I64 ? ((const int64_t *)iv.data)[w * q + d]
                                                 : ((const int32_t *)iv.data)[w * q + d];
            if (v < 0)
                v += X->shape[d];
            if (v < 0 || v >= X->shape[d])
                bad = "an index out of range";
            k = k * X->shape[d] + v;
        }
        if (!bad && seen[k])
            bad = "a repeated index (ONNX leaves the result undefined)";
        if (!bad) {
            seen[k] = true;
            rows[w] = (int32_t)k;
        }
    }
    free(seen);
    if (bad) {
        free(rows);
        return lx_unsupported(c, n, "indices hold %s", bad);
    }
    int64_t is[2] = {1, W}, vs[3] = {1, K, C}, us[3] = {1, W, C};
    int idx = lower_const(c, "scatter_rows", TOSAC_DT_I32, 2, is, rows);
    free(rows);
    int x = operand(c, n, 0, Y, quant), u = operand(c, n, 2, Y, quant);
    int x3 = x < 0 ? -1 : lower_reshape(c, x, 3, vs, -1);
    int u3 = u < 0 ? -1 : lower_reshape(c, u, 3, us, -1);
    int res = lower_tmp(c, "scatter", Y->dtype, 3, vs);
    int ins[3] = {x3, idx, u3};
    if (idx < 0 || x3 < 0 || u3 < 0 || res < 0 ||
        lower_emit(c, TOSA_OP_SCATTER, NULL, ins, 3, &res, 1))
        return lx_code(c);
    int out = lower_out(c, n, 0);
    return out < 0 || lower_reshape(c, res, Y->rank, Y->shape, out) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_scatter[] = {
    {IR_DOMAIN_ONNX, "ScatterND", lower_scatter_nd, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
