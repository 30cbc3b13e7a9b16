/* DFT (opset 17+) as RFFT2D / FFT2D (EXT-FFT, fp32).
 *
 * ONNX DFT transforms one signal axis of [batch, signal..., 1 | 2] (a last dimension of 1:
 * real samples, 2: real and imaginary parts), X[k] = sum x[n] exp(-+ 2 pi i k n / N), the
 * inverse scaled by 1/N. TOSA's FFTs are 2-D over [N, H, W] with no scaling; a 1-D transform
 * is the 2-D one with H = 1. Another signal axis is first TRANSPOSEd to the last one (rank -
 * 2) and back after; the other dimensions fold into TOSA's N. The length must be a power of
 * two (TOSA's FFTs take only those) and dft_length absent or equal to it; then
 *   - real input, onesided, forward: RFFT2D of [B, 1, N] -> the N/2 + 1 bins;
 *   - otherwise FFT2D of the real and imaginary parts (SLICEs of the last axis, or a zero
 *     imaginary part), inverse scaled by MUL 1/N, onesided keeping the first N/2 + 1 bins;
 * the two outputs RESHAPEd to [.., bins, 1] and CONCATenated on the last axis. */
#include <stdlib.h>
#include <string.h>

#include "lower/lower_extra.h"

static bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* A SLICE of t ([B, N, 2] or [B, 1, n]) at start with size (rank 3). */
static int slice3(lower_ctx *c, int t, const int64_t start[3], const int64_t size[3])
{
    int st = lower_const_shape(c, "dft_start", 3, start);
    int sz = lower_const_shape(c, "dft_size", 3, size);
    int out = lower_tmp(c, "dft_slice", TOSAC_DT_F32, 3, size);
    int ins[3] = {t, st, sz};
    if (st < 0 || sz < 0 || out < 0 || lower_emit(c, TOSA_OP_SLICE, NULL, ins, 3, &out, 1))
        return -1;
    return out;
}

