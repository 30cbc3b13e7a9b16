/* Binary and unary elementwise kernels: broadcasting, integer wrap-around and the ONNX
 * corner rules (Mod sign, division by zero, shifts, comparisons to bool). Expected values
 * are worked out by hand. */
#include "testutil.h"

#include <math.h>

#include "kernels/binary.h"
#include "kernels/unary.h"

static void bcast2(kern_bcast *b, int ra, const int64_t *sa, int rb, const int64_t *sb)
{
    int ranks[2] = {ra, rb};
    const int64_t *shapes[2] = {sa, sb};
    assert_int_equal(kern_bcast_init(b, 2, ranks, shapes), 0);
}

static void test_broadcast_add(void **state)
{
    (void)state;
    kern_bcast b;
    int64_t sa[2] = {2, 3}, sb[1] = {3};
    bcast2(&b, 2, sa, 1, sb);
    assert_int_equal(b.rank, 2);
    assert_int_equal(b.numel, 6);
    float a[6] = {1, 2, 3, 4, 5, 6}, c[3] = {10, 20, 30}, y[6];
    assert_int_equal(kern_binary(KERN_ADD, TOSAC_DT_F32, &b, a, c, y), 0);
    float want[6] = {11, 22, 33, 14, 25, 36};
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == want[i]);
    /* [2,1] x [1,3] -> [2,3] outer product shape */
    int64_t sc[2] = {2, 1}, sd[2] = {1, 3};
    bcast2(&b, 2, sc, 2, sd);
    float col[2] = {2, 3}, row[3] = {1, 10, 100};
    assert_int_equal(kern_binary(KERN_MUL, TOSAC_DT_F32, &b, col, row, y), 0);
    float want2[6] = {2, 20, 200, 3, 30, 300};
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == want2[i]);
    int64_t bad1[1] = {3}, bad2[1] = {4};
    int ranks[2] = {1, 1};
    const int64_t *shapes[2] = {bad1, bad2};
    assert_int_equal(kern_bcast_init(&b, 2, ranks, shapes), -1);
}

static void test_integer_rules(void **state)
{
    (void)state;
    kern_bcast b;
    int64_t s[1] = {4};
    bcast2(&b, 1, s, 1, s);
    int8_t a[4] = {127, -128, 100, -7}, c[4] = {1, -1, 100, 2}, y[4];
    assert_int_equal(kern_binary(KERN_ADD, TOSAC_DT_I8, &b, a, c, y), 0);
    assert_int_equal(y[0], -128); /* wraps */
    assert_int_equal(y[1], 127);
    assert_int_equal(y[2], -56);
    assert_int_equal(y[3], -5);
    /* Mod (fmod=0) takes the divisor's sign; FMOD the dividend's: -7 mod 2 = 1 / -1 */
    int32_t x[4] = {-7, 7, -7, 6}, d[4] = {2, -2, -2, 3}, r[4];
    assert_int_equal(kern_binary(KERN_MOD, TOSAC_DT_I32, &b, x, d, r), 0);
    assert_int_equal(r[0], 1);
    assert_int_equal(r[1], -1);
    assert_int_equal(r[2], -1);
    assert_int_equal(r[3], 0);
    assert_int_equal(kern_binary(KERN_FMOD, TOSAC_DT_I32, &b, x, d, r), 0);
    assert_int_equal(r[0], -1);
    assert_int_equal(r[1], 1);
    /* integer division truncates; INT_MIN / -1 wraps instead of trapping */
    int32_t n[4] = {-7, 7, INT32_MIN, 9}, q[4] = {2, 2, -1, 3};
    assert_int_equal(kern_binary(KERN_DIV, TOSAC_DT_I32, &b, n, q, r), 0);
    assert_int_equal(r[0], -3);
    assert_int_equal(r[1], 3);
    assert_int_equal(r[2], INT32_MIN);
    assert_int_equal(r[3], 3);
    int32_t z[4] = {1, 1, 0, 1};
    assert_int_equal(kern_binary(KERN_DIV, TOSAC_DT_I32, &b, n, z, r), -1);
    uint8_t u[4] = {1, 255, 16, 3}, sh[4] = {7, 1, 4, 8}, ur[4];
    assert_int_equal(kern_binary(KERN_SHL, TOSAC_DT_U8, &b, u, sh, ur), 0);
    assert_int_equal(ur[0], 128);
    assert_int_equal(ur[1], 254);
    assert_int_equal(ur[2], 0);
    assert_int_equal(ur[3], 0); /* shift by the full width gives 0 */
}

