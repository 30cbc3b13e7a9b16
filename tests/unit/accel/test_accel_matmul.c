/* The accelerated MATMUL family (src/runtime/accel/rt_accel_matmul.c on src/ukernels/qgemm*):
 * for every kernel variant this build and CPU can run, MATMUL -> RESCALE (-> CLAMP) graphs
 * give the reference interpreter's bytes (or its error message), with the group installed
 * (qgemm_testutil.h).
 *
 * - test_matmul_const_b: B a constant (packed at init, one pack per batch): batch 3, odd H,
 *   C and W (tails of every tile, W crossing 64), A_zp -128 / 127 / 0, per-channel and
 *   single RESCALE, DOUBLE_ROUND near shift 32, W = 1, exact ties (multiplier 2^9, shift 16);
 *   a CLAMP fused (3 ops).
 * - test_matmul_activation_b: B an input (packed per invoke into scratch), batch 2, on the
 *   fake 3-thread pool too; a MATMUL without RESCALE (int32 out).
 * - test_matmul_range_error: a shift too small for the values: the reference's REQUIRE
 *   message.
 * - test_matmul_declines: B_zp != 0 leaves MATMUL to the reference. */
#include "qgemm_testutil.h"

typedef struct mm_case {
    int n, h, c, w, azp, bzp, b_input, threads;
    qt_rq rq;
} mm_case;

static int check(const mm_case *mc, int want_installed)
{
    cg t;
    cg_new(&t);
    int64_t as[3] = {mc->n, mc->h, mc->c}, bs[3] = {mc->n, mc->c, mc->w}, os[3] = {mc->n, mc->h, mc->w};
    tosac_tensor in[2];
    qt_random_i8(&in[0], 3, as);
    qt_random_i8(&in[1], 3, bs);
    int a = cg_tensor(&t, TOSAC_DT_I8, 3, as, NULL);
    int b = cg_tensor(&t, TOSAC_DT_I8, 3, bs, mc->b_input ? NULL : in[1].data);
    int ins[4] = {a, b, cg_scalar(&t, TOSAC_DT_I8, mc->azp), cg_scalar(&t, TOSAC_DT_I8, mc->bzp)};
    int acc = cg_tensor(&t, TOSAC_DT_I32, 3, os, NULL);
    cg_op(&t, TOSA_OP_MATMUL, NULL, ins, 4, acc);
    int last = qt_append_requant(&t, acc, 3, os, mc->w, &mc->rq);
    tosac_error err;
    tosac_error_clear(&err);
    int gin[2] = {a, b};
    assert_int_equal(tosa_block_set_io(t.b, gin, mc->b_input ? 2 : 1, &last, 1, &err), TOSAC_OK);
    if (!mc->b_input)
        tosac_tensor_free(&in[1]);
    return qt_check(&t, in, mc->b_input ? 2 : 1, want_installed, mc->threads);
}

/* |acc| ~ C * 128 * 128: 2^20 for C ~ 64 */
static mm_case base(void)
{
    mm_case m = {.n = 3, .h = 13, .c = 37, .w = 70, .azp = -128,
                 .rq = {.rescale = 1, .shift_lo = 40, .shift_hi = 50, .per_channel = 1,
                        .acc_bits = 20}};
    return m;
}

static void test_matmul_const_b(void **state)
{
    (void)state;
    qt_print_variants("matmul");
    tu_seed(21);
    mm_case m = base();
    assert_true(check(&m, 2));
    m.azp = 127;
    m.rq.ozp = 127;
    m.rq.per_channel = 0;
    m.c = 130;
    m.w = 1;
    assert_true(check(&m, 2));
    m = base();
    m.azp = 0;
    m.rq.double_round = 1;
    m.rq.shift_lo = 32;
    m.rq.shift_hi = 34;
    m.rq.ozp = -7;
    assert_true(check(&m, 2));
    /* ties: C = 1 (|acc| <= 2^14 < 2^15, the REQUIRE of shift 16), multiplier 2^9 and shift
     * 16 on the channels that are not wild: acc * 2^9 / 2^16 = acc / 128 lands on .5 whenever
     * acc = 64 mod 128 (about one output in 128), which rounds up (SINGLE_ROUND) */
    m = base();
    m.azp = 0;
    m.c = 1;
    m.rq.shift_lo = m.rq.shift_hi = 16;
    m.rq.acc_bits = 11;
    m.rq.pow2 = 1;
    assert_true(check(&m, 2));
    m = base();
    m.rq.clamp = 1;
    m.rq.clamp_lo = -20;
    m.rq.clamp_hi = 90;
    assert_true(check(&m, 3));
}

static void test_matmul_activation_b(void **state)
{
    (void)state;
    tu_seed(22);
    mm_case m = base();
    m.b_input = 1;
    m.n = 2;
    m.h = 200; /* three row blocks per batch */
    assert_true(check(&m, 2));
    m.threads = 1;
    assert_true(check(&m, 2));
    m.rq.rescale = 0;
    m.azp = 5;
    assert_true(check(&m, 1));
}

static void test_matmul_range_error(void **state)
{
    (void)state;
    tu_seed(23);
    mm_case m = base();
    m.rq.shift_lo = 2;
    m.rq.shift_hi = 5;
    assert_false(check(&m, 2));
}

static void test_matmul_declines(void **state)
{
    (void)state;
    tu_seed(24);
    mm_case m = base();
    m.bzp = 1;
    assert_true(check(&m, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_const_b),
        cmocka_unit_test(test_matmul_activation_b),
        cmocka_unit_test(test_matmul_range_error),
        cmocka_unit_test(test_matmul_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
