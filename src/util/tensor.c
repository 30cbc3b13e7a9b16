/* Tensor core: shape checks, element readers, shape strings (runtime library: allocates
 * nothing; tosac_tensor_alloc/free are compiler-side, tensor_alloc.c). */
#include "tosac/tensor.h"

#include "util/elem.h"
#include "util/format.h"

#include <string.h>

int64_t tosac_shape_numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

bool tosac_shape_equal(int rank_a, const int64_t *a, int rank_b, const int64_t *b)
{
    if (rank_a != rank_b)
        return false;
    for (int d = 0; d < rank_a; d++)
        if (a[d] != b[d])
            return false;
    return true;
}

int64_t tosac_tensor_numel(const tosac_tensor *t) { return tosac_shape_numel(t->rank, t->shape); }

tosac_code tosac_shape_check(tosac_dtype dt, int rank, const int64_t *shape, size_t *nbytes_out,
                             tosac_error *err)
{
    if (rank < 0 || rank > TOSAC_MAX_RANK)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "rank %d is outside 0..%d", rank,
                          TOSAC_MAX_RANK);
    size_t esize = tosac_dtype_size(dt);
    if (esize == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "unknown element type");
    uint64_t bytes = esize;
    int zero = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "negative dimension %lld",
                              (long long)shape[i]);
        if (shape[i] == 0) {
            zero = 1;
            continue;
        }
        if ((uint64_t)shape[i] > TOSAC_MAX_TENSOR_BYTES ||
            bytes > TOSAC_MAX_TENSOR_BYTES / (uint64_t)shape[i])
            return tosac_fail(err, TOSAC_ERR_INPUT, "tensor too large (more than %llu bytes)",
                              (unsigned long long)TOSAC_MAX_TENSOR_BYTES);
        bytes *= (uint64_t)shape[i];
    }
    if (nbytes_out)
        *nbytes_out = zero ? 0 : (size_t)bytes;
    return TOSAC_OK;
}

const char *tosac_shape_str(int rank, const int64_t *shape, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    n += tosac_format(buf + n, len - n, "[");
    for (int i = 0; i < rank && n < len; i++)
        n += tosac_format(buf + n, len - n, i ? ",%lld" : "%lld", (long long)shape[i]);
    if (n < len)
        tosac_format(buf + n, len - n, "]");
    return buf;
}

int64_t tosac_tensor_int_at(const tosac_tensor *t, int64_t i)
{
    return tosac_elem_i64(t->dtype, t->data, i);
}

double tosac_tensor_f64_at(const tosac_tensor *t, int64_t i)
{
    return tosac_elem_f64(t->dtype, t->data, i);
}

tosac_code tosac_tensor_describe(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                                 tosac_error *err)
{
    size_t nbytes;
    memset(t, 0, sizeof *t);
    tosac_code rc = tosac_shape_check(dt, rank, shape, &nbytes, err);
    if (rc)
        return rc;
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    t->nbytes = nbytes;
    return TOSAC_OK;
}
