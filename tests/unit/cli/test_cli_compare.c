/* tosac compare: the figures for hand-made arrays (values chosen so every figure is exact),
 * the exit status (0 within tolerance, 1 outside, 2 cannot compare), --qtol/--scale, and
 * its errors. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"

static void write_f32(const char *path, int rank, const int64_t *shape, const float *v)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, rank, shape, &err), TOSAC_OK);
    memcpy(t.data, v, t.nbytes);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    tosac_tensor_free(&t);
}

static void test_figures(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), a[512], b[512], *out = NULL;
    snprintf(a, sizeof a, "%s/ref.npy", dir);
    snprintf(b, sizeof b, "%s/res.npy", dir);
    int64_t shape[2] = {2, 2};
    /* rows: ref [1, 2] / [4, 3]; res [1, 2.5] / [3.875, 4]:
     * diffs 0, 0.5, 0.125, 1 -> max 1, max_rel 1/4, mean 1.625/4 = 0.40625;
     * argmax row 0: 1 vs 1 (agree), row 1: 0 vs 1 (disagree); 3 elements exceed 1e-3+1e-3|ref|;
     * cosine 33.5 / sqrt(30 * 38.265625) = 0.988735; SQNR 10 log10(30 / 1.265625) = 13.7482 dB */
    write_f32(a, 2, shape, (const float[]){1, 2, 4, 3});
    write_f32(b, 2, shape, (const float[]){1, 2.5f, 3.875f, 4});
    assert_int_equal(tu_cli(&out, NULL, "compare", a, b, NULL), 1);
    assert_non_null(strstr(out, "shape: [2,2]\n"));
    assert_non_null(strstr(out, "max_abs_diff: 1\n"));
    assert_non_null(strstr(out, "max_rel_diff: 0.25\n"));
    assert_non_null(strstr(out, "mean_abs_diff: 0.40625\n"));
    assert_non_null(strstr(out, "argmax_agree: 1/2\n"));
    assert_non_null(strstr(out, "cosine: 0.988735\n"));
    assert_non_null(strstr(out, "sqnr_db: 13.7482\n"));
    assert_non_null(strstr(out, "outside_tolerance: 3\n"));
    assert_non_null(strstr(out, "within_tolerance: no"));
    free(out);
    /* a loose tolerance admits everything */
    assert_int_equal(tu_cli(&out, NULL, "compare", a, b, "--atol", "1", NULL), 0);
    assert_non_null(strstr(out, "within_tolerance: yes"));
    free(out);
    /* 2 steps of 0.5: atol 1.001 admits the diff of 1; 1 step (0.501 + 0.003) does not */
    assert_int_equal(tu_cli(&out, NULL, "compare", a, b, "--qtol", "2", "--scale", "0.5", NULL), 0);
    assert_non_null(strstr(out, "within_tolerance: yes (atol 1.001 "));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "compare", a, b, "--qtol", "1", "--scale", "0.5", NULL), 1);
    assert_non_null(strstr(out, "outside_tolerance: 1\n"));
    free(out);
    /* equal arrays: cosine 1, no error energy */
    assert_int_equal(tu_cli(&out, NULL, "compare", a, a, NULL), 0);
    assert_non_null(strstr(out, "cosine: 1\n"));
    assert_non_null(strstr(out, "sqnr_db: inf\n"));
    free(out);
    tu_rmtree(dir);
    free(dir);
}

static void test_errors(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), a[512], b[512], *errs = NULL;
    snprintf(a, sizeof a, "%s/a.npy", dir);
    snprintf(b, sizeof b, "%s/b.npy", dir);
    write_f32(a, 1, (const int64_t[]){2}, (const float[]){1, 2});
    write_f32(b, 1, (const int64_t[]){1}, (const float[]){1});
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, b, NULL), 2);
    assert_non_null(strstr(errs, "shapes differ"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, NULL), 2);
    assert_non_null(strstr(errs, "two .npy files"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, a, "--rtol", "-1", NULL), 2);
    assert_non_null(strstr(errs, "non-negative"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, a, "--qtol", "1", NULL), 2);
    assert_non_null(strstr(errs, "--qtol N and --scale S go together"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, a, "--qtol", "1", "--scale", "0.1",
                            "--atol", "0.1", NULL), 2);
    assert_non_null(strstr(errs, "--atol and --qtol"));
    free(errs);
    assert_int_equal(tu_cli(NULL, &errs, "compare", a, "/nonexistent.npy", NULL), 2);
    assert_non_null(strstr(errs, "/nonexistent.npy"));
    free(errs);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
