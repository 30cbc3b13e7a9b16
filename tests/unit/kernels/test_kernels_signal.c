/* Signal kernels on hand-derived values: windows, DFT (forward, onesided, inverse, padded and
 * truncated), STFT with and without a window, the mel filter bank. */
#include "testutil.h"

#include <math.h>

#include "kernels/signal.h"

static void near(const float *got, const float *want, int n)
{
    for (int i = 0; i < n; i++)
        if (fabsf(got[i] - want[i]) > 1e-6f)
            fail_msg("element %d is %.9g, expected %.9g", i, got[i], want[i]);
}

static void test_windows(void **state)
{
    (void)state;
    float y[4];
    /* periodic Hann of 4: 0.5 - 0.5 cos(2 pi n / 4) */
    kern_window(KERN_WIN_HANN, 4, 1, TOSAC_DT_F32, y);
    near(y, (float[]){0, 0.5f, 1, 0.5f}, 4);
    /* symmetric Hann of 3: period 2 */
    kern_window(KERN_WIN_HANN, 3, 0, TOSAC_DT_F32, y);
    near(y, (float[]){0, 1, 0}, 3);
    /* periodic Hamming of 2: 25/46 -/+ 21/46 */
    kern_window(KERN_WIN_HAMMING, 2, 1, TOSAC_DT_F32, y);
    near(y, (float[]){4.0f / 46, 1}, 2);
    /* symmetric Blackman of 3: 0.42 - 0.5 + 0.08 = 0 at the ends, 0.42 + 0.5 + 0.08 = 1 */
    kern_window(KERN_WIN_BLACKMAN, 3, 0, TOSAC_DT_F32, y);
    near(y, (float[]){0, 1, 0}, 3);
    /* a one-point symmetric window is its peak; other element types are written too */
    double d;
    kern_window(KERN_WIN_HANN, 1, 0, TOSAC_DT_F64, &d);
    assert_true(d == 1.0);
}

static void test_dft(void **state)
{
    (void)state;
    /* DFT of [1,2,3,4]: X0 = 10, X1 = -2+2i, X2 = -2, X3 = -2-2i */
    float x[4] = {1, 2, 3, 4}, y[8];
    kern_dft_params p = {1, 4, 1, 4, 4, 0, 0};
    kern_dft(&p, TOSAC_DT_F32, x, y);
    near(y, (float[]){10, 0, -2, 2, -2, 0, -2, -2}, 8);
    p.n_out = 3; /* onesided */
    kern_dft(&p, TOSAC_DT_F32, x, y);
    near(y, (float[]){10, 0, -2, 2, -2, 0}, 6);
    /* the inverse of the full spectrum gives the signal back (imaginary parts 0) */
    float spec[8] = {10, 0, -2, 2, -2, 0, -2, -2}, back[8];
    kern_dft_params inv = {1, 4, 1, 4, 4, 1, 1};
    kern_dft(&inv, TOSAC_DT_F32, spec, back);
    near(back, (float[]){1, 0, 2, 0, 3, 0, 4, 0}, 8);
    /* truncated to length 2: [1,2] -> [3, -1]; padded to 5 from [1]: all ones */
    kern_dft_params tr = {1, 4, 1, 2, 2, 0, 0};
    kern_dft(&tr, TOSAC_DT_F32, x, y);
    near(y, (float[]){3, 0, -1, 0}, 4);
    float one = 1, y5[10];
    kern_dft_params pad = {1, 1, 1, 5, 5, 0, 0};
    kern_dft(&pad, TOSAC_DT_F32, &one, y5);
    near(y5, (float[]){1, 0, 1, 0, 1, 0, 1, 0, 1, 0}, 10);
    /* along the middle axis of [1, 2, 2] (inner 2): columns [1,3] and [2,4] */
    float m[4] = {1, 2, 3, 4}, ym[8];
    kern_dft_params mid = {1, 2, 2, 2, 2, 0, 0};
    kern_dft(&mid, TOSAC_DT_F32, m, ym);
    near(ym, (float[]){4, 0, 6, 0, -2, 0, -2, 0}, 8);
}

static void test_stft(void **state)
{
    (void)state;
    /* frames of 2 every 2 samples over [1..5]: [1,2], [3,4]; bins: sum, difference */
    float x[5] = {1, 2, 3, 4, 5}, y[8];
    kern_stft_params p = {1, 5, 2, 2, 2, 2, 0};
    kern_stft(&p, TOSAC_DT_F32, x, NULL, y);
    near(y, (float[]){3, 0, -1, 0, 7, 0, -1, 0}, 8);
    /* window [1, 0] keeps the first sample of each frame in both bins */
    float w[2] = {1, 0};
    kern_stft(&p, TOSAC_DT_F32, x, w, y);
    near(y, (float[]){1, 0, 1, 0, 3, 0, 3, 0}, 8);
}

static void test_mel(void **state)
{
    (void)state;
    /* upper 4900 Hz = 700 * (2^3 - 1): the 3 mel points are 0, 700, 2100 Hz; with dft_length 8
     * and rate 5600 they snap to bins floor(9 * hz / 5600) = 0, 1, 3: rising 0 -> 1 over
     * bins 0..1, falling over 1..2 as (3 - j) / 2 */
    float y[5];
    assert_int_equal(kern_mel_weight_matrix(1, 8, 5600, 0, 4900, TOSAC_DT_F32, y), 0);
    near(y, (float[]){0, 1, 0.5f, 0, 0}, 5);
    /* at rate 2000 the top point is bin 22 of 5: refused */
    assert_int_equal(kern_mel_weight_matrix(1, 8, 2000, 0, 4900, TOSAC_DT_F32, y), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_dft),
        cmocka_unit_test(test_stft),
        cmocka_unit_test(test_mel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
