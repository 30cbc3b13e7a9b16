/* Trilu as a SELECT between the input and zeros with a constant bool mask over the last two
 * dims ([1, .., 1, N, M]): kept where j - i >= k (upper) or j - i <= k (lower). A SELECT, not
 * a MUL by 0/1, so inf and NaN outside the band become 0 as ONNX says. Quantized: the zero
 * is the output's zero point (the input rescaled first when its quantization differs), so
 * kept values move unchanged. */
#include <stdlib.h>

#include "lower/lower_extra.h"

static tosac_code lower_trilu(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    if (!X || !Y || X->rank < 2 || X->dtype != Y->dtype)
        return lx_unsupported(c, n, "needs an input of rank >= 2 and an output of its type");
    int64_t kv = 0;
    int cnt = 0;
    if (n->n_inputs > 1 && n->inputs[1] >= 0 && (!lx_const_ints(c, n, 1, &kv, 1, &cnt) || cnt != 1))
        return lx_unsupported(c, n, "k is not a constant scalar");
    bool upper = ir_node_attr_int(n, "upper", 1) != 0;
    bool quant = lower_is_quantized(X) || lower_is_quantized(Y);
    tosac_code rc;
    if (quant && ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y))))
        return rc;
    int64_t N = X->shape[X->rank - 2], M = X->shape[X->rank - 1];
    int64_t ms[TOSAC_MAX_RANK];
    for (int i = 0; i < X->rank; i++)
        ms[i] = i < X->rank - 2 ? 1 : X->shape[i];
    unsigned char *mask = malloc((size_t)(N * M > 0 ? N * M : 1));
    if (!mask)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < M; j++)
            mask[i * M + j] = upper ? j - i >= kv : j - i <= kv;
    int m = lower_const(c, "trilu_mask", TOSAC_DT_BOOL, X->rank, ms, mask);
    free(mask);
    int x = lower_in(c, n, 0);
    if (x >= 0 && quant && !lx_same_quant(X, Y))
        x = lx_rescale(c, x, lower_qscale(X) / lower_qscale(Y), lower_qzp(X), lower_qzp(Y),
                       Y->dtype, -1);
    int zero = lx_fill(c, "zero", Y->dtype, X->rank, quant ? (double)lower_qzp(Y) : 0.0);
    int out = x < 0 || m < 0 || zero < 0 ? -1 : lower_out(c, n, 0);
    return out < 0 || lx_select(c, m, x, zero, out) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_trilu[] = {
    {IR_DOMAIN_ONNX, "Trilu", lower_trilu, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
