/* The accelerated elementwise family (rt_accel_ewise.c, src/ukernels/ewise.c) against the
 * reference interpreter, on every available kernel variant: RESCALE of every width and
 * mode, the fused residual group, int32 ADD/SUB/MUL, CLAMP and TRANSPOSE, on random and edge
 * data (extreme zero points, shifts 2..62, saturation, REQUIRE failures the reference must
 * still report). */
#include "accel_testutil.h"

static int64_t lo_of(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_I8: return INT8_MIN;
    case TOSAC_DT_I16: return INT16_MIN;
    case TOSAC_DT_I32: return INT32_MIN;
    default: return -((int64_t)1 << 47);
    }
}
static int64_t hi_of(tosac_dtype dt) { return -lo_of(dt) - 1; }

typedef struct rescale_case {
    tosac_dtype in, out;
    bool scale32, per_channel;
    uint32_t rounding;
    int64_t izp, ozp;
    int shift_lo, shift_hi;     /* shifts drawn from this range */
    int64_t mul_max;            /* multipliers drawn from [0, mul_max] */
    int64_t x_lo, x_hi;         /* input values */
} rescale_case;

/* One RESCALE x -> out of shape [2,3,5,7] (channels 7); returns the reference's success. */
static int run_rescale(const rescale_case *k, int want_installed)
{
    at_graph t;
    at_new(&t);
    int64_t shape[4] = {2, 3, 5, 7};
    int nc = k->per_channel ? 7 : 1;
    int64_t mul[7], sh[7];
    for (int i = 0; i < nc; i++) {
        mul[i] = (int64_t)(tu_rand() % (uint64_t)(k->mul_max + 1));
        sh[i] = k->shift_lo + (int)tu_below((uint32_t)(k->shift_hi - k->shift_lo + 1));
    }
    mul[0] = k->mul_max; /* the largest multiplier always appears */
    int x = at_tensor(&t, k->in, 4, shape, NULL);
    int ops[5] = {x, at_const(&t, k->scale32 ? TOSAC_DT_I32 : TOSAC_DT_I16, nc, mul),
                  at_const(&t, TOSAC_DT_I8, nc, sh), at_scalar(&t, k->in, k->izp),
                  at_scalar(&t, k->out, k->ozp)};
    int y = at_tensor(&t, k->out, 4, shape, NULL);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.scale32 = k->scale32;
    a.per_channel = k->per_channel;
    a.rounding_mode = k->rounding;
    at_op(&t, TOSA_OP_RESCALE, &a, ops, 5, y);
    at_io(&t, &x, 1, &y, 1);
    tosac_tensor in;
    at_random(&in, k->in, 4, shape, k->x_lo, k->x_hi);
    /* the extremes always appear */
    if (k->in == TOSAC_DT_I8) {
        ((int8_t *)in.data)[0] = (int8_t)k->x_lo;
        ((int8_t *)in.data)[1] = (int8_t)k->x_hi;
    }
    int ok = at_check(&t, &in, 1, want_installed, 0);
    tosac_tensor_free(&in);
    at_free(&t);
    return ok;
}

static void test_rescale_widths(void **state)
{
    (void)state;
    tu_seed(1);
    const tosac_dtype ins[4] = {TOSAC_DT_I8, TOSAC_DT_I16, TOSAC_DT_I32, TOSAC_DT_I48};
    const tosac_dtype outs[3] = {TOSAC_DT_I8, TOSAC_DT_I16, TOSAC_DT_I32};
    const uint32_t modes[3] = {TOSA_ROUND_SINGLE, TOSA_ROUND_INEXACT, TOSA_ROUND_DOUBLE};
    int succeeded = 0, runs = 0;
    for (int i = 0; i < 4; i++)
        for (int o = 0; o < 3; o++)
            for (int s32 = 0; s32 < 2; s32++)
                for (int m = 0; m < 3; m++)
                    for (int pc = 0; pc < 2; pc++) {
                        if ((s32 && ins[i] == TOSAC_DT_I48) || (!s32 && m == 2))
                            continue; /* ERROR_IFs: the family must decline, see below */
                        rescale_case k = {ins[i], outs[o], s32, pc, modes[m], 0, 0, 2, 62,
                                          s32 ? INT32_MAX : INT16_MAX, lo_of(ins[i]),
                                          hi_of(ins[i])};
                        if (ins[i] == TOSAC_DT_I8)
                            k.izp = pc ? -128 : 127;
                        if (outs[o] == TOSAC_DT_I8)
                            k.ozp = pc ? 127 : -128;
                        /* shifts large enough that no value breaks a REQUIRE */
                        k.shift_lo = ins[i] == TOSAC_DT_I32 ? 33 : ins[i] == TOSAC_DT_I48 ? 40 : 18;
                        if (ins[i] == TOSAC_DT_I48 && !s32)
                            k.x_lo = -((int64_t)1 << 40), k.x_hi = (int64_t)1 << 40;
                        succeeded += run_rescale(&k, 1);
                        runs++;
                    }
    assert_int_equal(succeeded, runs);
}

