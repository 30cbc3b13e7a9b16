/* Resize (opset 10+) and Upsample (opset 9): attribute parsing and output sizes; the
 * interpolation is kern_resize. GridSample (kern_grid_sample). */
#include "cpu/cpu_internal.h"

#include <math.h>
#include <string.h>

#include "kernels/grid_sample.h"
#include "kernels/resize.h"

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static tosac_code parse_modes(cpu_ctx *c, kern_resize_params *p, int upsample)
{
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                         "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                                         "tf_crop_and_resize"};
    static const char *const nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    const char *m = cpu_attr_s(c, "mode", "nearest");
    /* Upsample's "bilinear" is linear */
    int mi = upsample && strcmp(m, "bilinear") == 0 ? 1 : pick(m, modes, 3);
    CPU_CHECK(c, mi >= 0, "unknown mode '%s'", m);
    const char *co = upsample ? "asymmetric" : cpu_attr_s(c, "coordinate_transformation_mode", "half_pixel");
    int ci = pick(co, coords, 7);
    CPU_CHECK(c, ci >= 0, "unknown coordinate_transformation_mode '%s'", co);
    const char *nm = upsample ? "floor" : cpu_attr_s(c, "nearest_mode", "round_prefer_floor");
    int ni = pick(nm, nearest, 4);
    CPU_CHECK(c, ni >= 0, "unknown nearest_mode '%s'", nm);
    p->mode = (kern_resize_mode)mi;
    p->coord = (kern_resize_coord)ci;
    p->nearest = (kern_nearest_mode)ni;
    p->cubic_a = cpu_attr_f(c, "cubic_coeff_a", -0.75f);
    p->exclude_outside = (int)cpu_attr_i(c, "exclude_outside", 0);
    p->extrapolation = cpu_attr_f(c, "extrapolation_value", 0.0f);
    if (cpu_attr_i(c, "antialias", 0))
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "antialias is not supported");
    const char *kp = cpu_attr_s(c, "keep_aspect_ratio_policy", "stretch");
    if (strcmp(kp, "stretch") != 0)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "keep_aspect_ratio_policy '%s' is not supported", kp);
    return TOSAC_OK;
}

/* Resize's / Upsample's modes and axes attribute, parsed and checked once (prepare step);
 * the axes are normalised at eval, against the input's rank. */
typedef struct resize_prep {
    kern_resize_params p;
    int has_axes, na;
    int64_t axes[TOSAC_MAX_RANK];
} resize_prep;

static tosac_code resize_prepare(cpu_ctx *c, void *st, int upsample)
{
    resize_prep *rp = st;
    tosac_code rc = parse_modes(c, &rp->p, upsample);
    if (rc)
        return rc;
    int na;
    const int64_t *aa = cpu_attr_ints(c, "axes", &na);
    if (aa) {
        CPU_CHECK(c, na <= TOSAC_MAX_RANK, "too many axes");
        if (na)
            memcpy(rp->axes, aa, (size_t)na * sizeof(int64_t));
        rp->has_axes = 1;
        rp->na = na;
    }
    return TOSAC_OK;
}

static tosac_code resize_prepare_r(cpu_ctx *c, void *st) { return resize_prepare(c, st, 0); }
static tosac_code upsample_prepare(cpu_ctx *c, void *st) { return resize_prepare(c, st, 1); }

static const cpu_op_prep resize_prep_op = {resize_prepare_r, sizeof(resize_prep), NULL};
static const cpu_op_prep upsample_prep_op = {upsample_prepare, sizeof(resize_prep), NULL};

