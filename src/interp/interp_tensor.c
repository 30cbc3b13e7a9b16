/* Operator group: tensor operators. This file has ARGMAX and MATMUL and the group's table;
 * the pools are in interp_pool.c, FFT2D/RFFT2D in interp_fft.c. */
#include <string.h>

#include "interp/interp_nn_util.h"
#include "interp/interp_tensor_ops.h"

/* ---- ARGMAX ---- */

static bool argmax_types_ok(tosac_dtype in, tosac_dtype out)
{
    switch (in) {
    case TOSAC_DT_I8:
    case TOSAC_DT_I16:
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16:
    case TOSAC_DT_F32:
    case TOSAC_DT_FP8E4M3:
    case TOSAC_DT_FP8E5M2: return out == TOSAC_DT_I32 || out == TOSAC_DT_I64;
    case TOSAC_DT_I32:
    case TOSAC_DT_I64: return out == TOSAC_DT_I64; /* TOSA 1.1 EXT-INT64 */
    default: return false;
    }
}

tosac_code interp_op_argmax(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 1, 1);
    if (rc)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    int axis = c->op->attr.axis;
    INTERP_ERROR_IF(c, axis < 0 || axis >= in->rank);
    if (!argmax_types_ok(in->dtype, out->dtype))
        return interp_error(c, "unsupported type combination input %s, output %s",
                            tosac_dtype_name(in->dtype), tosac_dtype_name(out->dtype));
    if (out->rank != in->rank - 1)
        return interp_error(c, "ERROR_IF(rank(output) != rank(input) - 1)");
    for (int d = 0, o = 0; d < in->rank; d++)
        if (d != axis && out->shape[o++] != in->shape[d])
            return interp_error(c, "ERROR_IF(flatten(left_shape, right_shape) != shape)");
    int64_t outer = 1, inner = 1, K = in->shape[axis];
    for (int d = 0; d < axis; d++)
        outer *= in->shape[d];
    for (int d = axis + 1; d < in->rank; d++)
        inner *= in->shape[d];
    bool is_float = tosac_dtype_is_float(in->dtype);
    bool ignore = c->op->attr.nan_mode == TOSA_NAN_IGNORE;
    for (int64_t l = 0; l < outer; l++)
        for (int64_t r = 0; r < inner; r++) {
            int64_t best = 0, base = l * K * inner + r;
            if (is_float) {
                float max_value = ignore ? NAN : -INFINITY;
                for (int64_t i = 0; i < K; i++) {
                    float v = interp_get_float(in, base + i * inner);
                    float res = interp_fmax_nan(v, max_value, ignore);
                    /* NaN != NaN, so a NaN result only replaces a non-NaN maximum */
                    if (res != max_value && !(isnan(res) && isnan(max_value))) {
                        max_value = res;
                        best = i;
                    }
                }
            } else {
                int64_t max_value = nn_int_min(in->dtype);
                for (int64_t i = 0; i < K; i++) {
                    int64_t v = interp_get_int(in, base + i * inner);
                    if (v > max_value) {
                        max_value = v;
                        best = i;
                    }
                }
            }
            interp_set_int(out, l * inner + r, best);
        }
    return TOSAC_OK;
}

/* ---- MATMUL: output[n,h,w] = sum_c (A[n,h,c] - A_zp) * (B[n,c,w] - B_zp) ---- */

/* Output columns accumulated at once: one pass over a row of B per A element. */
#define MM_CHUNK 256

typedef enum mm_kind { MM_I8, MM_I16, MM_FLOAT } mm_kind;

static bool mm_float_in(tosac_dtype dt)
{
    return dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16 || dt == TOSAC_DT_F32 ||
           dt == TOSAC_DT_FP8E4M3 || dt == TOSAC_DT_FP8E5M2;
}

static tosac_code mm_types(interp_ctx *c, tosac_dtype a, tosac_dtype b, tosac_dtype out,
                           mm_kind *kind)
{
    if (a == TOSAC_DT_I8 && b == TOSAC_DT_I8 && out == TOSAC_DT_I32)
        *kind = MM_I8;
    else if (a == TOSAC_DT_I16 && b == TOSAC_DT_I16 && out == TOSAC_DT_I48)
        *kind = MM_I16;
    else if (mm_float_in(a) && mm_float_in(b) && (out == TOSAC_DT_F16 || out == TOSAC_DT_F32))
        *kind = MM_FLOAT;
    else
        return interp_error(c, "unsupported type combination A %s, B %s, output %s",
                            tosac_dtype_name(a), tosac_dtype_name(b), tosac_dtype_name(out));
    return TOSAC_OK;
}

