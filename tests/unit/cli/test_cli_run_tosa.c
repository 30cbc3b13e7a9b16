/* tosac run GRAPH.tosa on conformance graphs: outputs written byte-identical to the
 * reference model's expected .npy files (int48 as int64, bool, f16, f32), named and
 * positional binding, the output directory (created; "." by default), and every
 * input-binding error with exit 2 and nothing written. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tosac/npy.h"
#include "tosac/tosa.h"
#include "util/fileio.h"

#define CONF "conformance/identity/"

static char *conf(const char *test, const char *file)
{
    char rel[512];
    snprintf(rel, sizeof rel, CONF "%s/%s", test, file);
    return strdup(tu_shared(rel));
}

static void assert_same_file(const char *a, const char *b)
{
    void *da, *db;
    size_t la, lb;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(a, &da, &la, &err), TOSAC_OK);
    assert_int_equal(tosac_read_file(b, &db, &lb, &err), TOSAC_OK);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Runs one identity test with its input given as `input_arg_fmt` (%s = the input path),
 * into a fresh nested output directory, and compares with expected-0.npy. */
static void run_identity(const char *test, const char *input_fmt)
{
    char *graph = conf(test, "test.tosa"), *input = conf(test, "input-0.npy");
    char *expected = conf(test, "expected-0.npy");
    char *dir = tu_mkdtemp();
    char outdir[600], arg[1200], outfile[700];
    snprintf(outdir, sizeof outdir, "%s/x/y", dir);
    snprintf(arg, sizeof arg, input_fmt, input);
    char *out = NULL, *errout = NULL;
    int rc = tu_cli(&out, &errout, "run", graph, "--input", arg, "--output-dir", outdir, NULL);
    if (rc != 0)
        fail_msg("tosac run failed: %s", errout);
    snprintf(outfile, sizeof outfile, "%s/result-0.npy", outdir);
    assert_same_file(outfile, expected);
    assert_non_null(strstr(out, "result-0.npy"));
    free(out);
    free(errout);
    tu_rmtree(dir);
    free(dir);
    free(graph);
    free(input);
    free(expected);
}

static void test_positional_and_named(void **state)
{
    (void)state;
    run_identity("identity_1x4_i48", "%s");          /* int48 read from and written as int64 */
    run_identity("identity_1x4_i48", "input-0=%s");
    run_identity("identity_4x4x2x1x4_b", "%s");      /* bool */
    run_identity("identity_2x2x2x1x1x1_f16", "%s");  /* float16 */
    run_identity("identity_2x1x2x2_f32", "input-0=%s");
    run_identity("identity_8_i16", "%s");
}

static void test_no_inputs_default_dir(void **state)
{
    (void)state;
    char *graph = conf("identity_3x9x1_b", "test.tosa"), *expected = conf("identity_3x9x1_b", "expected-0.npy");
    char *dir = tu_mkdtemp();
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    int rc = tu_cli(NULL, NULL, "run", graph, NULL);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    char outfile[4200];
    snprintf(outfile, sizeof outfile, "%s/result-0.npy", dir);
    assert_same_file(outfile, expected);
    tu_rmtree(dir);
    free(dir);
    free(graph);
    free(expected);
}

/* Expects exit 2 with msg in stderr and no output directory created. */
static void expect_error(const char *msg, const char *const *args)
{
    char *dir = tu_mkdtemp();
    char outdir[600];
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    const char *argv[16];
    int n = 0;
    for (; args[n]; n++)
        argv[n] = args[n];
    argv[n++] = "-o";
    argv[n++] = outdir;
    argv[n] = NULL;
    char *errout = NULL;
    int rc = tu_cli_argv(NULL, &errout, argv);
    assert_int_equal(rc, 2);
    if (!strstr(errout, msg))
        fail_msg("expected '%s' in: %s", msg, errout);
    assert_int_equal(tu_count_lines(errout), 1);
    assert_false(exists(outdir));
    free(errout);
    tu_rmtree(dir);
    free(dir);
}

static char *write_npy(const char *dir, const char *name, tosac_dtype dt, int rank,
                       const int64_t *shape, int64_t fill)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_tensor_alloc(&t, dt, rank, shape, &err), TOSAC_OK);
    if (dt == TOSAC_DT_I64)
        for (int64_t i = 0; i < tosac_tensor_numel(&t); i++)
            ((int64_t *)t.data)[i] = fill;
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    tosac_tensor_free(&t);
    return strdup(path);
}

static void test_binding_errors(void **state)
{
    (void)state;
    char *graph = conf("identity_1x4_i48", "test.tosa"), *input = conf("identity_1x4_i48", "input-0.npy");
    char named[1200];
    snprintf(named, sizeof named, "foo=%s", input);
    expect_error("tosac: error: the graph has no input named 'foo'",
                 (const char *const[]){"run", graph, "--input", named, NULL});
    expect_error("tosac: error: input 'input-0' is missing (--input input-0=FILE.npy)",
                 (const char *const[]){"run", graph, NULL});
    expect_error("tosac: error: too many inputs: the graph takes 1",
                 (const char *const[]){"run", graph, "-i", input, "-i", input, NULL});
    snprintf(named, sizeof named, "input-0=%s", input);
    expect_error("tosac: error: input 'input-0' is given twice",
                 (const char *const[]){"run", graph, "-i", named, "-i", named, NULL});
    expect_error("tosac: error: unknown option '--bogus'",
                 (const char *const[]){"run", graph, "--bogus", NULL});
    char *tmp = tu_mkdtemp();
    const int64_t s14[2] = {1, 4}, s41[2] = {4, 1};
    char *i8 = write_npy(tmp, "i8.npy", TOSAC_DT_I8, 2, s14, 0);
    expect_error("i8.npy': input 'input-0': the data is i8, the graph declares i48",
                 (const char *const[]){"run", graph, "-i", i8, NULL});
    char *wrong_shape = write_npy(tmp, "shape.npy", TOSAC_DT_I64, 2, s41, 0);
    expect_error("shape.npy': input 'input-0' must be [1,4], got i64[4,1]",
                 (const char *const[]){"run", graph, "-i", wrong_shape, NULL});
    char *big = write_npy(tmp, "big.npy", TOSAC_DT_I64, 2, s14, (int64_t)1 << 47);
    expect_error("big.npy': input 'input-0': value 140737488355328 at element 0 is out of i48 range",
                 (const char *const[]){"run", graph, "-i", big, NULL});
    free(i8);
    free(wrong_shape);
    free(big);
    tu_rmtree(tmp);
    free(tmp);
    free(graph);
    free(input);
}

