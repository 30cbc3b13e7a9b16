/* Operator group: scatter/gather (GATHER, SCATTER). Rows of C elements are moved as raw
 * bytes, so every element type works; indices are i32 or (TOSA 1.1 EXT-INT64) i64. */
#include <string.h>

#include "interp/interp_internal.h"

static tosac_code check_index_type(interp_ctx *c, const tosac_tensor *idx)
{
    if (idx->dtype != TOSAC_DT_I32 && idx->dtype != TOSAC_DT_I64)
        return interp_error(c, "indices have type %s, not i32 or i64", tosac_dtype_name(idx->dtype));
    if (idx->rank != 2)
        return interp_error(c, "ERROR_IF: indices have rank %d, not 2 ([N,W])", idx->rank);
    return TOSAC_OK;
}

/* t must be [n, w, ch] (ch < 0: any) and of type dt. */
static tosac_code check_nwc(interp_ctx *c, const tosac_tensor *t, const char *what, int64_t n,
                            int64_t w, int64_t ch, tosac_dtype dt)
{
    if (t->dtype != dt)
        return interp_error(c, "ERROR_IF: %s has type %s, values %s", what,
                            tosac_dtype_name(t->dtype), tosac_dtype_name(dt));
    if (t->rank != 3 || t->shape[0] != n || t->shape[1] != w || (ch >= 0 && t->shape[2] != ch))
        return interp_error(c, "ERROR_IF: %s shape does not match [N=%lld,%lld,C]", what,
                            (long long)n, (long long)w);
    return TOSAC_OK;
}

/* indices[n, w] as k, which must lie in 0..K-1. */
static tosac_code get_index(interp_ctx *c, const tosac_tensor *idx, int64_t n, int64_t w,
                            int64_t W, int64_t K, int64_t *k)
{
    *k = interp_get_int(idx, n * W + w);
    if (*k < 0 || *k >= K)
        return interp_error(c, "REQUIRE(0 <= k && k < K): indices[%lld,%lld] = %lld, K = %lld",
                            (long long)n, (long long)w, (long long)*k, (long long)K);
    return TOSAC_OK;
}

tosac_code interp_op_gather(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 2);
    const tosac_tensor *values = c->in[0], *idx = c->in[1];
    tosac_tensor *out = c->out[0];
    tosac_code rc = check_index_type(c, idx);
    if (rc != TOSAC_OK)
        return rc;
    if (values->rank != 3)
        return interp_error(c, "ERROR_IF: values have rank %d, not 3 ([N,K,C])", values->rank);
    int64_t N = values->shape[0], K = values->shape[1], C = values->shape[2], W = idx->shape[1];
    INTERP_ERROR_IF(c, idx->shape[0] != N);
    if ((rc = check_nwc(c, out, "output", N, W, C, values->dtype)) != TOSAC_OK)
        return rc;
    size_t row = (size_t)C * tosac_dtype_size(values->dtype);
    const uint8_t *src = values->data;
    uint8_t *dst = out->data;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t w = 0; w < W; w++) {
            int64_t k;
            if ((rc = get_index(c, idx, n, w, W, K, &k)) != TOSAC_OK)
                return rc;
            if (row)
                memcpy(dst + (size_t)(n * W + w) * row, src + (size_t)(n * K + k) * row, row);
        }
    }
    return TOSAC_OK;
}

tosac_code interp_op_scatter(interp_ctx *c)
{
    INTERP_ERROR_IF(c, c->n_in != 3);
    const tosac_tensor *vin = c->in[0], *idx = c->in[1], *input = c->in[2];
    tosac_tensor *vout = c->out[0];
    tosac_code rc = check_index_type(c, idx);
    if (rc != TOSAC_OK)
        return rc;
    if (vin->rank != 3)
        return interp_error(c, "ERROR_IF: values_in have rank %d, not 3 ([N,K,C])", vin->rank);
    int64_t N = vin->shape[0], K = vin->shape[1], C = vin->shape[2], W = idx->shape[1];
    INTERP_ERROR_IF(c, idx->shape[0] != N);
    if ((rc = check_nwc(c, input, "input", N, W, C, vin->dtype)) != TOSAC_OK ||
        (rc = check_nwc(c, vout, "values_out", N, K, C, vin->dtype)) != TOSAC_OK)
        return rc;
    size_t row = (size_t)C * tosac_dtype_size(vin->dtype);
    if (N * K > 0 && row > 0)
        memcpy(vout->data, vin->data, (size_t)(N * K) * row);
    const uint8_t *src = input->data;
    uint8_t *dst = vout->data;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t w = 0; w < W; w++) {
            int64_t k;
            if ((rc = get_index(c, idx, n, w, W, K, &k)) != TOSAC_OK)
                return rc;
            /* each output position may be written once: no repeated k within a batch.
             * A quadratic scan keeps the op free of scratch memory. */
            if (C > 0)
                for (int64_t w2 = 0; w2 < w; w2++)
                    if (interp_get_int(idx, n * W + w2) == k)
                        return interp_error(c, "REQUIRE(output_modified[n,k,c] == false): "
                                            "indices[%lld,%lld] and indices[%lld,%lld] are both "
                                            "%lld", (long long)n, (long long)w2, (long long)n,
                                            (long long)w, (long long)k);
            if (row)
                memcpy(dst + (size_t)(n * K + k) * row, src + (size_t)(n * W + w) * row, row);
        }
    }
    return TOSAC_OK;
}

const interp_op_entry interp_ops_scatter_gather[] = {
    {TOSA_OP_GATHER, interp_op_gather},
    {TOSA_OP_SCATTER, interp_op_scatter},
    {TOSA_OP_UNKNOWN, NULL},
};