/* Small shifts: the value REQUIRE of apply_scale_32 / the int32 result of apply_scale_16 can
 * fail on some elements; the accelerated run must report what the reference reports, and
 * give the same bits where it succeeds. */
static void test_rescale_small_shifts(void **state)
{
    (void)state;
    tu_seed(2);
    int failed = 0, passed = 0;
    for (int r = 0; r < 24; r++) {
        rescale_case k = {TOSAC_DT_I32, TOSAC_DT_I8, r % 2 == 0, r % 3 == 0,
                          TOSA_ROUND_SINGLE, 0, 5, 2, 34, r % 2 == 0 ? INT32_MAX : INT16_MAX,
                          -(1 << 20), 1 << 20};
        if (r % 4 == 1) /* every value in range for shift >= 22 */
            k.shift_lo = 22;
        if (r >= 12) { /* i8 in: |v| < 256 fails only for shift <= 9 */
            k.in = TOSAC_DT_I8;
            k.izp = -128;
            k.shift_lo = 2;
            k.x_lo = -128;
            k.x_hi = 127;
            k.shift_hi = r % 2 ? 9 : 12;
        }
        if (run_rescale(&k, 1))
            passed++;
        else
            failed++;
    }
    assert_true(failed > 0 && passed > 0); /* both paths ran */
}

/* What the family must leave to the reference: non-constant multiplier, a negative one,
 * shift 1 and 63, a non-zero zero point where the spec forbids one, unsigned modes. */
static void test_rescale_declines(void **state)
{
    (void)state;
    tu_seed(3);
    for (int v = 0; v < 6; v++) {
        at_graph t;
        at_new(&t);
        int64_t shape[2] = {3, 4};
        int64_t mul = v == 1 ? -5 : 1 << 30, sh = v == 2 ? 1 : v == 3 ? 63 : 31;
        int x = at_tensor(&t, TOSAC_DT_I32, 2, shape, NULL);
        int m = v == 0 ? at_tensor(&t, TOSAC_DT_I32, 1, (int64_t[]){1}, NULL)
                       : at_scalar(&t, TOSAC_DT_I32, mul);
        int ops[5] = {x, m, at_scalar(&t, TOSAC_DT_I8, sh),
                      at_scalar(&t, TOSAC_DT_I32, v == 4 ? 3 : 0), at_scalar(&t, TOSAC_DT_I8, 0)};
        int y = at_tensor(&t, TOSAC_DT_I8, 2, shape, NULL);
        tosa_attr a;
        memset(&a, 0, sizeof a);
        a.scale32 = true;
        a.rounding_mode = TOSA_ROUND_SINGLE;
        a.output_unsigned = v == 5;
        at_op(&t, TOSA_OP_RESCALE, &a, ops, 5, y);
        int ins[2] = {x, m};
        at_io(&t, ins, v == 0 ? 2 : 1, &y, 1);
        tosac_tensor in[2];
        at_random(&in[0], TOSAC_DT_I32, 2, shape, -1000, 1000);
        at_random(&in[1], TOSAC_DT_I32, 1, (int64_t[]){1}, 1, 100);
        at_check(&t, in, v == 0 ? 2 : 1, 0, 0);
        tosac_tensor_free(&in[0]);
        tosac_tensor_free(&in[1]);
        at_free(&t);
    }
}

/* RESCALE x, RESCALE y -> ADD -> RESCALE; extra_reader: the ADD's result is also a block
 * output, so the group must not fuse (each operator alone is still accelerated). */
