/* SELECT: output = input1 ? input2 : input3, all three broadcast to the output shape. The
 * value operands are copied by element size, so every in_out_t (bool .. fp32, i64) is one
 * code path. */
#include <string.h>

#include "interp/interp_elementwise.h"
#include "interp/interp_ewise.h"

#define SELECT_TYPES (EW_T(TOSAC_DT_BOOL) | EW_INTS | EW_FLOATS)

tosac_code interp_op_select(interp_ctx *c)
{
    tosac_code rc;
    if ((rc = ew_check_arity(c, 3, 1)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[0], "input1", EW_T(TOSAC_DT_BOOL))) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[1], "input2", SELECT_TYPES)) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[1], "input2", c->in[2], "input3")) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[1], "input2", c->out[0], "output")) != TOSAC_OK ||
        (rc = ew_check_broadcast(c, c->in, 3, c->out[0])) != TOSAC_OK)
        return rc;
    const uint8_t *cond = c->in[0]->data;
    const uint8_t *a = c->in[1]->data, *b = c->in[2]->data;
    uint8_t *o = c->out[0]->data;
    size_t es = tosac_dtype_size(c->out[0]->dtype);
    kern_bcast_rows r;
    ew_rows_init(&r, c->out[0], c->in, 3);
    while (kern_bcast_rows_next(&r)) {
        int64_t ic = r.off[0], ia = r.off[1], ib = r.off[2];
        for (int64_t j = 0; j < r.n; j++) {
            const uint8_t *src = cond[ic] ? a + ia * es : b + ib * es;
            memcpy(o + (r.out_off + j) * es, src, es);
            ic += r.inner[0];
            ia += r.inner[1];
            ib += r.inner[2];
        }
    }
    return TOSAC_OK;
}
