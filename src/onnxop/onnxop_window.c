/* Output-size arithmetic of the windowed operators, as the ONNX operator docs give it. */
#include "onnxop/onnxop_window.h"

#include <string.h>

static tosac_code spatial_ints(const ir_node *n, const char *name, int want, int64_t dflt,
                               int64_t *v, int *given, tosac_error *err)
{
    int cnt;
    const int64_t *a = ir_node_attr_ints(n, name, &cnt);
    for (int i = 0; i < want; i++)
        v[i] = a && cnt == want ? a[i] : dflt;
    if (given)
        *given = a != NULL;
    if (a && cnt != want)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "%s has %d values for %d spatial dims", name,
                           cnt, want / (strcmp(name, "pads") == 0 ? 2 : 1));
    return TOSAC_OK;
}

tosac_code onnx_window_parse(const ir_node *n, int nsp, onnx_window *w, tosac_error *err)
{
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > ONNX_WIN_MAX_SP)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "input rank %d is not [N, C, spatial...]",
                           nsp + 2);
    w->nsp = nsp;
    int64_t pads[2 * ONNX_WIN_MAX_SP];
    tosac_code rc;
    if ((rc = spatial_ints(n, "kernel_shape", nsp, 1, w->k, &w->has_k, err)) ||
        (rc = spatial_ints(n, "strides", nsp, 1, w->s, NULL, err)) ||
        (rc = spatial_ints(n, "dilations", nsp, 1, w->d, NULL, err)) ||
        (rc = spatial_ints(n, "pads", 2 * nsp, 0, pads, NULL, err)))
        return rc;
    const int64_t lim = IR_SHAPE_LIMIT;
    for (int i = 0; i < nsp; i++) {
        if (w->s[i] < 1 || w->d[i] < 1 || w->k[i] < 1 || w->s[i] > lim || w->d[i] > lim ||
            w->k[i] > lim)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "invalid stride, dilation or kernel");
        if (pads[i] < 0 || pads[i + nsp] < 0 || pads[i] > lim || pads[i + nsp] > lim)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "pads out of range [0, 2^40]");
        w->pb[i] = pads[i];
        w->pe[i] = pads[i + nsp];
    }
    int has_opad, cnt;
    if ((rc = spatial_ints(n, "output_padding", nsp, 0, w->opad, &has_opad, err)))
        return rc;
    for (int i = 0; has_opad && i < nsp; i++)
        if (w->opad[i] < 0 || w->opad[i] >= (w->s[i] > w->d[i] ? w->s[i] : w->d[i]))
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "output_padding[%d] = %lld is not "
                               "below its stride or dilation", i, (long long)w->opad[i]);
    const int64_t *os = ir_node_attr_ints(n, "output_shape", &cnt);
    if (os) {
        /* the spatial sizes, or the full shape */
        if (cnt != nsp && cnt != nsp + 2)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "output_shape has %d values for %d "
                               "spatial dims", cnt, nsp);
        for (int i = 0; i < nsp; i++) {
            w->oshape[i] = os[cnt - nsp + i];
            if (w->oshape[i] < 1 || w->oshape[i] > lim)
                return onnxop_fail(err, n, TOSAC_ERR_INPUT, "output_shape value %lld is out "
                                   "of range", (long long)w->oshape[i]);
        }
        w->has_oshape = 1;
    }
    const char *ap = ir_node_attr_string(n, "auto_pad", "NOTSET");
    if (strcmp(ap, "NOTSET") == 0)
        w->auto_pad = ONNX_PAD_NOTSET;
    else if (strcmp(ap, "SAME_UPPER") == 0)
        w->auto_pad = ONNX_PAD_SAME_UPPER;
    else if (strcmp(ap, "SAME_LOWER") == 0)
        w->auto_pad = ONNX_PAD_SAME_LOWER;
    else if (strcmp(ap, "VALID") == 0)
        w->auto_pad = ONNX_PAD_VALID;
    else
        return onnxop_fail(err, n, TOSAC_ERR_INPUT,
                           "auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", ap);
    w->ceil_mode = ir_node_attr_int(n, "ceil_mode", 0) != 0;
    return TOSAC_OK;
}