static int run_residual(tosac_dtype dt, tosac_dtype odt, bool per_channel, bool swap,
                        bool extra_reader, int shift_a, int shift_c, int64_t want_nops)
{
    at_graph t;
    at_new(&t);
    int64_t shape[4] = {1, 5, 7, 9};
    int nc = per_channel ? 9 : 1;
    int64_t ma[9], mb[9], mc[9], sa[9], sb[9], sc[9];
    for (int i = 0; i < nc; i++) {
        ma[i] = 1 + tu_below(INT32_MAX);
        mb[i] = 1 + tu_below(INT32_MAX);
        mc[i] = 1 + tu_below(INT32_MAX);
        sa[i] = shift_a + (int)tu_below(3);
        sb[i] = shift_a + (int)tu_below(3);
        sc[i] = shift_c + (int)tu_below(3);
    }
    int x = at_tensor(&t, dt, 4, shape, NULL), y = at_tensor(&t, dt, 4, shape, NULL);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.scale32 = true;
    a.rounding_mode = TOSA_ROUND_DOUBLE;
    a.per_channel = per_channel;
    int64_t zx = dt == TOSAC_DT_I8 ? -128 : 0, zy = dt == TOSAC_DT_I8 ? 127 : 0;
    int ra = at_tensor(&t, TOSAC_DT_I32, 4, shape, NULL);
    int rb = at_tensor(&t, TOSAC_DT_I32, 4, shape, NULL);
    int s = at_tensor(&t, TOSAC_DT_I32, 4, shape, NULL);
    int out = at_tensor(&t, odt, 4, shape, NULL);
    int opa[5] = {x, at_const(&t, TOSAC_DT_I32, nc, ma), at_const(&t, TOSAC_DT_I8, nc, sa),
                  at_scalar(&t, dt, zx), at_scalar(&t, TOSAC_DT_I32, 0)};
    int opb[5] = {y, at_const(&t, TOSAC_DT_I32, nc, mb), at_const(&t, TOSAC_DT_I8, nc, sb),
                  at_scalar(&t, dt, zy), at_scalar(&t, TOSAC_DT_I32, 0)};
    at_op(&t, TOSA_OP_RESCALE, &a, opa, 5, ra);
    at_op(&t, TOSA_OP_RESCALE, &a, opb, 5, rb);
    int add_in[2] = {swap ? rb : ra, swap ? ra : rb};
    at_op(&t, TOSA_OP_ADD, NULL, add_in, 2, s);
    a.per_channel = false;
    a.rounding_mode = TOSA_ROUND_SINGLE;
    int opc[5] = {s, at_scalar(&t, TOSAC_DT_I32, mc[0]), at_scalar(&t, TOSAC_DT_I8, sc[0]),
                  at_scalar(&t, TOSAC_DT_I32, 0), at_scalar(&t, odt, odt == TOSAC_DT_I8 ? 3 : 0)};
    at_op(&t, TOSA_OP_RESCALE, &a, opc, 5, out);
    int ins[2] = {x, y}, outs[2] = {out, s};
    at_io(&t, ins, 2, outs, extra_reader ? 2 : 1);
    tosac_tensor in[2];
    at_random(&in[0], dt, 4, shape, lo_of(dt), hi_of(dt));
    at_random(&in[1], dt, 4, shape, lo_of(dt), hi_of(dt));
    int ok = at_check(&t, in, 2, 4, (int)want_nops);
    tosac_tensor_free(&in[0]);
    tosac_tensor_free(&in[1]);
    at_free(&t);
    return ok;
}

static void test_residual_group(void **state)
{
    (void)state;
    tu_seed(4);
    /* shift_a 20..22: i8 values scaled up to about 2^19, the sum to about 2^20; shift_c 30 */
    assert_true(run_residual(TOSAC_DT_I8, TOSAC_DT_I8, false, false, false, 20, 30, 3));
    assert_true(run_residual(TOSAC_DT_I8, TOSAC_DT_I8, true, true, false, 20, 30, 3));
    assert_true(run_residual(TOSAC_DT_I16, TOSAC_DT_I16, false, false, false, 24, 30, 3));
    assert_true(run_residual(TOSAC_DT_I8, TOSAC_DT_I16, true, false, false, 20, 22, 3));
    /* not fused: the intermediate is read outside the group (4 operators, alone) */
    assert_true(run_residual(TOSAC_DT_I8, TOSAC_DT_I8, false, false, true, 20, 30, 0));
    /* shift_c 2..4: the sum breaks apply_scale_32's value REQUIRE: the reference reports */
    assert_false(run_residual(TOSAC_DT_I8, TOSAC_DT_I8, false, false, false, 20, 2, 3));
    /* shift_a 2: an input breaks it in the first RESCALE */
    assert_false(run_residual(TOSAC_DT_I8, TOSAC_DT_I8, false, false, false, 2, 30, 3));
}

