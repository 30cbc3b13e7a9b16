/* tosac_tensor_int_at / tosac_tensor_f64_at: every numeric dtype read back exactly. */
#include "testutil.h"

#include <string.h>

#include "tosac/tensor.h"

static tosac_tensor one(tosac_dtype dt, const void *bytes, size_t n)
{
    static unsigned char buf[16];
    memcpy(buf, bytes, n);
    tosac_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = 1;
    t.shape[0] = 1;
    t.data = buf;
    t.nbytes = n;
    return t;
}

static void test_reads(void **state)
{
    (void)state;
    int8_t i8 = -7;
    uint16_t u16 = 65535, h = 0xc500; /* f16 -5.0 */
    int32_t i32 = INT32_MIN;
    int64_t i64 = -((int64_t)1 << 40);
    uint64_t u64 = 7;
    float f = -2.75f;
    double d = 1e10;
    uint8_t b = 1;
    tosac_tensor t = one(TOSAC_DT_I8, &i8, 1);
    assert_int_equal(tosac_tensor_int_at(&t, 0), -7);
    t = one(TOSAC_DT_U16, &u16, 2);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 65535);
    t = one(TOSAC_DT_I32, &i32, 4);
    assert_true(tosac_tensor_int_at(&t, 0) == INT32_MIN);
    t = one(TOSAC_DT_I48, &i64, 8);
    assert_true(tosac_tensor_int_at(&t, 0) == i64);
    assert_true(tosac_tensor_f64_at(&t, 0) == -1099511627776.0);
    t = one(TOSAC_DT_U64, &u64, 8);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 7);
    t = one(TOSAC_DT_BOOL, &b, 1);
    assert_int_equal(tosac_tensor_int_at(&t, 0), 1);
    t = one(TOSAC_DT_F32, &f, 4);
    assert_true(tosac_tensor_f64_at(&t, 0) == -2.75);
    assert_int_equal(tosac_tensor_int_at(&t, 0), -2); /* truncated toward zero */
    t = one(TOSAC_DT_F16, &h, 2);
    assert_true(tosac_tensor_f64_at(&t, 0) == -5.0);
    t = one(TOSAC_DT_F64, &d, 8);
    assert_true(tosac_tensor_f64_at(&t, 0) == 1e10);
    assert_true(tosac_tensor_int_at(&t, 0) == 10000000000LL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
