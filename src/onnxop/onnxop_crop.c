/* CenterCropPad geometry (onnxop_crop.h). */
#include "onnxop/onnxop_crop.h"

tosac_code onnxop_crop_axes_parse(const ir_node *n, onnxop_crop_axes *ax, tosac_error *err)
{
    int n_axes = 0;
    const int64_t *axes = ir_node_attr_ints(n, "axes", &n_axes);
    ax->given = axes != NULL;
    ax->n = axes ? n_axes : 0;
    if (n_axes > TOSAC_MAX_RANK)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "%d axes, more than rank %d allows",
                           n_axes, TOSAC_MAX_RANK);
    for (int i = 0; i < ax->n; i++)
        ax->axes[i] = axes[i];
    return TOSAC_OK;
}

tosac_code onnxop_center_crop_pad(const ir_node *n, int rank, const int64_t *in,
                                  const int64_t *target, int n_target, onnxop_crop_pad *cp,
                                  tosac_error *err)
{
    onnxop_crop_axes ax;
    tosac_code rc = onnxop_crop_axes_parse(n, &ax, err);
    return rc ? rc : onnxop_center_crop_pad_at(n, &ax, rank, in, target, n_target, cp, err);
}

tosac_code onnxop_center_crop_pad_at(const ir_node *n, const onnxop_crop_axes *ax, int rank,
                                     const int64_t *in, const int64_t *target, int n_target,
                                     onnxop_crop_pad *cp, tosac_error *err)
{
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "input rank %d", rank);
    const int64_t *axes = ax->given ? ax->axes : NULL;
    int n_axes = ax->given ? ax->n : rank;
    if (n_target != n_axes)
        return onnxop_fail(err, n, TOSAC_ERR_INPUT, "shape has %d values for %d axes",
                           n_target, n_axes);
    cp->rank = rank;
    bool seen[TOSAC_MAX_RANK] = {false};
    for (int d = 0; d < rank; d++) {
        cp->out[d] = in[d];
        cp->start[d] = 0;
    }
    for (int i = 0; i < n_axes; i++) {
        int64_t a = axes ? axes[i] : i;
        if (a < -rank || a >= rank)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "axis %lld out of range for rank %d",
                               (long long)a, rank);
        int d = (int)(a < 0 ? a + rank : a);
        if (seen[d])
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "axis %d given twice", d);
        seen[d] = true;
        if (target[i] < 0)
            return onnxop_fail(err, n, TOSAC_ERR_INPUT, "negative target length %lld",
                               (long long)target[i]);
        cp->out[d] = target[i];
        if (in[d] >= 0) /* floor halves: crop from the front, pad before, odd rest after */
            cp->start[d] = in[d] >= target[i] ? (in[d] - target[i]) / 2
                                              : -((target[i] - in[d]) / 2);
    }
    return TOSAC_OK;
}
