/* The broadcasting fast paths of kern_binary (dimension merging, same-shape runs, scalar
 * and per-channel operands) against element-by-element index arithmetic, for every float
 * operator and an integer type. Float results are exact: each output is one IEEE
 * operation on the same two inputs whatever the loop, so the comparison is bitwise. */
#include "testutil.h"
#include "kern_testrand.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/binary.h"

typedef struct shape {
    int rank;
    int64_t d[4];
} shape;

/* Operand element of output index o (row-major over out) under NumPy broadcasting. */
static int64_t src_index(const shape *out, const shape *in, int64_t o)
{
    int64_t idx = 0, stride = 1;
    for (int k = out->rank - 1; k >= 0; k--) {
        int64_t ok = o % out->d[k];
        o /= out->d[k];
        int pos = k - (out->rank - in->rank);
        if (pos < 0)
            continue;
        if (in->d[pos] != 1)
            idx += ok * stride;
        stride *= in->d[pos];
    }
    return idx;
}

static double ref_op(kern_binop op, float x, float y)
{
    switch (op) {
    case KERN_ADD: return x + y;
    case KERN_SUB: return x - y;
    case KERN_MUL: return x * y;
    case KERN_DIV: return x / y;
    case KERN_MIN: return (isnan(x) || x < y) ? x : y;
    case KERN_MAX: return (isnan(x) || x > y) ? x : y;
    case KERN_PRELU: return x < 0 ? x * y : x;
    case KERN_EQ: return x == y;
    case KERN_LT: return x < y;
    case KERN_GE: return x >= y;
    default: return NAN;
    }
}

static void check_f32(kern_binop op, const shape *a, const shape *b)
{
    kern_bcast bc;
    int ranks[2] = {a->rank, b->rank};
    const int64_t *shapes[2] = {a->d, b->d};
    assert_int_equal(kern_bcast_init(&bc, 2, ranks, shapes), 0);
    shape out = {bc.rank, {0}};
    memcpy(out.d, bc.shape, sizeof(int64_t) * (size_t)bc.rank);
    int64_t na = 1, nb = 1;
    for (int k = 0; k < a->rank; k++)
        na *= a->d[k];
    for (int k = 0; k < b->rank; k++)
        nb *= b->d[k];
    float *x = rand_vec(na), *y = rand_vec(nb), *z = rand_vec(bc.numel);
    assert_true(x && y && z);
    y[0] = 0; /* a zero divisor and equal operands somewhere */
    if (na > 1 && nb > 1)
        x[1] = y[1];
    assert_int_equal(kern_binary(op, TOSAC_DT_F32, &bc, x, y, z), 0);
    const uint8_t *zb = (const uint8_t *)z;
    for (int64_t o = 0; o < bc.numel; o++) {
        double want = ref_op(op, x[src_index(&out, a, o)], y[src_index(&out, b, o)]);
        if (kern_binop_is_compare(op))
            assert_int_equal(zb[o], (int)want);
        else if (isnan(want))
            assert_true(isnan(z[o]));
        else
            assert_true(z[o] == (float)want);
    }
    free(x);
    free(y);
    free(z);
}

static void test_float_patterns(void **state)
{
    (void)state;
    static const shape pairs[][2] = {
        {{4, {1, 7, 3, 5}}, {4, {1, 7, 3, 5}}},  /* same shape */
        {{4, {1, 7, 3, 5}}, {0, {0}}},           /* scalar */
        {{0, {0}}, {3, {3, 1, 17}}},             /* scalar first */
        {{4, {1, 17, 3, 5}}, {4, {1, 17, 1, 1}}}, /* per channel */
        {{4, {2, 3, 7, 1}}, {3, {1, 1, 33}}},    /* outer product */
        {{3, {3, 1, 5}}, {2, {7, 1}}},           /* both broadcast */
        {{4, {1, 1, 1, 1}}, {1, {17}}},          /* size-1 dims only */
        {{2, {33, 7}}, {2, {33, 1}}},            /* row scalar */
    };
    static const kern_binop ops[] = {KERN_ADD, KERN_SUB, KERN_MUL, KERN_DIV, KERN_MIN,
                                     KERN_MAX, KERN_PRELU, KERN_EQ, KERN_LT, KERN_GE};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            check_f32(ops[k], &pairs[i][0], &pairs[i][1]);
            check_f32(ops[k], &pairs[i][1], &pairs[i][0]);
        }
}

/* Integer wrap-around through the merged runs: int8 [2,3,4] + [3,1] */
static void test_int8_merged(void **state)
{
    (void)state;
    int64_t sa[3] = {2, 3, 4}, sb[2] = {3, 1};
    int ranks[2] = {3, 2};
    const int64_t *shapes[2] = {sa, sb};
    kern_bcast bc;
    assert_int_equal(kern_bcast_init(&bc, 2, ranks, shapes), 0);
    int8_t a[24], b[3] = {100, -100, 7}, y[24];
    for (int i = 0; i < 24; i++)
        a[i] = (int8_t)(i * 11);
    assert_int_equal(kern_binary(KERN_ADD, TOSAC_DT_I8, &bc, a, b, y), 0);
    for (int i = 0; i < 24; i++)
        assert_int_equal(y[i], (int8_t)(uint8_t)(a[i] + b[(i / 4) % 3]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_patterns),
        cmocka_unit_test(test_int8_merged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