/* Writes dir/g.tosa: inputs "a" and "b:1" (i8[3]); outputs out0 = IDENTITY(a),
 * out1 = IDENTITY(b:1), named as given. */
static char *two_io_graph(const char *dir, const char *out0, const char *out1)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *m = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t s3 = 3;
    int a = tosa_block_add_tensor(m, "a", TOSAC_DT_I8, 1, &s3, NULL, 0, &err);
    int b = tosa_block_add_tensor(m, "b:1", TOSAC_DT_I8, 1, &s3, NULL, 0, &err);
    int y0 = tosa_block_add_tensor(m, out0, TOSAC_DT_I8, 1, &s3, NULL, 0, &err);
    int y1 = tosa_block_add_tensor(m, out1, TOSAC_DT_I8, 1, &s3, NULL, 0, &err);
    tosa_attr attr;
    memset(&attr, 0, sizeof attr);
    assert_true(tosa_block_add_op(m, TOSA_OP_IDENTITY, &attr, &a, 1, &y0, 1, &err) >= 0);
    assert_true(tosa_block_add_op(m, TOSA_OP_IDENTITY, &attr, &b, 1, &y1, 1, &err) >= 0);
    int ins[2] = {a, b}, outs[2] = {y0, y1};
    assert_int_equal(tosa_block_set_io(m, ins, 2, outs, 2, &err), TOSAC_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/g.tosa", dir);
    if (tosa_graph_write_file(g, path, &err) != TOSAC_OK)
        fail_msg("write: %s", err.msg);
    tosa_graph_free(g);
    return strdup(path);
}

static char *i8_file(const char *dir, const char *name, int8_t base)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    const int64_t s3 = 3;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_I8, 1, &s3, &err), TOSAC_OK);
    for (int i = 0; i < 3; i++)
        ((int8_t *)t.data)[i] = (int8_t)(base + i);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    tosac_tensor_free(&t);
    return strdup(path);
}

/* Runs with the two --input values and checks out/x.npy holds base_a.. and y_z.npy base_b.. */
static void run_two(const char *dir, const char *graph, const char *in1, const char *in2,
                    int8_t want0, int8_t want1)
{
    char outdir[700];
    snprintf(outdir, sizeof outdir, "%s/o", dir);
    char *errout = NULL;
    int rc = tu_cli(NULL, &errout, "run", graph, "-i", in1, "-i", in2, "-o", outdir, NULL);
    if (rc != 0)
        fail_msg("tosac run: %s", errout);
    free(errout);
    const char *files[2] = {"out_x.npy", "y_z.npy"};
    const int8_t want[2] = {want0, want1};
    for (int k = 0; k < 2; k++) {
        char path[800];
        snprintf(path, sizeof path, "%s/%s", outdir, files[k]);
        tosac_tensor t;
        tosac_error err;
        tosac_error_clear(&err);
        assert_int_equal(tosac_npy_read(path, &t, &err), TOSAC_OK);
        assert_int_equal(t.dtype, TOSAC_DT_I8);
        for (int i = 0; i < 3; i++)
            assert_int_equal(((int8_t *)t.data)[i], want[k] + i);
        tosac_tensor_free(&t);
    }
    tu_rmtree(outdir);
}

static void test_two_inputs_and_sanitized_names(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char *graph = two_io_graph(dir, "out/x", "y z");
    char *fa = i8_file(dir, "A.npy", 10), *fb = i8_file(dir, "B.npy", 20);
    char na[700], nb[700];
    snprintf(na, sizeof na, "a=%s", fa);
    snprintf(nb, sizeof nb, "b:1=%s", fb);
    run_two(dir, graph, fa, fb, 10, 20); /* positional: graph order */
    run_two(dir, graph, fb, fa, 20, 10);
    run_two(dir, graph, nb, na, 10, 20); /* named, in any order */
    run_two(dir, graph, nb, fa, 10, 20); /* positional fills the remaining input */
    free(graph);
    /* two outputs whose file names collide: refused before anything is written */
    graph = two_io_graph(dir, "p/q", "p_q");
    expect_error("tosac: error: outputs 'p/q' and 'p_q' would both be written to",
                 (const char *const[]){"run", graph, "-i", fa, "-i", fb, NULL});
    free(graph);
    free(fa);
    free(fb);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positional_and_named),
        cmocka_unit_test(test_no_inputs_default_dir),
        cmocka_unit_test(test_binding_errors),
        cmocka_unit_test(test_two_inputs_and_sanitized_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
