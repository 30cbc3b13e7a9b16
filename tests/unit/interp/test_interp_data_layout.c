/* CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE through the single-op harness.
 * Expected tensors are written out by hand from the op definitions. */
#include "testutil.h"

#include <string.h>

#include "interp/interp_internal.h"
#include "interp_harness.h"
#include "tosac/tosa.h"

/* Runs op with ins; out is allocated as (dt, rank, shape) and compared with want (as int64)
 * on success. Returns the op's code; err receives the message. */
static tosac_code run(tosa_op op, const tosa_attr *attr, tosac_tensor **ins, int n_in,
                      tosac_dtype dt, int rank, const int64_t *shape, const int64_t *want,
                      tosac_error *err)
{
    tosac_tensor out;
    th_tensor_zero(&out, dt, rank, shape);
    tosac_tensor *outs[1] = {&out};
    tosac_error_clear(err);
    tosac_code code = th_run_op(op, attr, ins, n_in, outs, 1, err);
    if (code == TOSAC_OK && want) {
        for (int64_t i = 0; i < tosac_tensor_numel(&out); i++)
            if (interp_get_int(&out, i) != want[i])
                fail_msg("%s element %lld: got %lld, want %lld", tosa_op_name(op), (long long)i,
                         (long long)interp_get_int(&out, i), (long long)want[i]);
    }
    tosac_tensor_free(&out);
    return code;
}

static void shape_tensor(tosac_tensor *t, int n, const int64_t *vals)
{
    int64_t s[1] = {n};
    th_tensor_int(t, TOSAC_DT_SHAPE, 1, s, vals);
}

static void expect_msg(const tosac_error *err, const char *op, const char *words)
{
    if (!strstr(err->msg, op) || !strstr(err->msg, words))
        fail_msg("message '%s' lacks '%s' / '%s'", err->msg, op, words);
}

