/* TensorProto <-> host tensors: raw_data, the typed value fields, external data files
 * (path-checked), sparse tensors, and standalone .pb tensor files. The host is little-endian,
 * as raw_data is. */
#include "onnx_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

static tosac_code read_dims(const int64_t *dims, size_t n_dims, const char *what, int *rank,
                            int64_t *shape, tosac_error *err)
{
    if (n_dims > TOSAC_MAX_RANK)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s: rank %zu is more than %d", what,
                          n_dims, TOSAC_MAX_RANK);
    for (size_t d = 0; d < n_dims; d++) {
        if (dims[d] < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: dimension %zu is %lld", what, d,
                              (long long)dims[d]);
        shape[d] = dims[d];
    }
    *rank = (int)n_dims;
    return TOSAC_OK;
}

/* Packed 4-bit values (low nibble first) -> one byte each; signed ones sign-extended. */
static void unpack_nibbles(const uint8_t *src, int8_t *dst, int64_t n, bool is_signed)
{
    for (int64_t i = 0; i < n; i++) {
        int v = (src[i / 2] >> ((i & 1) * 4)) & 0xF;
        dst[i] = (int8_t)(is_signed && v >= 8 ? v - 16 : v);
    }
}

static bool safe_relative_path(const char *p)
{
    if (!p || !*p || p[0] == '/' || strchr(p, '\\'))
        return false;
    /* No ".." component anywhere. */
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 2 && s[0] == '.' && s[1] == '.')
            return false;
        if (!e)
            break;
        s = e + 1;
    }
    return true;
}

static tosac_code parse_u64(const char *v, const char *key, const char *what, uint64_t *out,
                            tosac_error *err)
{
    char *end;
    errno = 0;
    if (!v || *v < '0' || *v > '9')
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: external data %s '%s' is not a number", what,
                          key, v ? v : "");
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: external data %s '%s' is not a number", what,
                          key, v);
    *out = x;
    return TOSAC_OK;
}

/* Reads need bytes of external data into a new malloc'd buffer *dst (checked against the
 * file size before allocating, so a lying header cannot force a huge allocation). */
static tosac_code read_external(const Onnx__TensorProto *tp, const char *base_dir,
                                const char *what, void **dst, size_t need, tosac_error *err)
{
    const char *location = NULL;
    uint64_t offset = 0, length = UINT64_MAX;
    *dst = NULL;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        if (!e->key)
            continue;
        if (strcmp(e->key, "location") == 0)
            location = e->value;
        else if (strcmp(e->key, "offset") == 0 && parse_u64(e->value, "offset", what, &offset, err))
            return TOSAC_ERR_INPUT;
        else if (strcmp(e->key, "length") == 0 && parse_u64(e->value, "length", what, &length, err))
            return TOSAC_ERR_INPUT;
    }
    if (!location)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: external data without a location", what);
    if (!base_dir)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "%s: external data '%s' but the model was not loaded from a file", what,
                          location);
    if (!safe_relative_path(location))
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "%s: external data path '%s' must be relative and stay next to the model",
                          what, location);
    if (length != UINT64_MAX && length != need)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: external data length %llu, expected %zu",
                          what, (unsigned long long)length, need);
    size_t plen = strlen(base_dir) + strlen(location) + 2;
    char *path = malloc(plen);
    if (!path)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    snprintf(path, plen, "%s/%s", base_dir, location);
    FILE *f = fopen(path, "rb");
    tosac_code rc = TOSAC_OK;
    off_t size = -1;
    if (!f) {
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: cannot open external data '%s': %s", what,
                        path, strerror(errno));
    } else {
        if (fseeko(f, 0, SEEK_END) == 0)
            size = ftello(f);
        if (size < 0 || offset > (uint64_t)size || (uint64_t)size - offset < need ||
            fseeko(f, (off_t)offset, SEEK_SET) != 0)
            rc = tosac_fail(err, TOSAC_ERR_INPUT,
                            "%s: external data '%s' is shorter than offset %llu + %zu bytes", what,
                            location, (unsigned long long)offset, need);
        else if (!(*dst = malloc(need ? need : 1)))
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        else if (fread(*dst, 1, need, f) != need)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: reading external data '%s' failed", what,
                            location);
        fclose(f);
    }
    if (rc) {
        free(*dst);
        *dst = NULL;
    }
    free(path);
    return rc;
}

