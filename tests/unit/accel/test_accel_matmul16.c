/* The a16w8 MATMUL family (rt_accel_matmul16.c on the conv16 kernel) against the reference
 * interpreter on every available variant: MATMUL int16 x int16 -> int48 -> RESCALE -> (CLAMP)
 * with a constant B (narrow: widened int8 weights, one pass; wide: split into bytes) and an
 * activation B (packed per invoke, split or not by its values), odd shapes (1 row, rows past
 * a task's 64, K past the 16-lane pairs and past the split's 256-product chunk, W past the
 * 16-lane blocks), batches, INT16_MIN rows and columns (pair sums of 2^31), saturating and
 * failing RESCALE shifts, per-channel RESCALE, and the cases left to the reference. */
#include "accel_testutil.h"

typedef struct mm_case {
    int64_t N, H, C, W;
    bool dyn_b;                 /* B is a graph input */
    int64_t bmax;               /* |B| values up to this (B's own range when dynamic) */
    int shift_lo;               /* RESCALE shifts in shift_lo .. shift_lo + 3 */
    bool per_channel, clamp, out8;
    int azp;                    /* non-zero: the reference's ERROR_IF, declined */
    bool acc_out;               /* the int48 result is also a block output: no fusion */
    bool corner;                /* A row 0 and B column 0 all INT16_MIN */
} mm_case;

static int run_case(const mm_case *k)
{
    at_graph t;
    at_new(&t);
    int64_t as[3] = {k->N, k->H, k->C}, bs[3] = {k->N, k->C, k->W}, os[3] = {k->N, k->H, k->W};
    tosac_tensor a_in, b_in;
    at_random(&a_in, TOSAC_DT_I16, 3, as, INT16_MIN, INT16_MAX);
    at_random(&b_in, TOSAC_DT_I16, 3, bs, -k->bmax, k->bmax);
    if (k->corner) {
        int16_t *a = a_in.data, *b = b_in.data;
        for (int64_t n = 0; n < k->N; n++) {
            for (int64_t c = 0; c < k->C; c++) {
                a[(n * k->H) * k->C + c] = INT16_MIN;
                b[(n * k->C + c) * k->W] = INT16_MIN;
            }
        }
    }
    int x = at_tensor(&t, TOSAC_DT_I16, 3, as, NULL);
    int b = at_tensor(&t, TOSAC_DT_I16, 3, bs, k->dyn_b ? NULL : b_in.data);
    int mm_in[4] = {x, b, at_scalar(&t, TOSAC_DT_I16, k->azp), at_scalar(&t, TOSAC_DT_I16, 0)};
    int acc = at_tensor(&t, TOSAC_DT_I48, 3, os, NULL);
    at_op(&t, TOSA_OP_MATMUL, NULL, mm_in, 4, acc);
    int y = at_i48_tail(&t, acc, 3, os, k->per_channel ? (int)k->W : 1, k->per_channel,
                        k->shift_lo, k->out8, 5, k->clamp, k->out8 ? -90 : -20000,
                        k->out8 ? 100 : 3000);
    int ins[2] = {x, b}, outs[2] = {y, acc};
    at_io(&t, ins, k->dyn_b ? 2 : 1, outs, k->acc_out ? 2 : 1);
    tosac_tensor inputs[2] = {a_in, b_in};
    /* MATMUL, RESCALE (, CLAMP) one group; declined (zero point) or not fused (acc_out): the
     * RESCALE and CLAMP alone (ewise) */
    bool alone = k->azp || k->acc_out;
    int installed = alone ? (k->clamp ? 2 : 1) : (k->clamp ? 3 : 2);
    int nops = alone ? 0 : k->clamp ? 2 : 1;
    int ok = at_check(&t, inputs, k->dyn_b ? 2 : 1, installed, nops);
    tosac_tensor_free(&a_in);
    tosac_tensor_free(&b_in);
    at_free(&t);
    return ok;
}

static void test_constant_b(void **state)
{
    (void)state;
    tu_seed(21);
    const mm_case cases[] = {
        /* N  H    C    W  dyn   bmax   shift pc clamp out8 */
        {1, 5, 7, 9, false, 255, 20, false, true, false, 0, false, false},
        {2, 67, 33, 17, false, 255, 22, true, false, false, 0, false, true},
        {1, 1, 1, 1, false, 255, 16, false, false, true, 0, false, false},
        {3, 4, 300, 3, false, 32767, 32, false, true, false, 0, false, true},
        {1, 9, 70, 33, false, 2047, 28, true, true, true, 0, false, false},
        {1, 6, 40, 5, false, 2048, 28, false, false, false, 0, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(run_case(&cases[i]));
}

static void test_activation_b(void **state)
{
    (void)state;
    tu_seed(22);
    const mm_case cases[] = {
        {1, 8, 16, 8, true, 32767, 30, false, false, false, 0, false, true},
        {2, 65, 64, 20, true, 32767, 33, false, true, false, 0, false, true},
        {3, 3, 5, 1, true, 1000, 20, true, false, true, 0, false, false},
        {1, 130, 513, 31, true, 32767, 34, false, false, false, 0, false, false},
        {1, 2, 2, 2, true, 1, 10, false, true, false, 0, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_true(run_case(&cases[i]));
}

/* Small shifts: apply_scale_16's result leaves int32; the reference fails and the accelerated
 * run reports the same (constant and activation B). */
static void test_require_failure(void **state)
{
    (void)state;
    tu_seed(23);
    mm_case c = {1, 6, 40, 9, false, 255, 2, false, true, false, 0, false, false};
    assert_false(run_case(&c));
    c.dyn_b = true;
    c.bmax = 32767;
    assert_false(run_case(&c));
}

/* Left to the reference: an A zero point (ERROR_IF for int16), and a MATMUL whose int48
 * result is read outside the group (runs alone, the RESCALE on the ewise family). */
static void test_declines(void **state)
{
    (void)state;
    tu_seed(24);
    mm_case c = {1, 6, 40, 9, true, 32767, 30, false, true, false, 3, false, false};
    assert_false(run_case(&c));
    c.azp = 0;
    c.acc_out = true;
    assert_true(run_case(&c));
}

int main(void)
{
    at_print_variants("matmul16");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_b),
        cmocka_unit_test(test_activation_b),
        cmocka_unit_test(test_require_failure),
        cmocka_unit_test(test_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