static void test_compare_and_float(void **state)
{
    (void)state;
    kern_bcast b;
    int64_t s[1] = {4}, one[1] = {1};
    bcast2(&b, 1, s, 1, one);
    double a[4] = {-1, 0, 1, NAN}, zero[1] = {0};
    uint8_t y[4];
    assert_int_equal(kern_binary(KERN_GT, TOSAC_DT_F64, &b, a, zero, y), 0);
    assert_int_equal(y[0], 0);
    assert_int_equal(y[1], 0);
    assert_int_equal(y[2], 1);
    assert_int_equal(y[3], 0);
    float f[4] = {-5.5f, 5.5f, -5.5f, 5.5f}, g[4] = {2, 2, -2, -2}, r[4];
    bcast2(&b, 1, s, 1, s);
    assert_int_equal(kern_binary(KERN_MOD, TOSAC_DT_F32, &b, f, g, r), 0);
    assert_true(r[0] == 0.5f && r[1] == 1.5f && r[2] == -1.5f && r[3] == -0.5f);
    float sl[1] = {0.25f};
    bcast2(&b, 1, s, 1, one);
    assert_int_equal(kern_binary(KERN_PRELU, TOSAC_DT_F32, &b, f, sl, r), 0);
    assert_true(r[0] == -1.375f && r[1] == 5.5f);
}

static void test_unary(void **state)
{
    (void)state;
    float x[6] = {-2.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.0f}, y[6];
    assert_int_equal(kern_unary(KERN_ROUND, TOSAC_DT_F32, NULL, 6, x, y), 0);
    float want[6] = {-2, -0.0f, 0, 2, 2, 3}; /* half to even */
    for (int i = 0; i < 6; i++)
        assert_true(y[i] == want[i]);
    kern_unary_params p = {.lo = 0, .hi = 1.5};
    assert_int_equal(kern_unary(KERN_CLIP, TOSAC_DT_F32, &p, 6, x, y), 0);
    assert_true(y[0] == 0 && y[2] == 0.5f && y[4] == 1.5f);
    kern_unary_params hs = {.alpha = 0.2, .beta = 0.5};
    assert_int_equal(kern_unary(KERN_HARD_SIGMOID, TOSAC_DT_F32, &hs, 6, x, y), 0);
    assert_true(y[0] == 0.0f && y[2] == 0.6f && y[5] == 1.0f);
    assert_int_equal(kern_unary(KERN_HARD_SWISH, TOSAC_DT_F32, NULL, 6, x, y), 0);
    /* x * clamp(x/6 + 0.5, 0, 1): 1.5 * 0.75 = 1.125 */
    assert_true(y[3] == 1.125f && y[5] == 3.0f && y[0] == -2.5f * (0.5f - 2.5f / 6));
    int64_t iv[3] = {-5, 0, 7}, io[3];
    kern_unary_params ic = {.ilo = -1, .ihi = 5};
    assert_int_equal(kern_unary(KERN_CLIP, TOSAC_DT_I64, &ic, 3, iv, io), 0);
    assert_true(io[0] == -1 && io[1] == 0 && io[2] == 5);
    assert_int_equal(kern_unary(KERN_EXP, TOSAC_DT_I64, NULL, 3, iv, io), -1);
    float sg[2] = {0, -100}, so[2];
    assert_int_equal(kern_unary(KERN_SIGMOID, TOSAC_DT_F32, NULL, 2, sg, so), 0);
    assert_true(so[0] == 0.5f && so[1] > 0 && so[1] < 1e-40f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_add),
        cmocka_unit_test(test_integer_rules),
        cmocka_unit_test(test_compare_and_float),
        cmocka_unit_test(test_unary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
