/* tosac run / bench PROGRAM with --threads N and --reference, and TOSAC_KERNEL_ISA.
 *
 * - test_same_bytes: a compiled QDQ convolution (zoo synth_qdq_s8_op13_conv, sample 00) run
 *   plainly, with --reference, with --threads 3, and with TOSAC_KERNEL_ISA=portable on
 *   --threads 2 writes byte-identical output files (a kernel or a thread split that changes
 *   one bit fails here).
 * - test_bench_figures: bench prints the threads it was given and the kernels it used
 *   (`kernels: reference` with --reference, the forced variant's name with TOSAC_KERNEL_ISA).
 * - test_errors: --threads without a value, 0, 257, a non-number, and --threads/--reference
 *   on an ONNX model are exit 2 with one line naming the problem. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

#define MODEL "models/synth_qdq_s8_op13_conv"

static char *dir, prog[1024], input[1024];

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp();
    snprintf(prog, sizeof prog, "%s", tu_join(dir, "conv.prg"));
    snprintf(input, sizeof input, "%s", tu_shared(MODEL "/inputs/00/x.npy"));
    char model[1024];
    snprintf(model, sizeof model, "%s", tu_shared(MODEL "/model.onnx"));
    return tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prog, "--quiet",
                  NULL);
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(dir);
    return 0;
}

typedef struct file {
    void *data;
    size_t len;
} file;

/* Runs the program into dir/<sub> with the extra arguments (up to 2); returns its output. */
static file run_into(const char *sub, const char *a1, const char *a2)
{
    char out[1024];
    snprintf(out, sizeof out, "%s", tu_join(dir, sub));
    const char *args[] = {"run", prog, "--input", input, "--output-dir", out, a1, a2, NULL};
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, args);
    if (rc != 0)
        fail_msg("tosac run %s %s: exit %d: %s", a1 ? a1 : "", a2 ? a2 : "", rc, errs);
    free(errs);
    file f = {NULL, 0};
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(tu_join(out, "y.npy"), &f.data, &f.len, &err), TOSAC_OK);
    return f;
}

static void assert_same_file(file a, file b)
{
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
}

static void test_same_bytes(void **state)
{
    (void)state;
    file plain = run_into("plain", NULL, NULL);
    file ref = run_into("ref", "--reference", NULL);
    file t3 = run_into("t3", "--threads", "3");
    setenv("TOSAC_KERNEL_ISA", "portable", 1);
    file port = run_into("port", "--threads", "2");
    unsetenv("TOSAC_KERNEL_ISA");
    assert_int_equal(ref.len, 128 + 4 * 16 * 10 * 10); /* the .npy of float32 [1,16,10,10] */
    assert_same_file(plain, ref);
    assert_same_file(t3, ref);
    assert_same_file(port, ref);
    free(plain.data);
    free(ref.data);
    free(t3.data);
    free(port.data);
}

static void test_bench_figures(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "bench", prog, "--runs", "2", "--warmup", "0",
                            "--threads", "2", NULL), 0);
    assert_non_null(strstr(out, "threads: 2\n"));
    assert_null(strstr(out, "kernels: reference"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "bench", prog, "--runs", "2", "--reference", NULL), 0);
    assert_non_null(strstr(out, "kernels: reference\n"));
    free(out);
    setenv("TOSAC_KERNEL_ISA", "portable", 1);
    assert_int_equal(tu_cli(&out, NULL, "bench", prog, "--runs", "2", NULL), 0);
    unsetenv("TOSAC_KERNEL_ISA");
    assert_non_null(strstr(out, "threads: 1\nkernels: portable\n"));
    free(out);
}

static void test_errors(void **state)
{
    (void)state;
    char model[1024];
    snprintf(model, sizeof model, "%s", tu_shared(MODEL "/model.onnx"));
    const char *o = tu_join(dir, "never");
    tu_cli_expect_exit2("--threads needs a value",
                        (const char *[]){"run", prog, "--input", input, "--threads", NULL});
    tu_cli_expect_exit2("--threads takes a whole number from 1 to 256, not '0'",
                        (const char *[]){"run", prog, "--input", input, "--threads", "0", NULL});
    tu_cli_expect_exit2("not '257'",
                        (const char *[]){"run", prog, "--input", input, "--threads", "257", NULL});
    tu_cli_expect_exit2("not 'two'",
                        (const char *[]){"bench", prog, "--threads", "two", NULL});
    tu_cli_expect_exit2("--threads applies to programs, not to running ONNX models",
                        (const char *[]){"run", model, "--input", input, "--output-dir", o,
                                         "--threads", "2", NULL});
    tu_cli_expect_exit2("--reference applies to programs, not to running ONNX models",
                        (const char *[]){"run", model, "--input", input, "--output-dir", o,
                                         "--reference", NULL});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_bench_figures),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
