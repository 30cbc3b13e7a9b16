/* Operand checks, broadcasting rows and integer helpers for the elementwise-style groups. */
#include "interp/interp_ewise.h"

#include <string.h>

tosac_code ew_check_arity(interp_ctx *c, int n_in, int n_out)
{
    if (c->n_in != n_in || c->n_out != n_out)
        return interp_error(c, "expects %d input(s) and %d output(s), got %d and %d", n_in,
                            n_out, c->n_in, c->n_out);
    for (int i = 0; i < n_in; i++)
        if (!c->in[i] || (!c->in[i]->data && c->in[i]->nbytes))
            return interp_error(c, "input %d is not bound", i + 1);
    for (int i = 0; i < n_out; i++)
        if (!c->out[i])
            return interp_error(c, "output %d is not bound", i + 1);
    return TOSAC_OK;
}

tosac_code ew_check_type(interp_ctx *c, const tosac_tensor *t, const char *role,
                         uint32_t allowed)
{
    if ((unsigned)t->dtype >= 32 || !(allowed & EW_T(t->dtype)))
        return interp_error(c, "unsupported %s type %s", role, tosac_dtype_name(t->dtype));
    return TOSAC_OK;
}

tosac_code ew_check_same_type(interp_ctx *c, const tosac_tensor *a, const char *role_a,
                              const tosac_tensor *b, const char *role_b)
{
    if (a->dtype != b->dtype)
        return interp_error(c, "%s type %s differs from %s type %s", role_b,
                            tosac_dtype_name(b->dtype), role_a, tosac_dtype_name(a->dtype));
    return TOSAC_OK;
}

tosac_code ew_check_broadcast(interp_ctx *c, tosac_tensor *const *in, int n_in,
                              const tosac_tensor *out)
{
    char s1[128], s2[128];
    for (int k = 0; k < n_in; k++) {
        if (in[k]->rank != out->rank)
            return interp_error(c, "ERROR_IF(rank(shape%d) != rank(shape)): input%d %s, output %s",
                                k + 1, k + 1, tosac_shape_str(in[k]->rank, in[k]->shape, s1, sizeof s1),
                                tosac_shape_str(out->rank, out->shape, s2, sizeof s2));
    }
    for (int d = 0; d < out->rank; d++) {
        int64_t b = 1; /* broadcast_shape: dims of 1 take the other operand's size */
        for (int k = 0; k < n_in; k++) {
            int64_t s = in[k]->shape[d];
            if (s == 1)
                continue;
            if (b != 1 && s != b)
                return interp_error(c, "ERROR_IF(shape != broadcast_shape(...)): input dims %lld and %lld differ on axis %d",
                                    (long long)b, (long long)s, d);
            b = s;
        }
        if (b != out->shape[d])
            return interp_error(c, "ERROR_IF(shape != broadcast_shape(...)): output %s, axis %d should be %lld",
                                tosac_shape_str(out->rank, out->shape, s1, sizeof s1), d,
                                (long long)b);
    }
    return TOSAC_OK;
}

tosac_code ew_check_same_shape(interp_ctx *c, const tosac_tensor *in, const tosac_tensor *out)
{
    bool same = in->rank == out->rank;
    for (int d = 0; same && d < in->rank; d++)
        same = in->shape[d] == out->shape[d];
    if (!same) {
        char s1[128], s2[128];
        return interp_error(c, "output shape %s differs from input shape %s",
                            tosac_shape_str(out->rank, out->shape, s1, sizeof s1),
                            tosac_shape_str(in->rank, in->shape, s2, sizeof s2));
    }
    return TOSAC_OK;
}

tosac_code ew_check_scalar(interp_ctx *c, const tosac_tensor *t, const char *role)
{
    if (tosac_tensor_numel(t) != 1)
        return interp_error(c, "%s must hold exactly one value, it has %lld", role,
                            (long long)tosac_tensor_numel(t));
    return TOSAC_OK;
}

void ew_rows_init(kern_bcast_rows *r, const tosac_tensor *out, tosac_tensor *const *in,
                  int n_in)
{
    /* the inputs have the output's rank (ew_check_broadcast): a dim of 1 broadcasts */
    kern_bcast b;
    memset(&b, 0, sizeof b);
    b.rank = out->rank;
    b.n_in = n_in;
    memcpy(b.shape, out->shape, sizeof b.shape);
    b.numel = tosac_tensor_numel(out);
    for (int k = 0; k < n_in; k++) {
        int64_t s = 1;
        for (int d = out->rank - 1; d >= 0; d--) {
            b.stride[k][d] = in[k]->shape[d] == 1 ? 0 : s;
            s *= in[k]->shape[d];
        }
    }
    kern_bcast_rows_init(r, &b);
}

bool ew_is_float(tosac_dtype dt)
{
    return dt == TOSAC_DT_F16 || dt == TOSAC_DT_BF16 || dt == TOSAC_DT_F32;
}

void ew_args_init(ew_args *k, tosac_dtype dt)
{
    memset(k, 0, sizeof *k);
    k->dt = dt;
    k->bits = tosac_dtype_bits(dt);
    k->min = arith_min_s(k->bits);
    k->max = arith_max_s(k->bits);
}

