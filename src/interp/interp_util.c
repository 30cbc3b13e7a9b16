/* Element access and error reporting shared by every operator group. */
#include <string.h>

#include "interp/interp_internal.h"
#include "util/elem.h"
#include "util/fp.h"

tosac_code interp_error(interp_ctx *c, const char *fmt, ...)
{
    tosac_error what; /* tosac_vfail formats (no printf family in the interpreter) */
    tosac_error_clear(&what);
    va_list ap;
    va_start(ap, fmt);
    tosac_vfail(&what, TOSAC_ERR_INPUT, fmt, ap);
    va_end(ap);
    const char *oname = "?";
    if (c->op && c->op->n_outputs > 0 && c->block)
        oname = c->block->tensors[c->op->outputs[0]].name;
    else if (c->op && c->op->n_inputs > 0 && c->block)
        oname = c->block->tensors[c->op->inputs[0]].name;
    return tosac_fail(c->err, TOSAC_ERR_INPUT, "%s (output '%s'): %s",
                      c->op ? tosa_op_name(c->op->op) : "?", oname, what.msg);
}

int64_t interp_get_int(const tosac_tensor *t, int64_t i)
{
    switch (t->dtype) {
    /* float storage as its bits: the data-movement operators copy elements through here */
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16: return ((const uint16_t *)t->data)[i];
    case TOSAC_DT_FP8E4M3:
    case TOSAC_DT_FP8E5M2: return ((const uint8_t *)t->data)[i];
    default:
        if (tosac_elem_reads_int(t->dtype))
            return tosac_elem_i64(t->dtype, t->data, i);
        return ((const uint8_t *)t->data)[i];
    }
}

void interp_set_int(tosac_tensor *t, int64_t i, int64_t v)
{
    switch (t->dtype) {
    case TOSAC_DT_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    case TOSAC_DT_U8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case TOSAC_DT_I4:
    case TOSAC_DT_I8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case TOSAC_DT_U16:
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    case TOSAC_DT_I16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case TOSAC_DT_U32: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
    case TOSAC_DT_I32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case TOSAC_DT_I48:
    case TOSAC_DT_I64:
    case TOSAC_DT_SHAPE: ((int64_t *)t->data)[i] = v; break;
    case TOSAC_DT_U64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
    default: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    }
}

float interp_get_float(const tosac_tensor *t, int64_t i)
{
    /* the float dtypes decoded (exact in double, so one rounding to float); integers
     * converted straight from int64, never through double */
    if (tosac_elem_reads_float(t->dtype))
        return (float)tosac_elem_f64(t->dtype, t->data, i);
    return (float)interp_get_int(t, i);
}

void interp_set_float(tosac_tensor *t, int64_t i, float v)
{
    switch (t->dtype) {
    case TOSAC_DT_F32: ((float *)t->data)[i] = v; break;
    case TOSAC_DT_F16: ((uint16_t *)t->data)[i] = tosac_f32_to_f16(v); break;
    case TOSAC_DT_BF16: ((uint16_t *)t->data)[i] = tosac_f32_to_bf16(v); break;
    case TOSAC_DT_F64: ((double *)t->data)[i] = v; break;
    case TOSAC_DT_FP8E4M3: ((uint8_t *)t->data)[i] = tosac_f32_to_fp8e4m3(v, 0); break;
    case TOSAC_DT_FP8E5M2: ((uint8_t *)t->data)[i] = tosac_f32_to_fp8e5m2(v, 0); break;
    default: interp_set_int(t, i, tosac_f64_to_i64_sat(v)); break;
    }
}

int interp_next_index(int64_t *idx, const int64_t *shape, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}
