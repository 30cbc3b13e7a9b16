/* The TABLE family (rt_accel_table.c, src/ukernels/table.c) against the reference on every
 * available variant: int8 lookup and int16 interpolation over random tables and inputs
 * (with the extreme inputs -128/127, -32768/32767), and an int16 table breaking the slope
 * REQUIRE, which the family must leave to the reference (that reports it when it is hit). */
#include "accel_testutil.h"

static int run_table(tosac_dtype dt, const void *table, int64_t n_table, int want_installed)
{
    at_graph t;
    at_new(&t);
    int64_t shape[3] = {4, 41, 13};
    int x = at_tensor(&t, dt, 3, shape, NULL);
    int in[2] = {x, at_tensor(&t, dt, 1, &n_table, table)};
    int y = at_tensor(&t, dt == TOSAC_DT_I8 ? TOSAC_DT_I8 : TOSAC_DT_I32, 3, shape, NULL);
    at_op(&t, TOSA_OP_TABLE, NULL, in, 2, y);
    at_io(&t, &x, 1, &y, 1);
    tosac_tensor v;
    int64_t lo = dt == TOSAC_DT_I8 ? INT8_MIN : INT16_MIN;
    at_random(&v, dt, 3, shape, lo, -lo - 1);
    if (dt == TOSAC_DT_I8) {
        ((int8_t *)v.data)[0] = INT8_MIN;
        ((int8_t *)v.data)[1] = INT8_MAX;
    } else { /* every entry pair, at changing fractions */
        for (int64_t i = 0; i < 2132; i++)
            ((int16_t *)v.data)[i] = (int16_t)(INT16_MIN + (i * 31) % 65536);
        ((int16_t *)v.data)[0] = INT16_MIN;
        ((int16_t *)v.data)[1] = INT16_MAX;
    }
    int ok = at_check(&t, &v, 1, want_installed, 0);
    tosac_tensor_free(&v);
    at_free(&t);
    return ok;
}

static void test_table_i8(void **state)
{
    (void)state;
    tu_seed(21);
    int8_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = (int8_t)tu_rand();
    assert_true(run_table(TOSAC_DT_I8, table, 256, 1));
}

static void test_table_i16(void **state)
{
    (void)state;
    tu_seed(22);
    int16_t table[513];
    for (int i = 0; i < 513; i++) /* neighbours within int16 of each other */
        table[i] = (int16_t)((int32_t)(tu_rand() % 60000) - 30000);
    table[0] = INT16_MIN + 2800;
    table[512] = INT16_MAX;
    for (int i = 1; i < 513; i++) {
        int32_t d = table[i] - table[i - 1];
        if (d > INT16_MAX || d < INT16_MIN)
            table[i] = (int16_t)(table[i - 1] + (d > 0 ? 30000 : -30000));
    }
    assert_true(run_table(TOSAC_DT_I16, table, 513, 1));
    /* a slope outside int16 between the last two entries: declined; the input 32767 uses
     * that pair, so the reference fails and so does the accelerated run */
    table[511] = INT16_MIN;
    table[512] = INT16_MAX;
    assert_false(run_table(TOSAC_DT_I16, table, 513, 0));
}

int main(void)
{
    at_print_variants("table");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_i8),
        cmocka_unit_test(test_table_i16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