/* Number of values the typed field for dt holds; -1 where typed fields are not supported. */
static int64_t typed_count(const Onnx__TensorProto *tp, tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_F32: return (int64_t)tp->n_float_data;
    case TOSAC_DT_I64: return (int64_t)tp->n_int64_data;
    case TOSAC_DT_F64: return (int64_t)tp->n_double_data;
    case TOSAC_DT_U32:
    case TOSAC_DT_U64: return (int64_t)tp->n_uint64_data;
    case TOSAC_DT_I4:
    case TOSAC_DT_FP4E2M1: return -1;
    default: return (int64_t)tp->n_int32_data;
    }
}

/* Copies n typed-field values (count already checked) into dst as dt's representation. */
static void from_typed(const Onnx__TensorProto *tp, tosac_dtype dt, int64_t n, void *dst)
{
    for (int64_t i = 0; i < n; i++) {
        switch (dt) {
        case TOSAC_DT_F32: ((float *)dst)[i] = tp->float_data[i]; break;
        case TOSAC_DT_I64: ((int64_t *)dst)[i] = tp->int64_data[i]; break;
        case TOSAC_DT_F64: ((double *)dst)[i] = tp->double_data[i]; break;
        case TOSAC_DT_U32: ((uint32_t *)dst)[i] = (uint32_t)tp->uint64_data[i]; break;
        case TOSAC_DT_U64: ((uint64_t *)dst)[i] = tp->uint64_data[i]; break;
        case TOSAC_DT_I32: ((int32_t *)dst)[i] = tp->int32_data[i]; break;
        case TOSAC_DT_I16: ((int16_t *)dst)[i] = (int16_t)tp->int32_data[i]; break;
        case TOSAC_DT_U16:
        case TOSAC_DT_F16:
        case TOSAC_DT_BF16: ((uint16_t *)dst)[i] = (uint16_t)tp->int32_data[i]; break;
        case TOSAC_DT_BOOL: ((uint8_t *)dst)[i] = tp->int32_data[i] != 0; break;
        default: ((uint8_t *)dst)[i] = (uint8_t)tp->int32_data[i]; break; /* 8-bit types */
        }
    }
}

/* The tensor takes over tp's raw_data (malloc'd by protobuf-c's default allocator, as
 * aligned as malloc) where its bytes are the tensor's: no second copy of the weights. */
static tosac_code take_raw(Onnx__TensorProto *tp, tosac_dtype dt, int rank,
                           const int64_t *shape, tosac_tensor *out, tosac_error *err)
{
    tosac_code rc = tosac_tensor_describe(out, dt, rank, shape, err);
    if (rc)
        return rc;
    out->data = tp->raw_data.data;
    out->owns_data = 1;
    tp->raw_data.data = NULL; /* free_unpacked skips it */
    tp->raw_data.len = 0;
    if (dt == TOSAC_DT_BOOL)
        for (size_t i = 0; i < out->nbytes; i++)
            ((uint8_t *)out->data)[i] = ((uint8_t *)out->data)[i] != 0;
    return TOSAC_OK;
}