tosac_code onnx_window_forward(const ir_node *n, const onnx_window *w, const int64_t *in,
                               const int64_t *kshape, int64_t *out, int64_t *pb, int64_t *pe,
                               tosac_error *err)
{
    if (!kshape && !w->has_k)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "kernel_shape is required");
    const int64_t lim = IR_SHAPE_LIMIT;
    for (int i = 0; i < w->nsp; i++) {
        int64_t k = kshape ? kshape[i] : w->k[i], s = w->s[i], d = w->d[i];
        if (k < 1 || k > lim)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "invalid stride, dilation or kernel");
        if (k - 1 > lim / d)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "dilated kernel too large");
        int64_t ext = (k - 1) * d + 1;
        if (w->auto_pad == ONNX_PAD_SAME_UPPER || w->auto_pad == ONNX_PAD_SAME_LOWER) {
            out[i] = (in[i] + s - 1) / s;
            int64_t total = (out[i] - 1) * s + ext - in[i];
            if (total < 0)
                total = 0;
            pb[i] = w->auto_pad == ONNX_PAD_SAME_UPPER ? total / 2 : total - total / 2;
            pe[i] = total - pb[i];
            continue;
        }
        pb[i] = w->auto_pad == ONNX_PAD_VALID ? 0 : w->pb[i];
        pe[i] = w->auto_pad == ONNX_PAD_VALID ? 0 : w->pe[i];
        int64_t span = in[i] + pb[i] + pe[i] - ext;
        if (span < 0)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "kernel larger than the padded input");
        out[i] = (w->ceil_mode ? (span + s - 1) / s : span / s) + 1;
        /* with ceil_mode the last window must start inside the input or its begin pad */
        if (w->ceil_mode && (out[i] - 1) * s >= in[i] + pb[i])
            out[i]--;
    }
    return TOSAC_OK;
}

tosac_code onnx_window_transpose(const ir_node *n, const onnx_window *w, const int64_t *in,
                                 const int64_t *kshape, int64_t *out, int64_t *pb, int64_t *pe,
                                 tosac_error *err)
{
    const int64_t lim = IR_SHAPE_LIMIT;
    for (int i = 0; i < w->nsp; i++) {
        int64_t k = kshape ? kshape[i] : w->k[i], s = w->s[i], d = w->d[i];
        if (k < 1 || k > lim || k - 1 > lim / d)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "invalid stride, dilation or kernel");
        /* s * in stays below 2^62, so the sums below cannot overflow */
        if (in[i] > lim || (in[i] > 0 && s > ((int64_t)1 << 62) / in[i]))
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "stride %lld times input size %lld "
                               "is too large", (long long)s, (long long)in[i]);
        int64_t ext = (k - 1) * d + 1;
        int64_t full = s * (in[i] - 1) + w->opad[i] + ext;
        int same = w->auto_pad == ONNX_PAD_SAME_UPPER || w->auto_pad == ONNX_PAD_SAME_LOWER;
        if (w->has_oshape || same) {
            int64_t want = w->has_oshape ? w->oshape[i] : in[i] * s;
            int64_t total = full - want;
            if (total < 0)
                total = 0;
            if (w->auto_pad == ONNX_PAD_SAME_UPPER) {
                pb[i] = total / 2;
                pe[i] = total - total / 2;
            } else {
                pb[i] = total - total / 2;
                pe[i] = total / 2;
            }
            out[i] = want;
        } else {
            pb[i] = w->auto_pad == ONNX_PAD_VALID ? 0 : w->pb[i];
            pe[i] = w->auto_pad == ONNX_PAD_VALID ? 0 : w->pe[i];
            out[i] = full - pb[i] - pe[i];
        }
        if (out[i] < 1)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "the output would be empty");
    }
    return TOSAC_OK;
}
