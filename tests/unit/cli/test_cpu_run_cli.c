/* tosac run MODEL.onnx: inputs by name and by position, outputs as DIR/<name>.npy, and the
 * one-line errors with exit status 2 for bad requests. The reference output is onnxruntime's
 * (shared zoo), which this small QDQ model matches exactly. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"

#define ZOO "models/synth_qdq_s8_op13_add/"

static void expect_same_npy(const char *got_path, const char *exp_path)
{
    tosac_tensor g, e;
    tosac_error err;
    assert_int_equal(tosac_npy_read(got_path, &g, &err), TOSAC_OK);
    assert_int_equal(tosac_npy_read(exp_path, &e, &err), TOSAC_OK);
    assert_int_equal(g.dtype, e.dtype);
    assert_int_equal(g.nbytes, e.nbytes);
    assert_memory_equal(g.data, e.data, e.nbytes);
    tosac_tensor_free(&g);
    tosac_tensor_free(&e);
}

static void test_run_named_and_positional(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), a[4096], b[4096], ia[4200], ib[4200], out[4200], exp[4096];
    snprintf(a, sizeof a, "%s", tu_shared(ZOO "inputs/00/a.npy"));
    snprintf(b, sizeof b, "%s", tu_shared(ZOO "inputs/00/b.npy"));
    snprintf(exp, sizeof exp, "%s", tu_shared(ZOO "expected/00/y.npy"));
    snprintf(ia, sizeof ia, "a=%s", a);
    snprintf(ib, sizeof ib, "b=%s", b);
    snprintf(out, sizeof out, "%s/y.npy", dir);
    char *se = NULL;
    /* by name, in the opposite order */
    int st = tu_cli(NULL, &se, "run", tu_shared(ZOO "model.onnx"), "--input", ib, "--input", ia,
                    "--output-dir", dir, NULL);
    assert_int_equal(st, 0);
    expect_same_npy(out, exp);
    free(se);
    remove(out);
    /* positional: graph input order a, b */
    st = tu_cli(NULL, &se, "run", tu_shared(ZOO "model.onnx"), "-i", a, "-i", b, "-o", dir, NULL);
    assert_int_equal(st, 0);
    expect_same_npy(out, exp);
    free(se);
    tu_rmtree(dir);
    free(dir);
}

static void test_run_errors(void **state)
{
    (void)state;
    char ia[4200], bad[4200];
    snprintf(ia, sizeof ia, "a=%s", tu_shared(ZOO "inputs/00/a.npy"));
    snprintf(bad, sizeof bad, "nosuch=%s", tu_shared(ZOO "inputs/00/a.npy"));
    char *dir = tu_mkdtemp(), *se = NULL;
    int st = tu_cli(NULL, &se, "run", tu_shared(ZOO "model.onnx"), "--input", ia, "-o", dir, NULL);
    assert_int_equal(st, 2);
    assert_non_null(strstr(se, "input 'b' is not given"));
    assert_int_equal(tu_count_lines(se), 1);
    free(se);
    st = tu_cli(NULL, &se, "run", tu_shared(ZOO "model.onnx"), "--input", bad, "-o", dir, NULL);
    assert_int_equal(st, 2);
    assert_non_null(strstr(se, "no input named 'nosuch'"));
    free(se);
    /* a float input where the model wants another shape: named, exit 2 */
    char wrong[4200];
    snprintf(wrong, sizeof wrong, "b=%s", tu_shared("models/synth_qdq_s8_op13_concat/inputs/00/b.npy"));
    st = tu_cli(NULL, &se, "run", tu_shared(ZOO "model.onnx"), "--input", ia, "--input", wrong,
                "-o", dir, NULL);
    assert_int_equal(st, 2);
    assert_non_null(strstr(se, "b.npy': input 'b' must be f32["));
    free(se);
    /* nothing was written by the failed runs */
    char out[4200];
    snprintf(out, sizeof out, "%s/y.npy", dir);
    FILE *f = fopen(out, "rb");
    assert_null(f);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_named_and_positional),
        cmocka_unit_test(test_run_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
