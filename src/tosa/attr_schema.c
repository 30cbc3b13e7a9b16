/* The attribute tables of the TOSA 1.0 / 1.1 schema (FLATBUFFER_LAYOUT.md section 5) as data:
 * the reader, writer, equality and `tosac inspect` all walk these, so a field is described
 * once. Ops not listed have an empty table. */
#include "tosa/tosa_internal.h"

#include <string.h>

#define SC(n, k) {#n, k, offsetof(tosa_attr, n), 0, 0}
#define VEC(n, cnt) {#n, TOSA_AK_VEC, offsetof(tosa_attr, n), offsetof(tosa_attr, cnt),      \
                     (int)(sizeof(((tosa_attr *)0)->n) / sizeof(int32_t))}
#define I32(n) SC(n, TOSA_AK_I32)
#define BOOLF(n) SC(n, TOSA_AK_BOOL)
#define NAN_MODE SC(nan_mode, TOSA_AK_NAN)
#define ACC SC(acc_type, TOSA_AK_DTYPE)
#define STR(schema, member) {schema, TOSA_AK_STR, offsetof(tosa_attr, member), 0, 0}

static const tosa_attr_field f_argmax[] = {I32(axis), NAN_MODE};
static const tosa_attr_field f_avg_pool[] = {VEC(kernel, n_kernel), VEC(stride, n_stride),
                                             VEC(pad, n_pad), ACC};
static const tosa_attr_field f_conv[] = {VEC(pad, n_pad), VEC(stride, n_stride),
                                         VEC(dilation, n_dilation), BOOLF(local_bound), ACC};
static const tosa_attr_field f_fft[] = {BOOLF(inverse), BOOLF(local_bound)};
static const tosa_attr_field f_max_pool[] = {VEC(kernel, n_kernel), VEC(stride, n_stride),
                                             VEC(pad, n_pad), NAN_MODE};
static const tosa_attr_field f_rfft[] = {BOOLF(local_bound)};
static const tosa_attr_field f_tconv[] = {VEC(out_pad, n_out_pad), VEC(stride, n_stride),
                                          BOOLF(local_bound), ACC};
static const tosa_attr_field f_clamp[] = {
    {"min_val", TOSA_AK_RAW8, offsetof(tosa_attr, min_val), offsetof(tosa_attr, n_min_val), 8},
    {"max_val", TOSA_AK_RAW8, offsetof(tosa_attr, max_val), offsetof(tosa_attr, n_max_val), 8},
    NAN_MODE};
static const tosa_attr_field f_ars[] = {BOOLF(round)};
static const tosa_attr_field f_nan[] = {NAN_MODE};
static const tosa_attr_field f_axis[] = {I32(axis)};
static const tosa_attr_field f_axis_nan[] = {I32(axis), NAN_MODE};
static const tosa_attr_field f_transpose[] = {VEC(perms, n_perms)};
static const tosa_attr_field f_resize[] = {SC(mode, TOSA_AK_RESIZE)};
static const tosa_attr_field f_rescale[] = {BOOLF(scale32), SC(rounding_mode, TOSA_AK_ROUND),
                                            BOOLF(per_channel), BOOLF(input_unsigned),
                                            BOOLF(output_unsigned)};
static const tosa_attr_field f_custom[] = {
    STR("operator_name", custom_operator_name), STR("domain_name", custom_domain_name),
    {"implementation_attrs", TOSA_AK_BYTES, offsetof(tosa_attr, custom_impl_attrs),
     offsetof(tosa_attr, n_custom_impl_attrs), 0}};
static const tosa_attr_field f_cond_if[] = {STR("then_graph", then_graph),
                                            STR("else_graph", else_graph)};
static const tosa_attr_field f_while[] = {STR("cond_graph", cond_graph),
                                          STR("body_graph", body_graph)};
static const tosa_attr_field f_acc[] = {ACC};
static const tosa_attr_field f_block[] = {SC(block_size, TOSA_AK_BLOCK)};
static const tosa_attr_field f_bcast[] = {BOOLF(allow_broadcast)};

