/* GridSample kernel on a 2x2 image [[0,1],[2,3]]: every mode and padding, worked by hand. */
#include "testutil.h"

#include "kernels/grid_sample.h"

static float run(kern_gs_mode mode, kern_gs_pad pad, int align, float gx, float gy)
{
    const float x[4] = {0, 1, 2, 3};
    float grid[2] = {gx, gy}, y;
    kern_grid_sample_params p = {1, 1, 2, 2, 1, 1, mode, pad, align};
    kern_grid_sample(&p, x, grid, &y);
    return y;
}

static void test_align_corners(void **state)
{
    (void)state;
    /* -1 and 1 are the corner pixel centres: the middle is the mean of all four */
    assert_true(run(KERN_GS_LINEAR, KERN_GS_ZEROS, 1, 0, 0) == 1.5f);
    assert_true(run(KERN_GS_LINEAR, KERN_GS_ZEROS, 1, -1, -1) == 0.0f);
    assert_true(run(KERN_GS_LINEAR, KERN_GS_ZEROS, 1, 1, 1) == 3.0f);
    /* nearest: (0.6, 0.4) -> pixel (row 0, col 1); (0.5, 0.5) rounds half to even -> (0, 0) */
    assert_true(run(KERN_GS_NEAREST, KERN_GS_ZEROS, 1, 0.2f, -0.2f) == 1.0f);
    assert_true(run(KERN_GS_NEAREST, KERN_GS_ZEROS, 1, 0, 0) == 0.0f);
    /* cubic at a pixel centre has weights 0,1,0,0: the pixel itself */
    assert_true(run(KERN_GS_CUBIC, KERN_GS_ZEROS, 1, 1, -1) == 1.0f);
}

static void test_padding(void **state)
{
    (void)state;
    /* without align_corners (1, -1) is the top-right image corner (x 1.5, y -0.5): half
     * of the taps fall outside */
    assert_true(run(KERN_GS_LINEAR, KERN_GS_ZEROS, 0, 1, -1) == 0.25f); /* 0.5 * 0.5 * 1 */
    assert_true(run(KERN_GS_LINEAR, KERN_GS_BORDER, 0, 1, -1) == 1.0f); /* clamped to (0, 1) */
    assert_true(run(KERN_GS_LINEAR, KERN_GS_REFLECTION, 0, 1, -1) == 1.0f); /* taps mirror to (0, 1) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_align_corners),
        cmocka_unit_test(test_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
