/* Shared checks of the windowed operators; see interp_nn_util.h. */
#include "interp/interp_nn_util.h"


tosac_code nn_check_arity(interp_ctx *c, int n_in, int n_out)
{
    if (c->n_in != n_in || c->n_out != n_out)
        return interp_error(c, "expects %d inputs and %d outputs, got %d and %d", n_in, n_out,
                            c->n_in, c->n_out);
    return TOSAC_OK;
}

tosac_code nn_check_rank(interp_ctx *c, const tosac_tensor *t, int rank, const char *what)
{
    if (t->rank != rank)
        return interp_error(c, "ERROR_IF(rank(%s) != %d): rank is %d", what, rank, t->rank);
    return TOSAC_OK;
}

tosac_code nn_check_attr_len(interp_ctx *c, int have, int need, const char *what)
{
    if (have < need)
        return interp_error(c, "attribute %s needs %d values, has %d", what, need, have);
    return TOSAC_OK;
}

tosac_code nn_read_zp(interp_ctx *c, const tosac_tensor *zp, tosac_dtype operand_dt,
                      const char *what, nn_zp *out)
{
    if (tosac_tensor_numel(zp) != 1)
        return interp_error(c, "%s must have shape [1]", what);
    if (zp->dtype != operand_dt)
        return interp_error(c, "%s type %s differs from its operand's type %s", what,
                            tosac_dtype_name(zp->dtype), tosac_dtype_name(operand_dt));
    if (tosac_dtype_is_float(zp->dtype)) {
        out->f = interp_get_float(zp, 0);
        out->i = 0;
        if (out->f != 0.0) /* NaN counts as non-zero too */
            return interp_error(c, "ERROR_IF(%s != 0) for a non-int8 operand", what);
    } else {
        out->i = interp_get_int(zp, 0);
        out->f = (double)out->i;
        if (zp->dtype != TOSAC_DT_I8 && out->i != 0)
            return interp_error(c, "ERROR_IF(%s != 0) for a non-int8 operand", what);
    }
    return TOSAC_OK;
}

tosac_code nn_check_out_dim(interp_ctx *c, int64_t num, int64_t stride, int64_t out,
                            const char *what)
{
    if (num % stride != 0)
        return interp_error(c, "ERROR_IF(%s: idiv_check(%lld, %lld) is not exact)", what,
                            (long long)num, (long long)stride);
    if (out != num / stride + 1)
        return interp_error(c, "ERROR_IF(%s != %lld): output has %lld", what,
                            (long long)(num / stride + 1), (long long)out);
    return TOSAC_OK;
}

int64_t nn_int_max(tosac_dtype dt)
{
    int bits = tosac_dtype_bits(dt);
    return bits >= 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
}

int64_t nn_int_min(tosac_dtype dt)
{
    return -nn_int_max(dt) - 1;
}

bool nn_is_sint(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_I4:
    case TOSAC_DT_I8:
    case TOSAC_DT_I16:
    case TOSAC_DT_I32:
    case TOSAC_DT_I48:
    case TOSAC_DT_I64: return true;
    default: return false;
    }
}