tosac_code onnx_tensor_from_proto(Onnx__TensorProto *tp, const char *base_dir,
                                  const char *what, tosac_tensor *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    int onnx_type = tp->has_data_type ? tp->data_type : 0;
    tosac_dtype dt = onnx_dtype_to_tosac(onnx_type);
    if (dt == TOSAC_DT_UNKNOWN)
        return tosac_fail(err, onnx_type > 0 && onnx_type <= 23 ? TOSAC_ERR_UNSUPPORTED
                                                                : TOSAC_ERR_INPUT,
                          "%s: data type %s is not supported", what, onnx_dtype_name(onnx_type));
    if (tp->segment)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s: segmented tensors are not supported",
                          what);
    int rank = 0;
    int64_t shape[TOSAC_MAX_RANK];
    size_t nbytes;
    tosac_error e2;
    tosac_error_clear(&e2);
    if (read_dims(tp->dims, tp->n_dims, what, &rank, shape, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    if (tosac_shape_check(dt, rank, shape, &nbytes, &e2))
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: %s", what, e2.msg);
    int64_t n = tosac_shape_numel(rank, shape);
    bool nibbles = dt == TOSAC_DT_I4 || dt == TOSAC_DT_FP4E2M1;
    size_t stored = nibbles ? (size_t)(n + 1) / 2 : nbytes;
    bool external = tp->has_data_location && tp->data_location == 1;
    void *src = NULL; /* external bytes, read into a temporary buffer */
    if (external) {
        if (read_external(tp, base_dir, what, &src, stored, err))
            return err ? err->code : TOSAC_ERR_INPUT;
    } else if (tp->has_raw_data) {
        if (tp->raw_data.len != stored)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s: raw_data has %zu bytes, the shape needs %zu", what,
                              tp->raw_data.len, stored);
    } else {
        int64_t have = typed_count(tp, dt);
        if (have < 0)
            return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                              "%s: 4-bit data outside raw_data is not supported", what);
        if (have != n)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: %lld values for %lld elements", what,
                              (long long)have, (long long)n);
    }
    if (!external && tp->has_raw_data && !nibbles && stored && tp->raw_data.data) {
        if (take_raw(tp, dt, rank, shape, out, &e2))
            return tosac_fail(err, e2.code, "%s: %s", what, e2.msg);
        return TOSAC_OK;
    }
    if (tosac_tensor_alloc(out, dt, rank, shape, &e2)) {
        free(src);
        return tosac_fail(err, e2.code, "%s: %s", what, e2.msg);
    }
    const uint8_t *bytes = external ? src : tp->raw_data.data;
    if (external || tp->has_raw_data) {
        if (nibbles)
            unpack_nibbles(bytes, out->data, n, dt == TOSAC_DT_I4);
        else if (stored)
            memcpy(out->data, bytes, stored);
        if (dt == TOSAC_DT_BOOL)
            for (int64_t i = 0; i < n; i++)
                ((uint8_t *)out->data)[i] = ((uint8_t *)out->data)[i] != 0;
    } else {
        from_typed(tp, dt, n, out->data);
    }
    free(src);
    return TOSAC_OK;
}

