/* Object-detection operators: NonMaxSuppression, RoiAlign. */
#include "cpu/cpu_internal.h"

#include <math.h>
#include <string.h>

#include "kernels/detect.h"

/* The attributes of NonMaxSuppression and RoiAlign, read and checked once (prepare step). */
typedef struct detect_prep {
    int center_point_box, is_max, half_pixel;
    int64_t out_h, out_w, sampling_ratio;
    float scale;
} detect_prep;

static tosac_code nms_prepare(cpu_ctx *c, void *st)
{
    ((detect_prep *)st)->center_point_box = cpu_attr_i(c, "center_point_box", 0) != 0;
    return TOSAC_OK;
}

static tosac_code roi_align_prepare(cpu_ctx *c, void *st)
{
    detect_prep *p = st;
    const char *mode = cpu_attr_s(c, "mode", "avg");
    /* opset 16 added coordinate_transformation_mode, defaulting to half_pixel; before it the
     * coordinates were not shifted (output_half_pixel) */
    const char *ctm = cpu_attr_s(c, "coordinate_transformation_mode",
                                 c->opset >= 16 ? "half_pixel" : "output_half_pixel");
    CPU_CHECK(c, !strcmp(mode, "avg") || !strcmp(mode, "max"), "mode '%s' is not avg or max", mode);
    CPU_CHECK(c, !strcmp(ctm, "half_pixel") || !strcmp(ctm, "output_half_pixel"),
              "coordinate_transformation_mode '%s' is not supported", ctm);
    p->is_max = !strcmp(mode, "max");
    p->half_pixel = !strcmp(ctm, "half_pixel");
    p->out_h = cpu_attr_i(c, "output_height", 1);
    p->out_w = cpu_attr_i(c, "output_width", 1);
    p->sampling_ratio = cpu_attr_i(c, "sampling_ratio", 0);
    p->scale = cpu_attr_f(c, "spatial_scale", 1.0f);
    CPU_CHECK(c, p->out_h >= 1 && p->out_w >= 1 && p->sampling_ratio >= 0,
              "output sizes must be positive and sampling_ratio non-negative");
    return TOSAC_OK;
}

static const cpu_op_prep nms_prep = {nms_prepare, sizeof(detect_prep), NULL};
static const cpu_op_prep roi_align_prep = {roi_align_prepare, sizeof(detect_prep), NULL};

static tosac_code op_nms(cpu_ctx *c)
{
    const tosac_tensor *boxes, *scores;
    tosac_code rc = cpu_req(c, 0, &boxes);
    if (!rc)
        rc = cpu_req(c, 1, &scores);
    if (rc)
        return rc;
    CPU_CHECK(c, boxes->dtype == TOSAC_DT_F32 && scores->dtype == TOSAC_DT_F32,
              "boxes and scores must be float");
    CPU_CHECK(c, boxes->rank == 3 && boxes->shape[2] == 4, "boxes must be [batches, boxes, 4]");
    CPU_CHECK(c, scores->rank == 3 && scores->shape[0] == boxes->shape[0] &&
                     scores->shape[2] == boxes->shape[1],
              "scores must be [batches, classes, boxes] matching the boxes");
    kern_nms_params p = {boxes->shape[0], scores->shape[1], boxes->shape[1], 0, 0, 0, 0,
                         ((const detect_prep *)c->prep)->center_point_box};
    double iou = 0, st = 0;
    if (cpu_opt(c, 2) && (rc = cpu_scalar_i64(c, c->in[2], &p.max_per_class)))
        return rc;
    if (cpu_opt(c, 3) && (rc = cpu_scalar_f64(c, c->in[3], &iou)))
        return rc;
    if (cpu_opt(c, 4) && (rc = cpu_scalar_f64(c, c->in[4], &st)))
        return rc;
    CPU_CHECK(c, iou >= 0 && iou <= 1, "iou_threshold %g is outside [0, 1]", iou);
    p.iou_threshold = (float)iou;
    p.score_threshold = (float)st;
    p.has_score_threshold = cpu_opt(c, 4) != NULL;
    if (p.max_per_class < 0)
        p.max_per_class = 0;
    int64_t per = p.max_per_class < p.n ? p.max_per_class : p.n;
    int64_t cap = p.batches * p.classes * per;
    int64_t *buf = cpu_temp(c, (size_t)(3 * cap + 2 * p.n + 1) * sizeof(int64_t));
    if (!buf)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    int64_t n = kern_nms(&p, boxes->data, scores->data, buf, buf + 3 * cap);
    int64_t ys[2] = {n, 3};
    tosac_tensor *y;
    if (!(rc = cpu_out(c, 0, TOSAC_DT_I64, 2, ys, &y)) && n)
        memcpy(y->data, buf, (size_t)n * 3 * sizeof(int64_t));
    cpu_release(c, buf);
    return rc;
}

static tosac_code op_roi_align(cpu_ctx *c)
{
    const detect_prep *dp = c->prep;
    const tosac_tensor *x, *rois, *bi;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &rois);
    if (!rc)
        rc = cpu_req(c, 2, &bi);
    if (rc)
        return rc;
    CPU_CHECK(c, x->dtype == TOSAC_DT_F32 && rois->dtype == TOSAC_DT_F32, "X and rois must be float");
    CPU_CHECK(c, x->rank == 4, "X must be [N, C, H, W]");
    CPU_CHECK(c, rois->rank == 2 && rois->shape[1] == 4, "rois must be [num_rois, 4]");
    CPU_CHECK(c, bi->dtype == TOSAC_DT_I64 && bi->rank == 1 && bi->shape[0] == rois->shape[0],
              "batch_indices must be int64 [num_rois]");
    for (int64_t r = 0; r < bi->shape[0]; r++) {
        int64_t b = ((const int64_t *)bi->data)[r];
        CPU_CHECK(c, b >= 0 && b < x->shape[0], "batch index %lld is out of range", (long long)b);
    }
    /* bounded scaled coordinates keep the adaptive sampling grid (roi size / bins) finite */
    float scale = dp->scale;
    for (int64_t i = 0; i < 4 * rois->shape[0]; i++) {
        float v = ((const float *)rois->data)[i] * scale;
        CPU_CHECK(c, isfinite(v) && fabsf(v) <= 16777216.0f, "roi coordinate %lld is not finite "
                  "or beyond 2^24 after spatial_scale", (long long)i);
    }
    kern_roi_align_params p = {x->shape[0], x->shape[1], x->shape[2], x->shape[3], rois->shape[0],
                               dp->out_h, dp->out_w, dp->sampling_ratio, dp->scale,
                               dp->is_max, dp->half_pixel};
    int64_t ys[4] = {p.n_rois, p.c, p.out_h, p.out_w};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, TOSAC_DT_F32, 4, ys, &y)))
        return rc;
    kern_roi_align(&p, x->data, rois->data, bi->data, y->data);
    return TOSAC_OK;
}

const cpu_op_entry cpu_ops_detect[] = {
    {"NonMaxSuppression", op_nms, 0, &nms_prep},
    {"RoiAlign", op_roi_align, CPU_F16_VIA_F32, &roi_align_prep},
    {NULL, NULL, 0, NULL},
};