bool tosa_attr_enum_ok(tosa_attr_kind k, uint64_t v)
{
    switch (k) {
    case TOSA_AK_NAN: return v <= TOSA_NAN_IGNORE;
    case TOSA_AK_ROUND: return v <= TOSA_ROUND_DOUBLE;
    case TOSA_AK_RESIZE: return v <= TOSA_RESIZE_BILINEAR;
    case TOSA_AK_BLOCK: return v == 0 || v == 32;
    default: return true;
    }
}

#define N(a) (int)(sizeof a / sizeof a[0])
#define ENTRY(op, arr) [op] = {arr, N(arr)}

static const struct {
    const tosa_attr_field *f;
    int n;
} schema[TOSA_OP_COUNT] = {
    ENTRY(TOSA_OP_ARGMAX, f_argmax),
    ENTRY(TOSA_OP_AVG_POOL2D, f_avg_pool),
    ENTRY(TOSA_OP_CONV2D, f_conv),
    ENTRY(TOSA_OP_CONV3D, f_conv),
    ENTRY(TOSA_OP_DEPTHWISE_CONV2D, f_conv),
    ENTRY(TOSA_OP_FFT2D, f_fft),
    ENTRY(TOSA_OP_MAX_POOL2D, f_max_pool),
    ENTRY(TOSA_OP_RFFT2D, f_rfft),
    ENTRY(TOSA_OP_TRANSPOSE_CONV2D, f_tconv),
    ENTRY(TOSA_OP_CLAMP, f_clamp),
    ENTRY(TOSA_OP_ARITHMETIC_RIGHT_SHIFT, f_ars),
    ENTRY(TOSA_OP_MAXIMUM, f_nan),
    ENTRY(TOSA_OP_MINIMUM, f_nan),
    ENTRY(TOSA_OP_REDUCE_ALL, f_axis),
    ENTRY(TOSA_OP_REDUCE_ANY, f_axis),
    ENTRY(TOSA_OP_REDUCE_MAX, f_axis_nan),
    ENTRY(TOSA_OP_REDUCE_MIN, f_axis_nan),
    ENTRY(TOSA_OP_REDUCE_PRODUCT, f_axis),
    ENTRY(TOSA_OP_REDUCE_SUM, f_axis),
    ENTRY(TOSA_OP_CONCAT, f_axis),
    ENTRY(TOSA_OP_REVERSE, f_axis),
    ENTRY(TOSA_OP_TRANSPOSE, f_transpose),
    ENTRY(TOSA_OP_RESIZE, f_resize),
    ENTRY(TOSA_OP_RESCALE, f_rescale),
    ENTRY(TOSA_OP_CUSTOM, f_custom),
    ENTRY(TOSA_OP_COND_IF, f_cond_if),
    ENTRY(TOSA_OP_WHILE_LOOP, f_while),
    ENTRY(TOSA_OP_MATMUL_T_BLOCK_SCALED, f_block),
    ENTRY(TOSA_OP_CAST_FROM_BLOCK_SCALED, f_block),
    ENTRY(TOSA_OP_CAST_TO_BLOCK_SCALED, f_block),
    ENTRY(TOSA_OP_DIM, f_axis),
    ENTRY(TOSA_OP_ASSERT_EQUAL_SHAPE, f_bcast),
    ENTRY(TOSA_OP_CONV2D_BLOCK_SCALED, f_block),
    ENTRY(TOSA_OP_MAX_POOL2D_ADAPTIVE, f_nan),
    ENTRY(TOSA_OP_AVG_POOL2D_ADAPTIVE, f_acc),
};

const tosa_attr_field *tosa_attr_fields(tosa_op op, int *n)
{
    *n = 0;
    if ((unsigned)op >= TOSA_OP_COUNT || op == TOSA_OP_UNKNOWN)
        return NULL;
    *n = schema[op].n;
    /* Empty tables still get a non-NULL (unused) pointer so NULL means "no such op". */
    return schema[op].f ? schema[op].f : f_nan;
}