tosac_code onnx_tensor_from_sparse(const Onnx__SparseTensorProto *sp, const char *base_dir,
                                   const char *what, tosac_tensor *out, tosac_error *err)
{
    memset(out, 0, sizeof *out);
    if (!sp->values || !sp->indices)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: sparse tensor without values or indices",
                          what);
    tosac_tensor vals, idx;
    if (onnx_tensor_from_proto(sp->values, base_dir, what, &vals, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    if (onnx_tensor_from_proto(sp->indices, base_dir, what, &idx, err)) {
        tosac_tensor_free(&vals);
        return err ? err->code : TOSAC_ERR_INPUT;
    }
    int rank = 0;
    int64_t shape[TOSAC_MAX_RANK];
    tosac_code rc = read_dims(sp->dims, sp->n_dims, what, &rank, shape, err);
    tosac_error e2;
    tosac_error_clear(&e2);
    if (!rc && tosac_tensor_alloc(out, vals.dtype, rank, shape, &e2))
        rc = tosac_fail(err, e2.code, "%s: %s", what, e2.msg);
    int64_t nnz = tosac_tensor_numel(&vals), total = rc ? 0 : tosac_tensor_numel(out);
    /* indices: [NNZ] linear, or [NNZ, rank] coordinates */
    bool linear = idx.rank == 1 && idx.shape[0] == nnz;
    bool coords = idx.rank == 2 && idx.shape[0] == nnz && idx.shape[1] == rank;
    if (!rc && (vals.rank != 1 || idx.dtype != TOSAC_DT_I64 || !(linear || coords)))
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: sparse values/indices shapes do not match", what);
    size_t es = tosac_dtype_size(vals.dtype);
    const int64_t *ix = idx.data;
    for (int64_t i = 0; i < nnz && !rc; i++) {
        int64_t pos = 0;
        if (linear) {
            pos = ix[i];
        } else {
            for (int d = 0; d < rank; d++) {
                int64_t c = ix[i * rank + d];
                if (c < 0 || c >= shape[d]) {
                    pos = -1;
                    break;
                }
                pos = pos * shape[d] + c;
            }
        }
        if (pos < 0 || pos >= total)
            rc = tosac_fail(err, TOSAC_ERR_INPUT, "%s: sparse index %lld out of range", what,
                            (long long)i);
        else
            memcpy((char *)out->data + (size_t)pos * es, (char *)vals.data + (size_t)i * es, es);
    }
    tosac_tensor_free(&vals);
    tosac_tensor_free(&idx);
    if (rc)
        tosac_tensor_free(out);
    return rc;
}

Onnx__TensorProto *onnx_tensor_to_proto(const char *name, tosac_dtype dt, int rank,
                                        const int64_t *shape, const void *data, size_t nbytes,
                                        tosac_error *err)
{
    int ot = onnx_dtype_from_tosac(dt);
    if (!ot) {
        tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "tensor '%s': %s has no ONNX data type", name,
                   tosac_dtype_name(dt));
        return NULL;
    }
    Onnx__TensorProto *tp = malloc(sizeof *tp);
    if (!tp) {
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    onnx__tensor_proto__init(tp);
    int64_t n = tosac_shape_numel(rank, shape);
    bool nibbles = dt == TOSAC_DT_I4 || dt == TOSAC_DT_FP4E2M1;
    size_t stored = nibbles ? (size_t)(n + 1) / 2 : nbytes;
    tp->has_data_type = 1;
    tp->data_type = ot;
    tp->n_dims = (size_t)rank;
    tp->dims = rank ? malloc(sizeof(int64_t) * (size_t)rank) : NULL;
    tp->has_raw_data = 1;
    tp->raw_data.len = stored;
    tp->raw_data.data = stored ? calloc(1, stored) : NULL;
    tp->name = malloc(strlen(name) + 1);
    if ((rank && !tp->dims) || (stored && !tp->raw_data.data) || !tp->name) {
        onnx__tensor_proto__free_unpacked(tp, NULL);
        tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    strcpy(tp->name, name);
    for (int d = 0; d < rank; d++)
        tp->dims[d] = shape[d];
    if (nibbles) {
        for (int64_t i = 0; i < n; i++)
            tp->raw_data.data[i / 2] |= (uint8_t)((((const uint8_t *)data)[i] & 0xF) << ((i & 1) * 4));
    } else if (stored) {
        memcpy(tp->raw_data.data, data, stored);
    }
    return tp;
}

tosac_code onnx_read_tensor_bytes(const void *buf, size_t len, tosac_tensor *out, char **name,
                                  tosac_error *err)
{
    memset(out, 0, sizeof *out);
    if (name)
        *name = NULL;
    if (onnx_wire_check(buf, len, &onnx__tensor_proto__descriptor, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
    if (!tp)
        return tosac_fail(err, TOSAC_ERR_INPUT, "not a valid ONNX TensorProto");
    tosac_code rc = onnx_tensor_from_proto(tp, NULL, "tensor", out, err);
    if (!rc && name) {
        const char *nm = tp->name ? tp->name : "";
        *name = malloc(strlen(nm) + 1);
        if (*name)
            memcpy(*name, nm, strlen(nm) + 1);
        else
            rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    onnx__tensor_proto__free_unpacked(tp, NULL);
    if (rc)
        tosac_tensor_free(out);
    return rc;
}

tosac_code onnx_read_tensor_file(const char *path, tosac_tensor *out, char **name,
                                 tosac_error *err)
{
    void *buf;
    size_t len;
    if (tosac_read_file(path, &buf, &len, err))
        return err ? err->code : TOSAC_ERR_INPUT;
    tosac_code rc = onnx_read_tensor_bytes(buf, len, out, name, err);
    free(buf);
    if (rc && err && !strstr(err->msg, path)) {
        char msg[sizeof err->msg];
        memcpy(msg, err->msg, sizeof msg);
        int n = snprintf(err->msg, sizeof err->msg, "%.200s: ", path);
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%.300s", msg);
    }
    return rc;
}
