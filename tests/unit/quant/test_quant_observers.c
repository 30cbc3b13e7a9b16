/* The calibration observers (moving average, histogram, percentile, MSE, entropy), the SQNR
 * measure and --calib-method parsing, on data whose answer is worked out in the comments. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant/quant_internal.h"

static void test_moving_average(void **state)
{
    (void)state;
    quant_range r;
    quant_range_init(&r);
    const float s0[3] = {-1.0f, 0.5f, 1.0f}, s1[3] = {-3.0f, NAN, 3.0f}, s2[2] = {NAN, INFINITY};
    quant_ema_observe(&r, s0, 3); /* the first sample sets the range */
    assert_true(r.seen && r.lo == -1.0f && r.hi == 1.0f);
    /* then 1% of the way to each sample's range: 1 + 0.01 * (3 - 1) = 1.02 */
    quant_ema_observe(&r, s1, 3);
    assert_float_equal(r.lo, -1.02f, 1e-7);
    assert_float_equal(r.hi, 1.02f, 1e-7);
    quant_ema_observe(&r, s2, 2); /* a sample with no finite value moves nothing */
    assert_float_equal(r.hi, 1.02f, 1e-7);
}

static void test_histogram_bins(void **state)
{
    (void)state;
    quant_hist *h = malloc(sizeof *h);
    quant_range r = {0.5f, 4.0f, true}; /* extended to [0, 4]: width 4 / 2048 */
    assert_true(quant_hist_init(h, &r));
    assert_true(h->lo == 0.0 && h->hi == 4.0 && h->width == 4.0 / 2048);
    const float x[6] = {0.0f, 0.0f, 1.0f, 4.0f, INFINITY, 0.001f};
    quant_hist_observe(h, x, 6);
    assert_true(h->zeros == 2);         /* zeros apart */
    assert_true(h->bins[512] == 1);     /* 1.0 = 512 widths */
    assert_true(h->bins[2047] == 1);    /* the top edge lands in the last bin */
    assert_true(h->bins[0] == 1);       /* 0.001 < one width (0.00195) */
    double total = 0;
    for (int b = 0; b < QUANT_HIST_BINS; b++)
        total += h->bins[b];
    assert_true(total == 3); /* inf skipped */
    quant_range none = {0.0f, 0.0f, true};
    assert_false(quant_hist_init(h, &none)); /* all zeros: nothing to search */
    free(h);
}

/* 9999 values of 1.0 and one of 100: bins of 100/2048, 1.0 in bin 20 ([0.977, 1.025)). */
static quant_hist *outlier_hist(void)
{
    quant_hist *h = malloc(sizeof *h);
    quant_range r = {1.0f, 100.0f, true};
    assert_true(quant_hist_init(h, &r));
    float *x = malloc(10000 * sizeof *x);
    for (int i = 0; i < 9999; i++)
        x[i] = 1.0f;
    x[9999] = 100.0f;
    quant_hist_observe(h, x, 10000);
    free(x);
    return h;
}

static void test_percentile(void **state)
{
    (void)state;
    quant_hist *h = outlier_hist();
    quant_range out;
    /* 99.99: the top quantile wants 9999 values, all in bin 20: its upper edge 21 widths */
    quant_hist_percentile(h, 99.99, &out);
    assert_true(out.seen && out.lo == 0.0f);
    assert_float_equal(out.hi, (float)(21 * 100.0 / 2048), 1e-6);
    /* 100: the last value's bin (2047) upper edge, the min/max range */
    quant_hist_percentile(h, 100.0, &out);
    assert_float_equal(out.hi, 100.0f, 1e-4);
    free(h);
    /* both tails: 1000 values evenly over [-1, 1) and 99.9 clips half a value at each end,
     * inside the first and last non-empty bins */
    h = malloc(sizeof *h);
    quant_range r = {-1.0f, 1.0f, true};
    assert_true(quant_hist_init(h, &r));
    float x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = -1.0f + (float)i * 0.002f + 0.001f;
    quant_hist_observe(h, x, 1000);
    quant_hist_percentile(h, 99.9, &out);
    assert_true(out.lo > -1.0f && out.lo < -0.997f);
    assert_true(out.hi < 1.0f && out.hi > 0.997f);
    free(h);
}

/* 1e6 values evenly over [-1, 1] and one at each of -8 and 8. For a8w8 and a clip at +-t
 * (t >= 1) the expected error is 1e6 (2t/255)^2 / 12 + 2 (8 - t)^2, least at
 * t = 32 / (4 + 8e6 / (255^2 * 12)) = 2.245; the candidates are 8 k / 128, the nearest
 * 2.25 (k = 36). For a16w8 the step error is 2^16 times smaller and the full range wins. */
