/* TABLE: int8 direct lookup (256 entries) and int16 interpolated lookup (513 entries, i32
 * result with 7 fraction bits), the spec's apply_lookup_s. */
#include "interp/interp_elementwise.h"
#include "interp/interp_ewise.h"

tosac_code interp_op_table(interp_ctx *c)
{
    tosac_code rc;
    if ((rc = ew_check_arity(c, 2, 1)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[0], "input1", EW_T(TOSAC_DT_I8) | EW_T(TOSAC_DT_I16))) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input1", c->in[1], "table")) != TOSAC_OK)
        return rc;
    const tosac_tensor *in = c->in[0], *tab = c->in[1];
    tosac_tensor *out = c->out[0];
    bool i8 = in->dtype == TOSAC_DT_I8;
    tosac_dtype out_dt = i8 ? TOSAC_DT_I8 : TOSAC_DT_I32;
    if (out->dtype != out_dt)
        return interp_error(c, "output type %s should be %s", tosac_dtype_name(out->dtype),
                            tosac_dtype_name(out_dt));
    if ((rc = ew_check_same_shape(c, in, out)) != TOSAC_OK)
        return rc;
    int64_t size = i8 ? 256 : 513;
    if (tab->rank != 1 || tab->shape[0] != size)
        return interp_error(c, "REQUIRE(length(table) == TABLE_SIZE) violated: table has %lld "
                               "entries, %s needs %lld",
                            (long long)tosac_tensor_numel(tab), tosac_dtype_name(in->dtype),
                            (long long)size);
    int64_t n = tosac_tensor_numel(out);
    if (i8) {
        const int8_t *x = in->data, *t = tab->data;
        int8_t *o = out->data;
        for (int64_t i = 0; i < n; i++)
            o[i] = t[x[i] + 128];
        return TOSAC_OK;
    }
    const int16_t *x = in->data, *t = tab->data;
    int32_t *o = out->data;
    for (int64_t i = 0; i < n; i++) {
        int32_t v = x[i];
        int32_t index = (v + 32768) >> 7; /* 0..511: the entry at or below v */
        int32_t fraction = v & 0x7f;      /* position between entries, 7 bits */
        int32_t base = t[index], slope = t[index + 1] - base;
        if (slope < INT16_MIN || slope > INT16_MAX)
            return interp_error(c, "REQUIRE(slope >= minimum_s<i16_t>() && slope <= "
                                   "maximum_s<i16_t>()) violated between table entries %d and "
                                   "%d: the result is unpredictable", index, index + 1);
        o[i] = base * 128 + slope * fraction; /* (base << 7) without shifting a negative */
    }
    return TOSAC_OK;
}