static tosac_code required(interp_ctx *c, const char *cond)
{
    return interp_error(c, "REQUIRE(%s) violated: the result is unpredictable", cond);
}

tosac_code ew_map2_int(interp_ctx *c, ew_int2_fn fn, const ew_args *k)
{
    const tosac_tensor *a = c->in[0], *b = c->in[1];
    tosac_tensor *out = c->out[0];
    kern_bcast_rows r;
    ew_rows_init(&r, out, c->in, 2);
    while (kern_bcast_rows_next(&r)) {
        int64_t ia = r.off[0], ib = r.off[1];
        for (int64_t j = 0; j < r.n; j++, ia += r.inner[0], ib += r.inner[1]) {
            int64_t v;
            const char *bad = fn(interp_get_int(a, ia), interp_get_int(b, ib), &v, k);
            if (bad)
                return required(c, bad);
            interp_set_int(out, r.out_off + j, v);
        }
    }
    return TOSAC_OK;
}

tosac_code ew_map2_float(interp_ctx *c, ew_f2_fn fn, const ew_args *k)
{
    const tosac_tensor *a = c->in[0], *b = c->in[1];
    tosac_tensor *out = c->out[0];
    bool fout = ew_is_float(out->dtype);
    kern_bcast_rows r;
    ew_rows_init(&r, out, c->in, 2);
    while (kern_bcast_rows_next(&r)) {
        int64_t ia = r.off[0], ib = r.off[1];
        for (int64_t j = 0; j < r.n; j++, ia += r.inner[0], ib += r.inner[1]) {
            double v = fn(interp_get_float(a, ia), interp_get_float(b, ib), k);
            if (fout)
                interp_set_float(out, r.out_off + j, (float)v);
            else
                interp_set_int(out, r.out_off + j, (int64_t)v);
        }
    }
    return TOSAC_OK;
}

tosac_code ew_map1_int(interp_ctx *c, ew_int1_fn fn, const ew_args *k)
{
    const tosac_tensor *a = c->in[0];
    tosac_tensor *out = c->out[0];
    int64_t n = tosac_tensor_numel(out);
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        const char *bad = fn(interp_get_int(a, i), &v, k);
        if (bad)
            return required(c, bad);
        interp_set_int(out, i, v);
    }
    return TOSAC_OK;
}

tosac_code ew_map1_float(interp_ctx *c, ew_f1_fn fn, const ew_args *k)
{
    const tosac_tensor *a = c->in[0];
    tosac_tensor *out = c->out[0];
    int64_t n = tosac_tensor_numel(out);
    for (int64_t i = 0; i < n; i++)
        interp_set_float(out, i, (float)fn(interp_get_float(a, i), k));
    return TOSAC_OK;
}

tosac_code ew_prologue2(interp_ctx *c, int n_in, uint32_t allowed, tosac_dtype out_dt,
                        ew_args *k)
{
    tosac_code rc;
    if ((rc = ew_check_arity(c, n_in, 1)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[0], "input1", allowed)) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input1", c->in[1], "input2")) != TOSAC_OK)
        return rc;
    if (out_dt == TOSAC_DT_UNKNOWN)
        rc = ew_check_same_type(c, c->in[0], "input1", c->out[0], "output");
    else if (c->out[0]->dtype != out_dt)
        rc = interp_error(c, "output type %s should be %s for input type %s",
                          tosac_dtype_name(c->out[0]->dtype), tosac_dtype_name(out_dt),
                          tosac_dtype_name(c->in[0]->dtype));
    if (rc != TOSAC_OK || (rc = ew_check_broadcast(c, c->in, 2, c->out[0])) != TOSAC_OK)
        return rc;
    ew_args_init(k, c->in[0]->dtype);
    return TOSAC_OK;
}

tosac_code ew_prologue1(interp_ctx *c, int n_in, uint32_t allowed, ew_args *k)
{
    tosac_code rc;
    if ((rc = ew_check_arity(c, n_in, 1)) != TOSAC_OK ||
        (rc = ew_check_type(c, c->in[0], "input1", allowed)) != TOSAC_OK ||
        (rc = ew_check_same_type(c, c->in[0], "input1", c->out[0], "output")) != TOSAC_OK ||
        (rc = ew_check_same_shape(c, c->in[0], c->out[0])) != TOSAC_OK)
        return rc;
    ew_args_init(k, c->in[0]->dtype);
    return TOSAC_OK;
}

tosac_code ew_check_nan_mode(interp_ctx *c, tosac_dtype dt)
{
    uint32_t m = c->op->attr.nan_mode;
    if (ew_is_float(dt) && m != TOSA_NAN_PROPAGATE && m != TOSA_NAN_IGNORE)
        return interp_error(c, "nan_mode %u is not PROPAGATE (1) or IGNORE (2)", (unsigned)m);
    return TOSAC_OK;
}

tosac_code ew_float_unary_op(interp_ctx *c, ew_f1_fn fn)
{
    ew_args k;
    tosac_code rc = ew_prologue1(c, 1, EW_FLOATS, &k);
    return rc != TOSAC_OK ? rc : ew_map1_float(c, fn, &k);
}