static tosac_code resize(cpu_ctx *c, int upsample)
{
    const resize_prep *rp = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    kern_resize_params p = rp->p;
    int r = x->rank;
    p.rank = r;
    int nax = r, axes[TOSAC_MAX_RANK];
    int na = rp->na;
    const int64_t *aa = rp->has_axes ? rp->axes : NULL;
    if (aa) {
        CPU_CHECK(c, na <= r, "too many axes");
        nax = na;
        for (int i = 0; i < na; i++)
            if ((rc = cpu_axis(c, aa[i], r, &axes[i])))
                return rc;
    } else {
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }
    for (int d = 0; d < r; d++) {
        p.in[d] = p.out[d] = x->shape[d];
        p.scale[d] = 1;
        p.roi_start[d] = 0;
        p.roi_end[d] = 1;
    }
    /* inputs: Upsample (X, scales); Resize-10 (X, scales); Resize-11+ (X, roi, scales, sizes) */
    const tosac_tensor *roi = NULL, *scales, *sizes = NULL;
    if (upsample || c->opset < 11) {
        scales = cpu_opt(c, 1);
    } else {
        roi = cpu_opt(c, 1);
        scales = cpu_opt(c, 2);
        sizes = cpu_opt(c, 3);
    }
    if (scales && tosac_tensor_numel(scales) == 0)
        scales = NULL;
    if (sizes && tosac_tensor_numel(sizes) == 0)
        sizes = NULL;
    CPU_CHECK(c, (scales != NULL) != (sizes != NULL), "exactly one of scales and sizes is needed");
    if (sizes) {
        int64_t v[TOSAC_MAX_RANK];
        int n;
        if ((rc = cpu_ints(c, sizes, v, TOSAC_MAX_RANK, &n)))
            return rc;
        CPU_CHECK(c, n == nax, "sizes has %d values for %d axes", n, nax);
        for (int i = 0; i < n; i++) {
            CPU_CHECK(c, v[i] > 0 && v[i] < ((int64_t)1 << 31), "sizes[%d] is out of range", i);
            p.out[axes[i]] = v[i];
            p.scale[axes[i]] = (double)(float)((float)v[i] / (float)x->shape[axes[i]]);
        }
    } else {
        CPU_CHECK(c, scales->dtype == TOSAC_DT_F32, "scales must be float32");
        CPU_CHECK(c, tosac_tensor_numel(scales) == nax, "scales has %lld values for %d axes",
                  (long long)tosac_tensor_numel(scales), nax);
        for (int i = 0; i < nax; i++) {
            double s = ((const float *)scales->data)[i];
            CPU_CHECK(c, s > 0 && s < 1e6, "scale %g must be positive", s);
            int d = axes[i];
            p.scale[d] = s;
            double roi_len = 1;
            if (p.coord == KERN_COORD_TF_CROP_AND_RESIZE && roi && tosac_tensor_numel(roi) == 2 * nax)
                roi_len = kern_get_f64(roi->dtype, roi->data, nax + i) - kern_get_f64(roi->dtype, roi->data, i);
            p.out[d] = (int64_t)floor((double)x->shape[d] * roi_len * s);
        }
    }
    if (p.coord == KERN_COORD_TF_CROP_AND_RESIZE) {
        CPU_CHECK(c, roi && tosac_tensor_numel(roi) == 2 * nax, "tf_crop_and_resize needs roi");
        for (int i = 0; i < nax; i++) {
            p.roi_start[axes[i]] = kern_get_f64(roi->dtype, roi->data, i);
            p.roi_end[axes[i]] = kern_get_f64(roi->dtype, roi->data, nax + i);
        }
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, p.out, &y)))
        return rc;
    CPU_CHECK(c, x->dtype == TOSAC_DT_F32 || x->dtype == TOSAC_DT_F64 || tosac_dtype_is_int(x->dtype),
              "input of type %s is not supported", tosac_dtype_name(x->dtype));
    if (tosac_tensor_numel(y) > 0)
        kern_resize(&p, x->dtype, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_resize(cpu_ctx *c) { return resize(c, 0); }
static tosac_code op_upsample(cpu_ctx *c) { return resize(c, 1); }

/* GridSample over 2 spatial dims; opset 20 renamed the modes linear and cubic. The
 * attributes are read once (prepare step). */
typedef struct grid_prep {
    int mode, pad, align_corners;
} grid_prep;

static tosac_code grid_prepare(cpu_ctx *c, void *st)
{
    grid_prep *gp = st;
    static const char *const modes[] = {"bilinear", "nearest", "bicubic", "linear", "cubic"};
    static const char *const pads[] = {"zeros", "border", "reflection"};
    gp->mode = pick(cpu_attr_s(c, "mode", c->opset >= 20 ? "linear" : "bilinear"), modes, 5);
    gp->pad = pick(cpu_attr_s(c, "padding_mode", "zeros"), pads, 3);
    CPU_CHECK(c, gp->mode >= 0 && gp->pad >= 0, "unknown mode or padding_mode");
    gp->align_corners = cpu_attr_i(c, "align_corners", 0) != 0;
    return TOSAC_OK;
}

static const cpu_op_prep grid_prep_op = {grid_prepare, sizeof(grid_prep), NULL};

static tosac_code op_grid_sample(cpu_ctx *c)
{
    const tosac_tensor *x, *grid;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &grid);
    if (rc)
        return rc;
    CPU_CHECK(c, x->dtype == TOSAC_DT_F32 && grid->dtype == TOSAC_DT_F32, "X and grid must be float");
    if (x->rank != 4)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "only 2 spatial dims (rank 4) are supported");
    CPU_CHECK(c, grid->rank == 4 && grid->shape[0] == x->shape[0] && grid->shape[3] == 2,
              "grid must be [N, H_out, W_out, 2]");
    const grid_prep *gp = c->prep;
    int m = gp->mode, pad = gp->pad;
    CPU_CHECK(c, x->shape[2] >= 1 && x->shape[3] >= 1, "the image is empty");
    kern_grid_sample_params p = {x->shape[0], x->shape[1], x->shape[2], x->shape[3],
                                 grid->shape[1], grid->shape[2],
                                 m == 1 ? KERN_GS_NEAREST : m == 0 || m == 3 ? KERN_GS_LINEAR : KERN_GS_CUBIC,
                                 (kern_gs_pad)pad, gp->align_corners};
    int64_t ys[4] = {p.n, p.c, p.out_h, p.out_w};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_F32, 4, ys, &y)))
        return rc;
    kern_grid_sample(&p, x->data, grid->data, y->data);
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_resize[] = {
    {"GridSample", op_grid_sample, CPU_F16_VIA_F32, &grid_prep_op},
    {"Resize", op_resize, CPU_F16_VIA_F32, &resize_prep_op},
    {"Upsample", op_upsample, CPU_F16_VIA_F32, &upsample_prep_op},
    {NULL, NULL, 0, NULL},
};