#define AT(a, off, type) ((type *)((char *)(a) + (off)))
#define CAT(a, off, type) ((const type *)((const char *)(a) + (off)))

int64_t tosa_attr_get_int(const tosa_attr *a, const tosa_attr_field *f)
{
    switch (f->kind) {
    case TOSA_AK_I32: return *CAT(a, f->off, int32_t);
    case TOSA_AK_BOOL: return *CAT(a, f->off, bool);
    case TOSA_AK_DTYPE: return *CAT(a, f->off, tosac_dtype);
    case TOSA_AK_NAN:
    case TOSA_AK_ROUND:
    case TOSA_AK_RESIZE:
    case TOSA_AK_BLOCK: return *CAT(a, f->off, uint32_t);
    default: return 0;
    }
}

void tosa_attr_set_int(tosa_attr *a, const tosa_attr_field *f, int64_t v)
{
    switch (f->kind) {
    case TOSA_AK_I32: *AT(a, f->off, int32_t) = (int32_t)v; break;
    case TOSA_AK_BOOL: *AT(a, f->off, bool) = v != 0; break;
    case TOSA_AK_DTYPE: *AT(a, f->off, tosac_dtype) = (tosac_dtype)v; break;
    case TOSA_AK_NAN:
    case TOSA_AK_ROUND:
    case TOSA_AK_RESIZE:
    case TOSA_AK_BLOCK: *AT(a, f->off, uint32_t) = (uint32_t)v; break;
    default: break;
    }
}

static bool field_equal(const tosa_attr *a, const tosa_attr *b, const tosa_attr_field *f)
{
    switch (f->kind) {
    case TOSA_AK_VEC: {
        int na = *CAT(a, f->n_off, int), nb = *CAT(b, f->n_off, int);
        return na == nb && na >= 0 && na <= f->cap &&
               memcmp(CAT(a, f->off, int32_t), CAT(b, f->off, int32_t),
                      (size_t)na * sizeof(int32_t)) == 0;
    }
    case TOSA_AK_RAW8: {
        int na = *CAT(a, f->n_off, int), nb = *CAT(b, f->n_off, int);
        return na == nb && na >= 0 && na <= f->cap &&
               memcmp(CAT(a, f->off, uint8_t), CAT(b, f->off, uint8_t), (size_t)na) == 0;
    }
    case TOSA_AK_STR: {
        const char *sa = *CAT(a, f->off, char *), *sb = *CAT(b, f->off, char *);
        return (!sa && !sb) || (sa && sb && strcmp(sa, sb) == 0);
    }
    case TOSA_AK_BYTES: {
        const uint8_t *pa = *CAT(a, f->off, uint8_t *), *pb = *CAT(b, f->off, uint8_t *);
        size_t na = *CAT(a, f->n_off, size_t), nb = *CAT(b, f->n_off, size_t);
        if (!pa || !pb)
            return !pa && !pb;
        return na == nb && memcmp(pa, pb, na) == 0;
    }
    default: return tosa_attr_get_int(a, f) == tosa_attr_get_int(b, f);
    }
}

bool tosa_attr_equal(tosa_op op, const tosa_attr *a, const tosa_attr *b)
{
    int n;
    const tosa_attr_field *f = tosa_attr_fields(op, &n);
    for (int i = 0; i < n; i++)
        if (!field_equal(a, b, &f[i]))
            return false;
    return true;
}

const char *tosa_nan_mode_name(uint32_t v)
{
    static const char *const s[] = {"UNKNOWN", "PROPAGATE", "IGNORE"};
    return v < 3 ? s[v] : "?";
}

const char *tosa_rounding_mode_name(uint32_t v)
{
    static const char *const s[] = {"UNKNOWN", "SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND"};
    return v < 4 ? s[v] : "?";
}

const char *tosa_resize_mode_name(uint32_t v)
{
    static const char *const s[] = {"UNKNOWN", "NEAREST", "BILINEAR"};
    return v < 3 ? s[v] : "?";
}
