/* GATHER and SCATTER through the single-op harness; expected values written out by hand. */
#include "testutil.h"

#include <string.h>

#include "interp/interp_internal.h"
#include "interp_harness.h"
#include "tosac/tosa.h"

static void check_values(const tosac_tensor *t, const int64_t *want)
{
    for (int64_t i = 0; i < tosac_tensor_numel(t); i++)
        if (interp_get_int(t, i) != want[i])
            fail_msg("element %lld: got %lld, want %lld", (long long)i,
                     (long long)interp_get_int(t, i), (long long)want[i]);
}

static void expect_msg(const tosac_error *err, const char *op, const char *words)
{
    if (!strstr(err->msg, op) || !strstr(err->msg, words))
        fail_msg("message '%s' lacks '%s' / '%s'", err->msg, op, words);
}

static void test_gather(void **state)
{
    (void)state;
    /* values [N=2,K=3,C=2]: batch 0 rows (0,1) (2,3) (4,5), batch 1 rows (10,11) (12,13) (14,15) */
    const int64_t sv[3] = {2, 3, 2}, si[2] = {2, 2}, so[3] = {2, 2, 2};
    const int64_t vals[] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
    const int64_t idx[] = {2, 0, 1, 1}; /* batch 0 takes rows 2,0; batch 1 rows 1,1 */
    const int64_t want[] = {4, 5, 0, 1, 12, 13, 12, 13};
    tosac_tensor v, ix, out;
    tosac_error err;
    tosac_error_clear(&err);
    th_tensor_int(&v, TOSAC_DT_I16, 3, sv, vals);
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, idx);
    th_tensor_zero(&out, TOSAC_DT_I16, 3, so);
    tosac_tensor *ins[2] = {&v, &ix}, *outs[1] = {&out};
    assert_int_equal(th_run_op(TOSA_OP_GATHER, NULL, ins, 2, outs, 1, &err), TOSAC_OK);
    check_values(&out, want);
    tosac_tensor_free(&ix);
    /* 1.1: i64 indices work the same way */
    th_tensor_int(&ix, TOSAC_DT_I64, 2, si, idx);
    memset(out.data, 0, out.nbytes);
    assert_int_equal(th_run_op(TOSA_OP_GATHER, NULL, ins, 2, outs, 1, &err), TOSAC_OK);
    check_values(&out, want);
    tosac_tensor_free(&ix);
    /* index 3 is out of range for K = 3 */
    const int64_t badi[] = {0, 3, 1, 1};
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, badi);
    assert_int_equal(th_run_op(TOSA_OP_GATHER, NULL, ins, 2, outs, 1, &err), TOSAC_ERR_INPUT);
    expect_msg(&err, "GATHER", "indices[0,1] = 3, K = 3");
    tosac_tensor_free(&ix);
    /* negative index */
    const int64_t negi[] = {0, 0, -1, 1};
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, negi);
    tosac_error_clear(&err);
    assert_int_equal(th_run_op(TOSA_OP_GATHER, NULL, ins, 2, outs, 1, &err), TOSAC_ERR_INPUT);
    expect_msg(&err, "GATHER", "indices[1,0] = -1");
    tosac_tensor_free(&ix);
    tosac_tensor_free(&out);
    /* output shape must be [N,W,C] */
    const int64_t wrong[3] = {2, 2, 1};
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, idx);
    th_tensor_zero(&out, TOSAC_DT_I16, 3, wrong);
    tosac_error_clear(&err);
    assert_int_equal(th_run_op(TOSA_OP_GATHER, NULL, ins, 2, outs, 1, &err), TOSAC_ERR_INPUT);
    expect_msg(&err, "GATHER", "output shape");
    tosac_tensor_free(&ix);
    tosac_tensor_free(&out);
    tosac_tensor_free(&v);
}

static void test_scatter(void **state)
{
    (void)state;
    /* values_in [N=1,K=4,C=2] all -1; input [1,W=2,2] rows (7,8) (9,10) go to rows 3 and 1 */
    const int64_t sk[3] = {1, 4, 2}, si[2] = {1, 2}, sw[3] = {1, 2, 2};
    const int64_t vin[] = {-1, -1, -1, -1, -1, -1, -1, -1}, idx[] = {3, 1};
    const int64_t inp[] = {7, 8, 9, 10};
    const int64_t want[] = {-1, -1, 9, 10, -1, -1, 7, 8};
    tosac_tensor v, ix, in, out;
    tosac_error err;
    tosac_error_clear(&err);
    th_tensor_int(&v, TOSAC_DT_I32, 3, sk, vin);
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, idx);
    th_tensor_int(&in, TOSAC_DT_I32, 3, sw, inp);
    th_tensor_zero(&out, TOSAC_DT_I32, 3, sk);
    tosac_tensor *ins[3] = {&v, &ix, &in}, *outs[1] = {&out};
    assert_int_equal(th_run_op(TOSA_OP_SCATTER, NULL, ins, 3, outs, 1, &err), TOSAC_OK);
    check_values(&out, want);
    tosac_tensor_free(&ix);
    /* the same position written twice breaks REQUIRE(output_modified == false) */
    const int64_t dup[] = {2, 2};
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, dup);
    assert_int_equal(th_run_op(TOSA_OP_SCATTER, NULL, ins, 3, outs, 1, &err), TOSAC_ERR_INPUT);
    expect_msg(&err, "SCATTER", "indices[0,0] and indices[0,1] are both 2");
    tosac_tensor_free(&ix);
    /* out of range */
    const int64_t big[] = {0, 4};
    th_tensor_int(&ix, TOSAC_DT_I64, 2, si, big);
    tosac_error_clear(&err);
    assert_int_equal(th_run_op(TOSA_OP_SCATTER, NULL, ins, 3, outs, 1, &err), TOSAC_ERR_INPUT);
    expect_msg(&err, "SCATTER", "K = 4");
    tosac_tensor_free(&ix);
    tosac_tensor_free(&v);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

static void test_scatter_float_and_bool(void **state)
{
    (void)state;
    /* fp16 rows move as raw bits: N=2, K=2, C=1, W=1 */
    const int64_t sk[3] = {2, 2, 1}, si[2] = {2, 1}, sw[3] = {2, 1, 1};
    const double vin[] = {1.0, 2.0, 3.0, 4.0}, inp[] = {-0.5, 65504.0};
    const int64_t idx[] = {1, 0};
    tosac_tensor v, ix, in, out;
    tosac_error err;
    tosac_error_clear(&err);
    th_tensor_float(&v, TOSAC_DT_F16, 3, sk, vin);
    th_tensor_int(&ix, TOSAC_DT_I32, 2, si, idx);
    th_tensor_float(&in, TOSAC_DT_F16, 3, sw, inp);
    th_tensor_zero(&out, TOSAC_DT_F16, 3, sk);
    tosac_tensor *ins[3] = {&v, &ix, &in}, *outs[1] = {&out};
    assert_int_equal(th_run_op(TOSA_OP_SCATTER, NULL, ins, 3, outs, 1, &err), TOSAC_OK);
    /* batch 0 row 1 <- -0.5 (0xb800); batch 1 row 0 <- 65504 (0x7bff); 1.0 0x3c00, 4.0 0x4400 */
    const uint16_t want[] = {0x3c00, 0xb800, 0x7bff, 0x4400};
    assert_memory_equal(out.data, want, sizeof want);
    tosac_tensor_free(&v);
    tosac_tensor_free(&ix);
    tosac_tensor_free(&in);
    tosac_tensor_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_scatter_float_and_bool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