static void test_concat(void **state)
{
    (void)state;
    tosac_tensor a, b;
    tosac_error err;
    const int64_t sa[2] = {2, 2}, sb[2] = {2, 1}, so[2] = {2, 3};
    const int64_t va[] = {1, 2, 3, 4}, vb[] = {5, 6};
    th_tensor_int(&a, TOSAC_DT_I8, 2, sa, va);
    th_tensor_int(&b, TOSAC_DT_I8, 2, sb, vb);
    tosac_tensor *ins[2] = {&a, &b};
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.axis = 1; /* [[1,2],[3,4]] ++ [[5],[6]] along axis 1 */
    const int64_t want[] = {1, 2, 5, 3, 4, 6};
    assert_int_equal(run(TOSA_OP_CONCAT, &attr, ins, 2, TOSAC_DT_I8, 2, so, want, &err), TOSAC_OK);
    /* axis 0 needs equal dim 1: [2,2] and [2,1] do not match */
    attr.axis = 0;
    const int64_t so0[2] = {4, 2};
    assert_int_equal(run(TOSA_OP_CONCAT, &attr, ins, 2, TOSAC_DT_I8, 2, so0, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "CONCAT", "input 1 dim 1");
    /* axis out of range */
    attr.axis = 2;
    assert_int_equal(run(TOSA_OP_CONCAT, &attr, ins, 2, TOSAC_DT_I8, 2, so, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "CONCAT", "axis");
    /* axis 0 of [2,2] with itself: rows stacked */
    attr.axis = 0;
    tosac_tensor *same[2] = {&a, &a};
    const int64_t want0[] = {1, 2, 3, 4, 1, 2, 3, 4};
    assert_int_equal(run(TOSA_OP_CONCAT, &attr, same, 2, TOSAC_DT_I8, 2, so0, want0, &err),
                     TOSAC_OK);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);
}

static void test_pad(void **state)
{
    (void)state;
    tosac_tensor in, pad, pc;
    tosac_error err;
    const int64_t si[2] = {2, 2}, so[2] = {3, 4}, one[1] = {1};
    const int64_t vi[] = {1, 2, 3, 4}, pads[] = {1, 0, 0, 2}, nine[] = {9};
    th_tensor_int(&in, TOSAC_DT_I16, 2, si, vi);
    shape_tensor(&pad, 4, pads);
    th_tensor_int(&pc, TOSAC_DT_I16, 1, one, nine);
    tosac_tensor *ins[3] = {&in, &pad, &pc};
    /* one row of 9s on top, two columns of 9s on the right */
    const int64_t want[] = {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9};
    assert_int_equal(run(TOSA_OP_PAD, NULL, ins, 3, TOSAC_DT_I16, 2, so, want, &err), TOSAC_OK);
    /* wrong output shape */
    const int64_t bad[2] = {3, 3};
    assert_int_equal(run(TOSA_OP_PAD, NULL, ins, 3, TOSAC_DT_I16, 2, bad, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "PAD", "padding[2] + shape1[1]");
    tosac_tensor_free(&pad);
    /* negative padding */
    const int64_t negp[] = {-1, 2, 0, 2};
    shape_tensor(&pad, 4, negp);
    assert_int_equal(run(TOSA_OP_PAD, NULL, ins, 3, TOSAC_DT_I16, 2, so, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "PAD", "padding < 0");
    tosac_tensor_free(&pad);
    /* a padding operand of the wrong length */
    shape_tensor(&pad, 3, pads);
    assert_int_equal(run(TOSA_OP_PAD, NULL, ins, 3, TOSAC_DT_I16, 2, so, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "PAD", "padding has 3 values");
    tosac_tensor_free(&pad);
    tosac_tensor_free(&in);
    tosac_tensor_free(&pc);
}

static void test_reshape(void **state)
{
    (void)state;
    tosac_tensor in, shp;
    tosac_error err;
    const int64_t si[2] = {2, 3}, so[2] = {3, 2}, sv[] = {3, 2};
    const int64_t v[] = {1, 2, 3, 4, 5, 6};
    th_tensor_int(&in, TOSAC_DT_I32, 2, si, v);
    shape_tensor(&shp, 2, sv);
    tosac_tensor *ins[2] = {&in, &shp};
    assert_int_equal(run(TOSA_OP_RESHAPE, NULL, ins, 2, TOSAC_DT_I32, 2, so, v, &err), TOSAC_OK);
    tosac_tensor_free(&shp);
    /* 6 elements cannot become [4,2] */
    const int64_t s42[2] = {4, 2};
    shape_tensor(&shp, 2, s42);
    assert_int_equal(run(TOSA_OP_RESHAPE, NULL, ins, 2, TOSAC_DT_I32, 2, s42, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "RESHAPE", "tensor_size");
    tosac_tensor_free(&shp);
    tosac_tensor_free(&in);
    /* rank 0 -> [1] */
    const int64_t seven[] = {7}, s1[1] = {1};
    th_tensor_int(&in, TOSAC_DT_I64, 0, NULL, seven);
    shape_tensor(&shp, 1, s1);
    assert_int_equal(run(TOSA_OP_RESHAPE, NULL, ins, 2, TOSAC_DT_I64, 1, s1, seven, &err),
                     TOSAC_OK);
    tosac_tensor_free(&shp);
    tosac_tensor_free(&in);
    /* [1] -> rank 0: the empty shape_t comes as a rank-0 SHAPE tensor holding a dummy 0
     * (as in the conformance file reshape_0_b_perm1_rank0_out0); it means zero values */
    const int64_t zero[] = {0};
    th_tensor_int(&in, TOSAC_DT_I64, 1, s1, seven);
    th_tensor_int(&shp, TOSAC_DT_SHAPE, 0, NULL, zero);
    assert_int_equal(run(TOSA_OP_RESHAPE, NULL, ins, 2, TOSAC_DT_I64, 0, NULL, seven, &err),
                     TOSAC_OK);
    tosac_tensor_free(&shp);
    tosac_tensor_free(&in);
}

static void test_reverse(void **state)
{
    (void)state;
    tosac_tensor in;
    tosac_error err;
    const int64_t s[2] = {2, 3}, v[] = {1, 2, 3, 4, 5, 6};
    th_tensor_int(&in, TOSAC_DT_I64, 2, s, v); /* 1.1 EXT-INT64 row */
    tosac_tensor *ins[1] = {&in};
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    const int64_t w0[] = {4, 5, 6, 1, 2, 3}, w1[] = {3, 2, 1, 6, 5, 4};
    assert_int_equal(run(TOSA_OP_REVERSE, &attr, ins, 1, TOSAC_DT_I64, 2, s, w0, &err), TOSAC_OK);
    attr.axis = 1;
    assert_int_equal(run(TOSA_OP_REVERSE, &attr, ins, 1, TOSAC_DT_I64, 2, s, w1, &err), TOSAC_OK);
    attr.axis = 2;
    assert_int_equal(run(TOSA_OP_REVERSE, &attr, ins, 1, TOSAC_DT_I64, 2, s, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "REVERSE", "axis");
    tosac_tensor_free(&in);
}

static void test_slice(void **state)
{
    (void)state;
    tosac_tensor in, st, sz;
    tosac_error err;
    const int64_t s[2] = {3, 4}, so[2] = {2, 2};
    int64_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = i; /* row r, column c holds 4r + c */
    const int64_t start[] = {1, 1}, size[] = {2, 2};
    th_tensor_int(&in, TOSAC_DT_I8, 2, s, v);
    shape_tensor(&st, 2, start);
    shape_tensor(&sz, 2, size);
    tosac_tensor *ins[3] = {&in, &st, &sz};
    const int64_t want[] = {5, 6, 9, 10};
    assert_int_equal(run(TOSA_OP_SLICE, NULL, ins, 3, TOSAC_DT_I8, 2, so, want, &err), TOSAC_OK);
    tosac_tensor_free(&st);
    /* start 2 + size 2 passes dim 0 (3) */
    const int64_t start2[] = {2, 0};
    shape_tensor(&st, 2, start2);
    assert_int_equal(run(TOSA_OP_SLICE, NULL, ins, 3, TOSAC_DT_I8, 2, so, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "SLICE", "outside input dim");
    tosac_tensor_free(&st);
    tosac_tensor_free(&sz);
    tosac_tensor_free(&in);
}

static void test_tile(void **state)
{
    (void)state;
    tosac_tensor in, m;
    tosac_error err;
    const int64_t s[2] = {2, 1}, so[2] = {4, 3}, v[] = {1, 0}, mult[] = {2, 3};
    th_tensor_int(&in, TOSAC_DT_BOOL, 2, s, v);
    shape_tensor(&m, 2, mult);
    tosac_tensor *ins[2] = {&in, &m};
    const int64_t want[] = {1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0};
    assert_int_equal(run(TOSA_OP_TILE, NULL, ins, 2, TOSAC_DT_BOOL, 2, so, want, &err), TOSAC_OK);
    const int64_t bad[2] = {4, 2};
    assert_int_equal(run(TOSA_OP_TILE, NULL, ins, 2, TOSAC_DT_BOOL, 2, bad, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "TILE", "multiples[1]");
    tosac_tensor_free(&m);
    tosac_tensor_free(&in);
}

static void test_transpose(void **state)
{
    (void)state;
    tosac_tensor in;
    tosac_error err;
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    int64_t v[24];
    for (int i = 0; i < 24; i++)
        v[i] = i;
    /* [2,3] perms [1,0] -> [3,2]: [[0,3],[1,4],[2,5]] */
    const int64_t s2[2] = {2, 3}, so2[2] = {3, 2}, want2[] = {0, 3, 1, 4, 2, 5};
    th_tensor_int(&in, TOSAC_DT_I16, 2, s2, v);
    tosac_tensor *ins[1] = {&in};
    attr.n_perms = 2;
    attr.perms[0] = 1;
    attr.perms[1] = 0;
    assert_int_equal(run(TOSA_OP_TRANSPOSE, &attr, ins, 1, TOSAC_DT_I16, 2, so2, want2, &err),
                     TOSAC_OK);
    attr.perms[1] = 1; /* repeated */
    assert_int_equal(run(TOSA_OP_TRANSPOSE, &attr, ins, 1, TOSAC_DT_I16, 2, so2, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "TRANSPOSE", "repeated");
    tosac_tensor_free(&in);
    /* [2,3,4] (value 12j + 4k + i at [j][k][i]) perms [2,0,1] -> [4,2,3]:
     * out[i][j][k] = in[j][k][i] = 12j + 4k + i */
    const int64_t s3[3] = {2, 3, 4}, so3[3] = {4, 2, 3};
    int64_t want3[24];
    int p = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++)
                want3[p++] = 12 * j + 4 * k + i;
    th_tensor_int(&in, TOSAC_DT_I32, 3, s3, v);
    attr.n_perms = 3;
    attr.perms[0] = 2;
    attr.perms[1] = 0;
    attr.perms[2] = 1;
    assert_int_equal(run(TOSA_OP_TRANSPOSE, &attr, ins, 1, TOSAC_DT_I32, 3, so3, want3, &err),
                     TOSAC_OK);
    /* declared output shape not the permuted one */
    assert_int_equal(run(TOSA_OP_TRANSPOSE, &attr, ins, 1, TOSAC_DT_I32, 3, s3, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "TRANSPOSE", "shape1[perms[0]] != shape[0]");
    tosac_tensor_free(&in);
}

static void test_type_mismatch(void **state)
{
    (void)state;
    tosac_tensor in;
    tosac_error err;
    const int64_t s[1] = {2}, v[] = {1, 2};
    th_tensor_int(&in, TOSAC_DT_I8, 1, s, v);
    tosac_tensor *ins[1] = {&in};
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    assert_int_equal(run(TOSA_OP_REVERSE, &attr, ins, 1, TOSAC_DT_I16, 1, s, NULL, &err),
                     TOSAC_ERR_INPUT);
    expect_msg(&err, "REVERSE", "output type i16 differs from input type i8");
    tosac_tensor_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concat),   cmocka_unit_test(test_pad),
        cmocka_unit_test(test_reshape),  cmocka_unit_test(test_reverse),
        cmocka_unit_test(test_slice),    cmocka_unit_test(test_tile),
        cmocka_unit_test(test_transpose), cmocka_unit_test(test_type_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
