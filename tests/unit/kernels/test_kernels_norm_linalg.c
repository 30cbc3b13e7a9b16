/* MeanVarianceNormalization, batch statistics (BatchNormalization training) and Det on
 * hand-derived values. */
#include "testutil.h"

#include <math.h>

#include "kernels/linalg.h"
#include "kernels/softmax.h"

static void near(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (fabsf(got[i] - want[i]) > 1e-6f)
            fail_msg("element %d is %.9g, expected %.9g", i, got[i], want[i]);
}

static void test_mvn(void **state)
{
    (void)state;
    /* [1,1,2,2] = 0,0,0,4 over all dims: mean 1, E[x^2] 4, var 3, std sqrt(3) */
    int64_t shape[4] = {1, 1, 2, 2};
    uint8_t all[4] = {1, 0, 1, 1}, last[4] = {0, 0, 0, 1};
    float x[4] = {0, 0, 0, 4}, y[4];
    double scratch[8];
    kern_mvn_f32(4, shape, all, x, y, scratch);
    float s3 = sqrtf(3.0f);
    near(y, (float[]){-1 / s3, -1 / s3, -1 / s3, 3 / s3}, 4);
    /* per row of the last dim: [0,0] has std 0 and gives 0 (the 1e-9 keeps it finite);
     * [0,4] has mean 2, std 2 */
    kern_mvn_f32(4, shape, last, x, y, scratch);
    near(y, (float[]){0, 0, -1, 1}, 4);
}

static void test_channel_stats(void **state)
{
    (void)state;
    /* [n=2, c=1, spatial=2] = 1,2 | 3,6: mean 3, population variance (4+1+0+9)/4 = 3.5;
     * channel 2 of [1,2,1]: 5, 7 -> mean 6, variance 1 */
    float x[4] = {1, 2, 3, 6}, mean[2], var[2];
    kern_channel_stats_f32(2, 1, 2, x, mean, var);
    assert_true(mean[0] == 3.0f && var[0] == 3.5f);
    float x2[2] = {5, 7};
    kern_channel_stats_f32(2, 1, 1, x2, mean, var);
    assert_true(mean[0] == 6.0f && var[0] == 1.0f);
}

static void test_det(void **state)
{
    (void)state;
    double scratch[9];
    /* 2*3 - 1*1 = 5; a swap gives -1; a singular matrix 0 */
    float m2[12] = {2, 1, 1, 3, 0, 1, 1, 0, 1, 2, 2, 4}, d2[3];
    kern_det(TOSAC_DT_F32, 3, 2, m2, d2, scratch);
    near(d2, (float[]){5, -1, 0}, 3);
    /* cofactors along row 0: 1*(50-48) - 2*(40-42) + 3*(32-35) = -3 */
    double m3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10}, d3;
    kern_det(TOSAC_DT_F64, 1, 3, m3, &d3, scratch);
    assert_true(fabs(d3 + 3.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mvn),
        cmocka_unit_test(test_channel_stats),
        cmocka_unit_test(test_det),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
