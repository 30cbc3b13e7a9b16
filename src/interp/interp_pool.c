/* AVG_POOL2D and MAX_POOL2D (tensor operator group; registered in interp_tensor.c).
 *
 * Integer average pooling divides exactly as the spec does: multiply by
 * reciprocal_scale(count) with apply_scale_32 (single rounding), add output_zp, clip.
 * Padding cells are not counted. Floating point sums in double and rounds once. */
#include <math.h>

#include "interp/interp_arith.h"
#include "interp/interp_nn_util.h"
#include "interp/interp_tensor_ops.h"

typedef struct pool_geom {
    int64_t N, IH, IW, C, OH, OW, KY, KX, SY, SX, PT, PL;
} pool_geom;

static tosac_code pool_geom_check(interp_ctx *c, const tosac_tensor *in,
                                  const tosac_tensor *out, pool_geom *g)
{
    const tosa_attr *a = &c->op->attr;
    tosac_code rc;
    if ((rc = nn_check_rank(c, in, 4, "input")) || (rc = nn_check_rank(c, out, 4, "output")) ||
        (rc = nn_check_attr_len(c, a->n_kernel, 2, "kernel")) ||
        (rc = nn_check_attr_len(c, a->n_stride, 2, "stride")) ||
        (rc = nn_check_attr_len(c, a->n_pad, 4, "pad")))
        return rc;
    if (out->dtype != in->dtype)
        return interp_error(c, "output type %s differs from input type %s",
                            tosac_dtype_name(out->dtype), tosac_dtype_name(in->dtype));
    int64_t kernel_y = a->kernel[0], kernel_x = a->kernel[1];
    int64_t stride_y = a->stride[0], stride_x = a->stride[1];
    int64_t pad_top = a->pad[0], pad_bottom = a->pad[1], pad_left = a->pad[2],
            pad_right = a->pad[3];
    INTERP_ERROR_IF(c, kernel_y < 1 || kernel_x < 1);
    INTERP_ERROR_IF(c, stride_y < 1 || stride_x < 1);
    INTERP_ERROR_IF(c, pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0);
    INTERP_ERROR_IF(c, pad_right >= kernel_x || pad_left >= kernel_x);
    INTERP_ERROR_IF(c, pad_top >= kernel_y || pad_bottom >= kernel_y);
    *g = (pool_geom){
        .N = in->shape[0], .IH = in->shape[1], .IW = in->shape[2], .C = in->shape[3],
        .OH = out->shape[1], .OW = out->shape[2], .KY = kernel_y, .KX = kernel_x,
        .SY = stride_y, .SX = stride_x, .PT = pad_top, .PL = pad_left,
    };
    if (out->shape[0] != g->N || out->shape[3] != g->C)
        return interp_error(c, "output batch/channels differ from the input's");
    /* an empty image with padding would give windows without any input value */
    if ((g->IH == 0 || g->IW == 0) && tosac_tensor_numel(out) > 0)
        return interp_error(c, "empty input image for a non-empty output");
    if ((rc = nn_check_out_dim(c, g->IH + pad_top + pad_bottom - kernel_y, stride_y, g->OH,
                               "OH")) ||
        (rc = nn_check_out_dim(c, g->IW + pad_left + pad_right - kernel_x, stride_x, g->OW,
                               "OW")))
        return rc;
    return TOSAC_OK;
}

/* The input window of output (oy, ox), clipped to the image (padding cells are never
 * read and, for AVG_POOL2D, never counted): rows [y0, y1), columns [x0, x1). */
typedef struct pool_win {
    int64_t y0, y1, x0, x1;
} pool_win;

static pool_win pool_window(const pool_geom *g, int64_t oy, int64_t ox)
{
    int64_t iy = oy * g->SY - g->PT, ix = ox * g->SX - g->PL;
    pool_win w = {iy < 0 ? 0 : iy, iy + g->KY > g->IH ? g->IH : iy + g->KY,
                  ix < 0 ? 0 : ix, ix + g->KX > g->IW ? g->IW : ix + g->KX};
    return w;
}

static bool avg_pool_types_ok(tosac_dtype io, tosac_dtype acc)
{
    switch (io) {
    case TOSAC_DT_I8:
    case TOSAC_DT_I16: return acc == TOSAC_DT_I32;
    case TOSAC_DT_FP8E4M3:
    case TOSAC_DT_FP8E5M2: return acc == TOSAC_DT_F16;
    case TOSAC_DT_F16: return acc == TOSAC_DT_F16 || acc == TOSAC_DT_F32;
    case TOSAC_DT_BF16:
    case TOSAC_DT_F32: return acc == TOSAC_DT_F32;
    default: return false;
    }
}

