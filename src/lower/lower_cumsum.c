/* CumSum as a MATMUL with a constant triangular 0/1 matrix: the axis is transposed last, the
 * other dims folded into rows ([1, M, L] x [1, L, L]), and the product laid back out.
 * B[i][j] = 1 where input i counts in output j: i <= j (exclusive: i < j; reverse: i >= j,
 * exclusive i > j). Float: f32 accumulator (the sum's order differs from a running sum, so
 * it agrees to f32 rounding of the terms). Quantized (int8 -> i32, int16 -> i48
 * accumulator, the input zero point as MATMUL's A_zp): the sums are exact integers, one
 * RESCALE by sx/sy to the output. Integer CumSum stays on the CPU (TOSA's MATMUL takes
 * int8/int16/float operands only). */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"
#include "util/fp.h"

static tosac_code lower_cumsum(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    if (!X || !Y || X->rank < 1)
        return lx_unsupported(c, n, "needs an input of rank >= 1 and an output");
    int64_t axv;
    int cnt;
    if (!lx_const_ints(c, n, 1, &axv, 1, &cnt) || cnt != 1)
        return lx_unsupported(c, n, "axis is not a constant scalar");
    int ax = lx_axis(axv, X->rank);
    if (ax < 0)
        return lx_unsupported(c, n, "axis %lld out of range", (long long)axv);
    bool quant = lower_is_quantized(X) || lower_is_quantized(Y);
    tosac_code rc;
    if (quant && ((rc = lx_check_quant(c, n, X)) || (rc = lx_check_quant(c, n, Y))))
        return rc;
    if (!quant && (!tosac_dtype_is_float(X->dtype) || X->dtype != Y->dtype))
        return lx_unsupported(c, n, "%s input (TOSA's MATMUL has no such operands)",
                              tosac_dtype_name(X->dtype));
    bool excl = ir_node_attr_int(n, "exclusive", 0) != 0;
    bool rev = ir_node_attr_int(n, "reverse", 0) != 0;
    int64_t L = X->shape[ax], M = 1;
    for (int i = 0; i < X->rank; i++)
        M *= i == ax ? 1 : X->shape[i];
    if (L > 4096)
        return lx_unsupported(c, n, "axis of %lld elements (the triangular constant would be "
                              "too large)", (long long)L);
    tosac_dtype dt = X->dtype;
    tosac_dtype acc = !quant ? dt : dt == TOSAC_DT_I16 ? TOSAC_DT_I48 : TOSAC_DT_I32;
    size_t es = tosac_dtype_size(dt);
    unsigned char *tri = calloc((size_t)(L * L), es);
    if (!tri)
        return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t i = 0; i < L; i++)
        for (int64_t j = 0; j < L; j++) {
            bool on = rev ? (excl ? i > j : i >= j) : (excl ? i < j : i <= j);
            if (!on)
                continue;
            unsigned char *p = tri + (size_t)(i * L + j) * es;
            if (dt == TOSAC_DT_F32) {
                float one = 1.0f;
                memcpy(p, &one, 4);
            } else if (dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16) {
                uint16_t h = dt == TOSAC_DT_F16 ? tosac_f32_to_f16(1.0f) : tosac_f32_to_bf16(1.0f);
                memcpy(p, &h, 2);
            } else if (dt == TOSAC_DT_I16) {
                int16_t one = 1;
                memcpy(p, &one, 2);
            } else {
                *p = 1;
            }
        }
    int64_t bs[3] = {1, L, L};
    int b = lower_const(c, "cumsum_tri", dt, 3, bs, tri);
    free(tri);
    int32_t perm[TOSAC_MAX_RANK], inv[TOSAC_MAX_RANK];
    int64_t tshape[TOSAC_MAX_RANK];
    for (int i = 0, k = 0; i < X->rank; i++)
        if (i != ax)
            perm[k++] = i;
    perm[X->rank - 1] = ax;
    for (int i = 0; i < X->rank; i++) {
        inv[perm[i]] = i;
        tshape[i] = X->shape[perm[i]];
    }
    int x = lower_in(c, n, 0);
    if (x >= 0 && ax != X->rank - 1)
        x = lower_transpose(c, x, perm, -1);
    int64_t as[3] = {1, M, L};
    int a3 = x < 0 ? -1 : lower_reshape(c, x, 3, as, -1);
    int azp = lower_scalar(c, "a_zp", dt, quant ? lower_qzp(X) : 0);
    int bzp = lower_scalar(c, "b_zp", dt, 0);
    int prod = lower_tmp(c, "cumsum", acc, 3, as);
    int ins[4] = {a3, b, azp, bzp};
    if (a3 < 0 || b < 0 || azp < 0 || bzp < 0 || prod < 0 ||
        lower_emit(c, TOSA_OP_MATMUL, NULL, ins, 4, &prod, 1))
        return lx_code(c);
    int r = prod;
    if (quant)
        r = lx_rescale(c, prod, lower_qscale(X) / lower_qscale(Y), 0, lower_qzp(Y), Y->dtype, -1);
    bool moved = ax != X->rank - 1;
    int out = r < 0 ? -1 : lower_out(c, n, 0);
    r = out < 0 ? -1 : lower_reshape(c, r, X->rank, tshape, moved ? -1 : out);
    if (moved)
        r = lower_transpose(c, r, inv, out);
    return r < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_cumsum[] = {
    {IR_DOMAIN_ONNX, "CumSum", lower_cumsum, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
