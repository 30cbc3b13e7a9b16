/* npy <-> graph element type matching (see interp/interp_io.h); host side: it allocates. */
#include "interp/interp_io.h"

#include <string.h>

#include "interp/interp_internal.h"

static bool same_width_ints(tosac_dtype a, tosac_dtype b)
{
    return tosac_dtype_is_int(a) && tosac_dtype_is_int(b) && a != TOSAC_DT_I4 && b != TOSAC_DT_I4 &&
           a != TOSAC_DT_I48 && b != TOSAC_DT_I48 && tosac_dtype_size(a) == tosac_dtype_size(b);
}

static tosac_code range_check(const tosac_tensor *t, int64_t lo, int64_t hi, const char *what,
                              tosac_dtype want, tosac_error *err)
{
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = interp_get_int(t, i);
        if (v < lo || v > hi)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: value %lld at element %lld is out of %s range",
                              what, (long long)v, (long long)i, tosac_dtype_name(want));
    }
    return TOSAC_OK;
}

tosac_code interp_adapt_tensor(tosac_tensor *t, tosac_dtype want, const char *what,
                               tosac_error *err)
{
    tosac_dtype have = t->dtype;
    if (have == want)
        return TOSAC_OK;
    if (have == TOSAC_DT_I64 && want == TOSAC_DT_I48) {
        if (range_check(t, -((int64_t)1 << 47), ((int64_t)1 << 47) - 1, what, want, err))
            return err->code;
    } else if (have == TOSAC_DT_I8 && want == TOSAC_DT_I4) {
        if (range_check(t, -8, 7, what, want, err))
            return err->code;
    } else if (have == TOSAC_DT_F32 && (want == TOSAC_DT_BF16 || want == TOSAC_DT_FP8E4M3 ||
                                        want == TOSAC_DT_FP8E5M2)) {
        tosac_tensor conv;
        if (tosac_tensor_alloc(&conv, want, t->rank, t->shape, err))
            return err->code;
        int64_t n = tosac_tensor_numel(t);
        for (int64_t i = 0; i < n; i++)
            interp_set_float(&conv, i, ((const float *)t->data)[i]);
        tosac_tensor_free(t);
        *t = conv;
        return TOSAC_OK;
    } else if (!(have == TOSAC_DT_I64 && want == TOSAC_DT_SHAPE) && !same_width_ints(have, want)) {
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: the data is %s, the graph declares %s", what,
                          tosac_dtype_name(have), tosac_dtype_name(want));
    }
    t->dtype = want; /* same storage: retag */
    return TOSAC_OK;
}

tosac_dtype interp_npy_dtype(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_I4: return TOSAC_DT_I8;
    case TOSAC_DT_BF16:
    case TOSAC_DT_FP8E4M3:
    case TOSAC_DT_FP8E5M2: return TOSAC_DT_F32;
    default: return dt;
    }
}

tosac_code interp_to_npy_tensor(const tosac_tensor *t, tosac_tensor *out, tosac_error *err)
{
    tosac_dtype dt = interp_npy_dtype(t->dtype);
    if (tosac_tensor_alloc(out, dt, t->rank, t->shape, err))
        return err->code;
    if (dt == t->dtype || dt == TOSAC_DT_I8) {
        if (t->nbytes)
            memcpy(out->data, t->data, t->nbytes);
        return TOSAC_OK;
    }
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        ((float *)out->data)[i] = interp_get_float(t, i);
    return TOSAC_OK;
}