static tosac_code lower_dft(lower_ctx *c, const ir_node *n)
{
    const ir_tensor *X = lower_in_ir(c, n, 0), *Y = lower_out_ir(c, n, 0);
    if (!X || !Y)
        return lx_unsupported(c, n, "needs an input and an output");
    if (X->dtype != TOSAC_DT_F32 || Y->dtype != TOSAC_DT_F32)
        return lx_unsupported(c, n, "%s input (TOSA's FFTs are fp32 only)",
                              tosac_dtype_name(X->dtype));
    int r = X->rank;
    if (r < 3 || (X->shape[r - 1] != 1 && X->shape[r - 1] != 2))
        return lx_unsupported(c, n, "input is not [batch, signal..., 1 or 2]");
    int64_t axis = -2;
    if (c->opset >= 20) {
        int64_t v[1];
        int cnt = 0;
        if (n->n_inputs > 2 && n->inputs[2] >= 0) {
            if (!lx_const_ints(c, n, 2, v, 1, &cnt) || cnt != 1)
                return lx_unsupported(c, n, "a runtime axis");
            axis = v[0];
        }
    } else {
        axis = ir_node_attr_int(n, "axis", 1);
    }
    int ax = lx_axis(axis, r);
    if (ax < 1 || ax > r - 2)
        return lx_unsupported(c, n, "axis %lld is not a signal axis", (long long)axis);
    /* the signal axis swapped with the last signal axis (an involution: the same perm back) */
    int32_t perm[TOSAC_MAX_RANK];
    for (int d = 0; d < r; d++)
        perm[d] = d;
    perm[ax] = r - 2;
    perm[r - 2] = ax;
    int64_t xs[TOSAC_MAX_RANK], ys[TOSAC_MAX_RANK];
    for (int d = 0; d < r; d++) {
        xs[d] = X->shape[perm[d]];
        ys[d] = Y->shape[perm[d]];
    }
    int64_t len = xs[r - 2];
    if (n->n_inputs > 1 && n->inputs[1] >= 0) {
        int64_t v[1];
        int cnt = 0;
        if (!lx_const_ints(c, n, 1, v, 1, &cnt) || cnt != 1)
            return lx_unsupported(c, n, "a runtime dft_length");
        if (v[0] != len)
            return lx_unsupported(c, n, "dft_length %lld differs from the signal length %lld "
                                  "(no padding or cropping)", (long long)v[0], (long long)len);
    }
    if (!power_of_two(len) || len < 2)
        return lx_unsupported(c, n, "signal length %lld is not a power of two of at least 2 "
                              "(TOSA's FFTs take only those)", (long long)len);
    bool onesided = ir_node_attr_int(n, "onesided", 0) != 0;
    bool inverse = ir_node_attr_int(n, "inverse", 0) != 0;
    bool complex_in = X->shape[r - 1] == 2;
    if (onesided && complex_in)
        return lx_unsupported(c, n, "onesided with a complex input (ONNX does not define it)");
    int64_t batch = 1;
    for (int d = 0; d < r - 2; d++)
        batch *= xs[d];
    int64_t bins = onesided ? len / 2 + 1 : len;
    if (Y->rank != r || ys[r - 2] != bins || ys[r - 1] != 2)
        return lx_unsupported(c, n, "output shape does not match the transform");

    int x = lower_in(c, n, 0), y = lower_out(c, n, 0);
    if (x >= 0 && ax != r - 2)
        x = lower_transpose(c, x, perm, -1);
    if (x < 0 || y < 0)
        return lx_code(c);
    const int64_t row[3] = {batch, 1, len};
    int parts[2] = {-1, -1}; /* real, imaginary: [batch, 1, bins] */
    tosa_attr at;
    memset(&at, 0, sizeof at);
    if (onesided && !inverse) {
        int re_in = complex_in ? -1 : lower_reshape(c, x, 3, row, -1);
        const int64_t half[3] = {batch, 1, bins};
        int outs[2] = {lower_tmp(c, "rfft_re", TOSAC_DT_F32, 3, half),
                       lower_tmp(c, "rfft_im", TOSAC_DT_F32, 3, half)};
        if (re_in < 0 || outs[0] < 0 || outs[1] < 0 ||
            lower_emit(c, TOSA_OP_RFFT2D, &at, &re_in, 1, outs, 2))
            return lx_code(c);
        parts[0] = outs[0];
        parts[1] = outs[1];
    } else {
        int x3 = lower_reshape(c, x, 3, (int64_t[3]){batch, len, xs[r - 1]}, -1);
        int re = -1, im = -1;
        if (complex_in) {
            re = slice3(c, x3, (int64_t[3]){0, 0, 0}, (int64_t[3]){batch, len, 1});
            im = slice3(c, x3, (int64_t[3]){0, 0, 1}, (int64_t[3]){batch, len, 1});
            re = re < 0 ? -1 : lower_reshape(c, re, 3, row, -1);
            im = im < 0 ? -1 : lower_reshape(c, im, 3, row, -1);
        } else {
            re = x3 < 0 ? -1 : lower_reshape(c, x3, 3, row, -1);
            float *z = calloc((size_t)(batch * len), sizeof *z);
            if (!z)
                return tosac_fail(c->err, TOSAC_ERR_INTERNAL, "out of memory");
            im = lower_const_owned(c, "dft_zero_imag", TOSAC_DT_F32, 3, row, z);
        }
        at.inverse = inverse;
        int ins[2] = {re, im};
        int outs[2] = {lower_tmp(c, "fft_re", TOSAC_DT_F32, 3, row),
                       lower_tmp(c, "fft_im", TOSAC_DT_F32, 3, row)};
        if (re < 0 || im < 0 || outs[0] < 0 || outs[1] < 0 ||
            lower_emit(c, TOSA_OP_FFT2D, &at, ins, 2, outs, 2))
            return lx_code(c);
        for (int k = 0; k < 2; k++) {
            int t = outs[k];
            if (inverse)
                t = lx_binary(c, TOSA_OP_MUL, t, lx_fill(c, "inv_n", TOSAC_DT_F32, 3,
                                                        1.0 / (double)len),
                              TOSAC_DT_UNKNOWN, -1);
            if (onesided && t >= 0)
                t = slice3(c, t, (int64_t[3]){0, 0, 0}, (int64_t[3]){batch, 1, bins});
            parts[k] = t;
        }
    }
    /* [batch, 1, bins] x 2 -> [batch, bins, 1] x 2 -> CONCAT -> [batch, bins, 2] -> Y */
    const int64_t col[3] = {batch, bins, 1}, both[3] = {batch, bins, 2};
    for (int k = 0; k < 2; k++)
        parts[k] = parts[k] < 0 ? -1 : lower_reshape(c, parts[k], 3, col, -1);
    int cat = lower_tmp(c, "dft_out", TOSAC_DT_F32, 3, both);
    memset(&at, 0, sizeof at);
    at.axis = 2;
    if (parts[0] < 0 || parts[1] < 0 || cat < 0 ||
        lower_emit(c, TOSA_OP_CONCAT, &at, parts, 2, &cat, 1))
        return lx_code(c);
    if (ax == r - 2)
        return lower_reshape(c, cat, Y->rank, Y->shape, y) < 0 ? lx_code(c) : TOSAC_OK;
    int t = lower_reshape(c, cat, r, ys, -1);
    return t < 0 || lower_transpose(c, t, perm, y) < 0 ? lx_code(c) : TOSAC_OK;
}

const lower_rule lower_rules_dft[] = {
    {IR_DOMAIN_ONNX, "DFT", lower_dft, LOWER_PRE_STATIC, LOWER_CONST_NONE},
    {NULL, NULL, NULL, 0, 0},
};