/* Accumulates A[row, :] x B[:, w0 .. w0 + len) into acc. */
static void mm_row(mm_kind kind, const tosac_tensor *A, const tosac_tensor *B, int64_t aoff,
                   int64_t boff, int64_t C, int64_t W, int64_t len, const nn_zp *azp,
                   const nn_zp *bzp, void *accv)
{
    if (kind == MM_I8) {
        const int8_t *a = (const int8_t *)A->data + aoff;
        const int8_t *b = (const int8_t *)B->data + boff;
        int32_t bz = (int32_t)bzp->i;
        uint32_t *acc = accv; /* wraps like the spec's 32-bit accumulator */
        for (int64_t k = 0; k < C; k++, b += W) {
            int32_t av = a[k] - (int32_t)azp->i;
            for (int64_t j = 0; j < len; j++)
                acc[j] += (uint32_t)(av * (b[j] - bz));
        }
    } else if (kind == MM_I16) {
        const int16_t *a = (const int16_t *)A->data + aoff;
        const int16_t *b = (const int16_t *)B->data + boff;
        int64_t *acc = accv; /* zero points are 0 for int16 */
        for (int64_t k = 0; k < C; k++, b += W) {
            int32_t av = a[k];
            for (int64_t j = 0; j < len; j++)
                acc[j] += av * b[j];
        }
    } else {
        double *acc = accv;
        for (int64_t k = 0; k < C; k++) {
            double av = (double)interp_get_float(A, aoff + k) - azp->f;
            for (int64_t j = 0; j < len; j++)
                acc[j] += av * ((double)interp_get_float(B, boff + k * W + j) - bzp->f);
        }
    }
}

tosac_code interp_op_matmul(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 4, 1);
    if (rc)
        return rc;
    const tosac_tensor *A = c->in[0], *B = c->in[1];
    tosac_tensor *out = c->out[0];
    mm_kind kind = MM_FLOAT;
    nn_zp azp, bzp;
    if ((rc = nn_check_rank(c, A, 3, "A")) || (rc = nn_check_rank(c, B, 3, "B")) ||
        (rc = nn_check_rank(c, out, 3, "output")) ||
        (rc = mm_types(c, A->dtype, B->dtype, out->dtype, &kind)) ||
        (rc = nn_read_zp(c, c->in[2], A->dtype, "A_zp", &azp)) ||
        (rc = nn_read_zp(c, c->in[3], B->dtype, "B_zp", &bzp)))
        return rc;
    int64_t N = A->shape[0], H = A->shape[1], C = A->shape[2], W = B->shape[2];
    if (B->shape[0] != N || B->shape[1] != C)
        return interp_error(c, "B shape must be [N,C,W] = [%lld,%lld,W]", (long long)N,
                            (long long)C);
    if (out->shape[0] != N || out->shape[1] != H || out->shape[2] != W)
        return interp_error(c, "output shape must be [N,H,W] = [%lld,%lld,%lld]",
                            (long long)N, (long long)H, (long long)W);
    union {
        uint32_t u[MM_CHUNK];
        int64_t i[MM_CHUNK];
        double f[MM_CHUNK];
    } acc;
    for (int64_t n = 0; n < N; n++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t w0 = 0; w0 < W; w0 += MM_CHUNK) {
                int64_t len = W - w0 < MM_CHUNK ? W - w0 : MM_CHUNK;
                memset(&acc, 0, (size_t)len * sizeof acc.i[0]);
                mm_row(kind, A, B, (n * H + h) * C, n * C * W + w0, C, W, len, &azp, &bzp,
                       &acc);
                int64_t obase = (n * H + h) * W + w0;
                for (int64_t j = 0; j < len; j++) {
                    if (kind == MM_FLOAT)
                        interp_set_float(out, obase + j, (float)acc.f[j]);
                    else if (kind == MM_I8)
                        interp_set_int(out, obase + j, (int32_t)acc.u[j]);
                    else
                        interp_set_int(out, obase + j, nn_wrap_int(TOSAC_DT_I48, acc.i[j]));
                }
            }
    return TOSAC_OK;
}

const interp_op_entry interp_ops_tensor[] = {
    {TOSA_OP_ARGMAX, interp_op_argmax},
    {TOSA_OP_AVG_POOL2D, interp_op_avg_pool2d},
    {TOSA_OP_MATMUL, interp_op_matmul},
    {TOSA_OP_MAX_POOL2D, interp_op_max_pool2d},
    {TOSA_OP_FFT2D, interp_op_fft2d},
    {TOSA_OP_RFFT2D, interp_op_rfft2d},
    {TOSA_OP_UNKNOWN, NULL},
};
