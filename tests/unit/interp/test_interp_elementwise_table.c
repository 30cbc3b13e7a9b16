/* TABLE: int8 direct lookup and int16 interpolation (apply_lookup_s: index = (v + 32768) >> 7,
 * fraction = v & 0x7f, result = table[index] * 128 + (table[index+1] - table[index]) * fraction).
 * Expected values are worked out by hand in the comments. */
#include "interp_ew_testutil.h"

static tosac_code run_table(tosac_dtype dt, tosac_dtype odt, int n, const int64_t *v,
                            int64_t table_len, const int64_t *table, tosac_tensor *out,
                            tosac_error *err)
{
    tosac_tensor in[2];
    th_tensor_int(&in[0], dt, 1, EW_SHAPE(n), v);
    th_tensor_int(&in[1], dt, 1, EW_SHAPE(table_len), table);
    th_tensor_zero(out, odt, 1, EW_SHAPE(n));
    tosac_code rc = ew_run(TOSA_OP_TABLE, NULL, in, 2, out, err);
    ew_free(in, 2);
    return rc;
}

static void int8_direct_lookup(void **state)
{
    (void)state;
    int64_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = 127 - i; /* in int8: entry for input v (index v + 128) is -1 - v */
    tosac_tensor out;
    tosac_error err;
    assert_int_equal(run_table(TOSAC_DT_I8, TOSAC_DT_I8, 4, (int64_t[]){-128, -1, 0, 127}, 256,
                               table, &out, &err), TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){127, 0, -1, -128}, 4);
    tosac_tensor_free(&out);
}

static void int16_interpolates_at_both_ends(void **state)
{
    (void)state;
    int64_t table[513];
    for (int i = 0; i < 513; i++)
        table[i] = 64 * i - 16384; /* linear: result = 64 * v for every v */
    /* make the first and the last segment non-linear to test them on their own */
    table[0] = -5;
    table[1] = 300;   /* slope 305 */
    table[511] = 100;
    table[512] = -100; /* slope -200 */
    tosac_tensor out;
    tosac_error err;
    const int64_t v[] = {-32768, -32767, -32641, 32640, 32767, 0, 1, -1, 1000};
    /* -32768: index 0, fraction 0 -> -5*128 = -640
     * -32767: index 0, fraction 1 -> -640 + 305 = -335
     * -32641: index 0, fraction 127 -> -640 + 305*127 = 38095
     *  32640: index 511, fraction 0 -> 100*128 = 12800
     *  32767: index 511, fraction 127 -> 12800 - 200*127 = -12600
     *  0, 1, -1, 1000 on the linear part: 64*v (for -1: index 255, fraction 127,
     *  table[255] = -64 -> -64*128 + 64*127 = -64) */
    assert_int_equal(run_table(TOSAC_DT_I16, TOSAC_DT_I32, EW_N(v), v, 513, table, &out, &err),
                     TOSAC_OK);
    ew_assert_ints(&out, (int64_t[]){-640, -335, 38095, 12800, -12600, 0, 64, -64, 64000}, EW_N(v));
    tosac_tensor_free(&out);
}

static void table_errors(void **state)
{
    (void)state;
    int64_t table[513] = {0};
    tosac_tensor out;
    tosac_error err;
    /* int8 needs 256 entries */
    ew_assert_fails(run_table(TOSAC_DT_I8, TOSAC_DT_I8, 1, (int64_t[]){0}, 255, table, &out, &err),
                    &err, "TABLE", "TABLE_SIZE");
    tosac_tensor_free(&out);
    /* int16 produces int32 */
    ew_assert_fails(run_table(TOSAC_DT_I16, TOSAC_DT_I16, 1, (int64_t[]){0}, 513, table, &out, &err),
                    &err, "TABLE", "output type i16");
    tosac_tensor_free(&out);
    /* a slope beyond int16 (-32768 -> 32767) makes the lookup unpredictable */
    table[0] = -32768;
    table[1] = 32767;
    ew_assert_fails(run_table(TOSAC_DT_I16, TOSAC_DT_I32, 1, (int64_t[]){-32768}, 513, table, &out,
                              &err), &err, "TABLE", "slope");
    tosac_tensor_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int8_direct_lookup),
        cmocka_unit_test(int16_interpolates_at_both_ends),
        cmocka_unit_test(table_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