/* int32 ADD / SUB / MUL (shift 0, 1, 31, 63), with and without overflow. */
static void test_arith_i32(void **state)
{
    (void)state;
    tu_seed(5);
    const tosa_op ops[3] = {TOSA_OP_ADD, TOSA_OP_SUB, TOSA_OP_MUL};
    const int shifts[4] = {0, 1, 31, 63};
    for (int o = 0; o < 3; o++)
        for (int k = 0; k < (o == 2 ? 4 : 1); k++)
            for (int big = 0; big < 2; big++) {
                at_graph t;
                at_new(&t);
                int64_t shape[3] = {3, 5, 7};
                int a = at_tensor(&t, TOSAC_DT_I32, 3, shape, NULL);
                int b = at_tensor(&t, TOSAC_DT_I32, 3, shape, NULL);
                int y = at_tensor(&t, TOSAC_DT_I32, 3, shape, NULL);
                int in[3] = {a, b, at_scalar(&t, TOSAC_DT_I8, shifts[k])};
                at_op(&t, ops[o], NULL, in, o == 2 ? 3 : 2, y);
                at_io(&t, in, 2, &y, 1);
                tosac_tensor x[2];
                int64_t lim = big ? INT32_MAX : (o == 2 ? 40000 : 1 << 29);
                at_random(&x[0], TOSAC_DT_I32, 3, shape, -lim - big, lim);
                at_random(&x[1], TOSAC_DT_I32, 3, shape, -lim - big, lim);
                int ok = at_check(&t, x, 2, 1, 0);
                /* small operands never overflow; full-range ones do, except MUL at shift 0
                 * (low bits) and >= 31 (|a*b| >> 31 <= 2^31, reached only by INT32_MIN^2) */
                assert_int_equal(ok, !big || (o == 2 && shifts[k] != 1));
                tosac_tensor_free(&x[0]);
                tosac_tensor_free(&x[1]);
                at_free(&t);
            }
}

static void test_clamp(void **state)
{
    (void)state;
    tu_seed(6);
    for (int w = 0; w < 2; w++) {
        tosac_dtype dt = w ? TOSAC_DT_I16 : TOSAC_DT_I8;
        at_graph t;
        at_new(&t);
        int64_t shape[2] = {13, 11};
        int x = at_tensor(&t, dt, 2, shape, NULL), y = at_tensor(&t, dt, 2, shape, NULL);
        tosa_attr a;
        memset(&a, 0, sizeof a);
        int16_t lo = w ? -1000 : -100, hi = w ? 20000 : 6;
        memcpy(a.min_val, &lo, 2);
        memcpy(a.max_val, &hi, 2);
        a.n_min_val = a.n_max_val = w ? 2 : 1;
        a.nan_mode = TOSA_NAN_PROPAGATE;
        at_op(&t, TOSA_OP_CLAMP, &a, &x, 1, y);
        at_io(&t, &x, 1, &y, 1);
        tosac_tensor in;
        at_random(&in, dt, 2, shape, lo_of(dt), hi_of(dt));
        assert_true(at_check(&t, &in, 1, 1, 0));
        tosac_tensor_free(&in);
        at_free(&t);
    }
}

static void test_transpose(void **state)
{
    (void)state;
    tu_seed(7);
    const tosac_dtype dts[5] = {TOSAC_DT_I8, TOSAC_DT_I16, TOSAC_DT_I32, TOSAC_DT_I48,
                                TOSAC_DT_F32};
    const int perms[5][4] = {{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {0, 1, 2, 3}, {1, 0, 3, 2}};
    const int64_t shapes[2][4] = {{1, 3, 17, 19}, {2, 20, 3, 5}};
    for (int d = 0; d < 5; d++)
        for (int p = 0; p < 5; p++)
            for (int s = 0; s < 2; s++) {
                at_graph t;
                at_new(&t);
                int64_t oshape[4];
                for (int i = 0; i < 4; i++)
                    oshape[i] = shapes[s][perms[p][i]];
                int x = at_tensor(&t, dts[d], 4, shapes[s], NULL);
                int y = at_tensor(&t, dts[d], 4, oshape, NULL);
                tosa_attr a;
                memset(&a, 0, sizeof a);
                a.n_perms = 4;
                memcpy(a.perms, perms[p], sizeof perms[p]);
                at_op(&t, TOSA_OP_TRANSPOSE, &a, &x, 1, y);
                at_io(&t, &x, 1, &y, 1);
                tosac_tensor in;
                at_random(&in, dts[d], 4, shapes[s], 0, 0);
                assert_true(at_check(&t, &in, 1, 1, 0));
                tosac_tensor_free(&in);
                at_free(&t);
            }
}

int main(void)
{
    at_print_variants("ewise");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rescale_widths),
        cmocka_unit_test(test_rescale_small_shifts),
        cmocka_unit_test(test_rescale_declines),
        cmocka_unit_test(test_residual_group),
        cmocka_unit_test(test_arith_i32),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