static void test_mse(void **state)
{
    (void)state;
    quant_hist *h = malloc(sizeof *h);
    quant_range r = {-8.0f, 8.0f, true};
    assert_true(quant_hist_init(h, &r));
    const int n = 1000000;
    float *x = malloc((size_t)(n + 2) * sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = -1.0f + 2.0f * ((float)i + 0.5f) / (float)n;
    x[n] = -8.0f;
    x[n + 1] = 8.0f;
    quant_hist_observe(h, x, n + 2);
    free(x);
    quant_range out;
    quant_hist_mse(h, QUANT_A8W8, &out);
    assert_true(out.lo == -2.25f && out.hi == 2.25f);
    quant_hist_mse(h, QUANT_A16W8, &out);
    assert_true(out.lo == -8.0f && out.hi == 8.0f);
    free(h);
    /* a one-sided range searches one side only: [0, hi] stays anchored at 0 */
    h = outlier_hist();
    quant_hist_mse(h, QUANT_A8W8, &out);
    /* 9999 ones and the outlier at its bin centre c = 100 - 100/4096: clipping at t costs
     * (c - t)^2 and saves step error 9999 (t / 255)^2 / 12; over t = 100 k / 128 the sum is
     * 127.59, 126.53, 126.72, 128.1 for k = 125 .. 128: k = 126, t = 98.4375 */
    assert_true(out.lo == 0.0f && out.hi == 98.4375f);
    free(h);
}

static void test_entropy(void **state)
{
    (void)state;
    quant_hist *h = malloc(sizeof *h);
    quant_range out;
    /* values evenly over [-1, 1]: every level's bins are equally full, so Q = P at the full
     * range (KL 0), and clipping only adds outlier mass Q lacks: the full range */
    quant_range r = {-1.0f, 1.0f, true};
    assert_true(quant_hist_init(h, &r));
    float *x = malloc(100000 * sizeof *x);
    for (int i = 0; i < 100000; i++)
        x[i] = -1.0f + 2.0f * ((float)i + 0.5f) / 100000.0f;
    quant_hist_observe(h, x, 100000);
    quant_hist_entropy(h, QUANT_A8W8, &out);
    assert_true(out.lo == -1.0f && out.hi == 1.0f);
    /* a sharp peak (Laplace, scale 0.02) with a sparse tail to 1: the coarse full-range levels
     * (8 bins each) flatten the peak, so the search clips, yet keeps the bulk: 99% of a
     * Laplace(0.02) lies within 0.02 ln 100 = 0.092 */
    memset(h->bins, 0, sizeof h->bins);
    h->zeros = 0;
    for (int i = 0; i < 100000; i++) {
        double u = ((double)i + 0.5) / 100000.0; /* inverse CDF of a Laplace(0, 0.02) */
        x[i] = (float)(u < 0.5 ? 0.02 * log(2 * u) : -0.02 * log(2 * (1 - u)));
    }
    x[0] = -1.0f;
    x[99999] = 1.0f;
    quant_hist_observe(h, x, 100000);
    quant_hist_entropy(h, QUANT_A8W8, &out);
    assert_true(out.hi < 1.0f && out.hi > 0.092f);
    assert_true(out.lo > -1.0f && out.lo < -0.092f);
    /* int16 levels are finer than the bins: nothing to gain from clipping */
    quant_hist_entropy(h, QUANT_A16W8, &out);
    assert_true(out.lo == -1.0f && out.hi == 1.0f);
    free(x);
    free(h);
}

static void test_sqnr(void **state)
{
    (void)state;
    /* scale 0.5, zp 0 int8: 1.25 -> 1.0 (half to even of 2.5 = 2), 0.5 exact, 100 -> 63.5 */
    quant_qparams qp = {0.5f, 0, TOSAC_DT_I8};
    quant_sqnr s = {0, 0};
    const float x[3] = {1.25f, 0.5f, NAN};
    quant_sqnr_add(&s, &qp, x, 3); /* NaN left out */
    assert_true(s.signal == 1.25 * 1.25 + 0.25 && s.noise == 0.0625);
    assert_float_equal(quant_sqnr_db(&s), 10 * log10(1.8125 / 0.0625), 1e-9);
    const float big = 100.0f; /* saturation is error too: 100 - 63.5 */
    quant_sqnr_add(&s, &qp, &big, 1);
    assert_float_equal(s.noise, 0.0625 + 36.5 * 36.5, 1e-9);
    quant_sqnr exact = {4.0, 0.0};
    assert_true(isinf(quant_sqnr_db(&exact)) && quant_sqnr_db(&exact) > 0);
}

static void test_parse_method(void **state)
{
    (void)state;
    quant_options o = {0};
    tosac_error err;
    const char *names[] = {"minmax", "moving-average", "percentile", "mse", "entropy"};
    const quant_calib_method want[] = {QUANT_CALIB_MINMAX, QUANT_CALIB_MOVING_AVG,
                                       QUANT_CALIB_PERCENTILE, QUANT_CALIB_MSE,
                                       QUANT_CALIB_ENTROPY};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(quant_parse_method(names[i], &o, &err), TOSAC_OK);
        assert_int_equal(o.method, want[i]);
        assert_string_equal(quant_method_name(o.method), names[i]);
    }
    assert_int_equal(quant_parse_method("percentile=99.9", &o, &err), TOSAC_OK);
    assert_true(o.method == QUANT_CALIB_PERCENTILE && o.percentile == 99.9);
    const char *bad[] = {"percentile=0", "percentile=101", "percentile=", "percentile=9x",
                         "MinMax", "kl"};
    for (int i = 0; i < 6; i++) {
        tosac_error_clear(&err);
        assert_int_equal(quant_parse_method(bad[i], &o, &err), TOSAC_ERR_INPUT);
        assert_non_null(strstr(err.msg, bad[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moving_average), cmocka_unit_test(test_histogram_bins),
        cmocka_unit_test(test_percentile),     cmocka_unit_test(test_mse),
        cmocka_unit_test(test_entropy),        cmocka_unit_test(test_sqnr),
        cmocka_unit_test(test_parse_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