tosac_code interp_op_avg_pool2d(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 3, 1);
    if (rc)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    pool_geom g;
    nn_zp izp, ozp;
    if ((rc = pool_geom_check(c, in, out, &g)))
        return rc;
    if (!avg_pool_types_ok(in->dtype, c->op->attr.acc_type))
        return interp_error(c, "unsupported type combination %s with acc_type %s",
                            tosac_dtype_name(in->dtype),
                            tosac_dtype_name(c->op->attr.acc_type));
    if ((rc = nn_read_zp(c, c->in[1], in->dtype, "input_zp", &izp)) ||
        (rc = nn_read_zp(c, c->in[2], out->dtype, "output_zp", &ozp)))
        return rc;
    bool is_float = tosac_dtype_is_float(in->dtype);
    int64_t lo = is_float ? 0 : nn_int_min(in->dtype), hi = is_float ? 0 : nn_int_max(in->dtype);
    int64_t o = 0;
    for (int64_t n = 0; n < g.N; n++)
        for (int64_t oy = 0; oy < g.OH; oy++)
            for (int64_t ox = 0; ox < g.OW; ox++) {
                pool_win w = pool_window(&g, oy, ox);
                /* pad < kernel keeps every window non-empty */
                uint32_t count = (uint32_t)((w.y1 - w.y0) * (w.x1 - w.x0));
                int32_t multiplier = 0;
                int shift = 0;
                if (!is_float)
                    arith_reciprocal_scale(count, &multiplier, &shift); /* count > 0 */
                for (int64_t ch = 0; ch < g.C; ch++, o++) {
                    int64_t iacc = 0;
                    double facc = 0.0;
                    for (int64_t y = w.y0; y < w.y1; y++)
                        for (int64_t x = w.x0; x < w.x1; x++) {
                            int64_t idx = ((n * g.IH + y) * g.IW + x) * g.C + ch;
                            if (is_float)
                                facc += (double)interp_get_float(in, idx) - izp.f;
                            else
                                iacc += interp_get_int(in, idx) - izp.i;
                        }
                    if (is_float) {
                        interp_set_float(out, o, (float)(facc / count));
                    } else {
                        int32_t scaled;
                        arith_status st = arith_apply_scale_32((int32_t)iacc, multiplier, shift,
                                                               TOSA_ROUND_SINGLE, &scaled);
                        if (st != ARITH_OK)
                            return interp_error(c, "apply_scale_32: %s", arith_status_str(st));
                        int64_t v = (int64_t)scaled + ozp.i;
                        interp_set_int(out, o, v < lo ? lo : v > hi ? hi : v);
                    }
                }
            }
    return TOSAC_OK;
}

static bool max_pool_type_ok(tosac_dtype dt)
{
    return dt == TOSAC_DT_I8 || dt == TOSAC_DT_I16 || dt == TOSAC_DT_F16 ||
           dt == TOSAC_DT_BF16 || dt == TOSAC_DT_F32 || dt == TOSAC_DT_FP8E4M3 ||
           dt == TOSAC_DT_FP8E5M2;
}

tosac_code interp_op_max_pool2d(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 1, 1);
    if (rc)
        return rc;
    const tosac_tensor *in = c->in[0];
    tosac_tensor *out = c->out[0];
    pool_geom g;
    if ((rc = pool_geom_check(c, in, out, &g)))
        return rc;
    if (!max_pool_type_ok(in->dtype))
        return interp_error(c, "unsupported type %s", tosac_dtype_name(in->dtype));
    bool is_float = tosac_dtype_is_float(in->dtype);
    bool ignore = c->op->attr.nan_mode == TOSA_NAN_IGNORE;
    int64_t o = 0;
    for (int64_t n = 0; n < g.N; n++)
        for (int64_t oy = 0; oy < g.OH; oy++)
            for (int64_t ox = 0; ox < g.OW; ox++) {
                pool_win w = pool_window(&g, oy, ox);
                for (int64_t ch = 0; ch < g.C; ch++, o++) {
                    float facc = ignore ? NAN : -INFINITY;
                    int64_t iacc = INT64_MIN;
                    for (int64_t y = w.y0; y < w.y1; y++)
                        for (int64_t x = w.x0; x < w.x1; x++) {
                            int64_t idx = ((n * g.IH + y) * g.IW + x) * g.C + ch;
                            if (is_float) {
                                facc = interp_fmax_nan(facc, interp_get_float(in, idx), ignore);
                            } else {
                                int64_t v = interp_get_int(in, idx);
                                iacc = iacc >= v ? iacc : v;
                            }
                        }
                    if (is_float)
                        interp_set_float(out, o, facc);
                    else
                        interp_set_int(out, o, iacc);
                }
            }
    return TOSAC_OK;
}
