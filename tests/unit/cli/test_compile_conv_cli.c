/* End to end through the CLI: the zoo's int8 QDQ conv under TOSA-1.0+INT. compile (report,
 * emitted .tosa + .json), run the program, compare with onnxruntime's output
 * (one output step, lc_tol), and read the emitted .tosa back. */
#include "lower_core_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "tosac/tosa.h"
#include "util/fileio.h"

#define MODEL "models/synth_qdq_s8_op13_conv"

static int count(const char *hay, const char *needle)
{
    int n = 0;
    size_t at = 0, nl = strlen(needle), hl = strlen(hay);
    for (; at + nl <= hl; at++)
        n += memcmp(hay + at, needle, nl) == 0;
    return n;
}

static void test_compile_run_conv(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char prg[512], emit[512], rep[512], out[512], in[512], exp[512];
    snprintf(prg, sizeof prg, "%s/conv.prg", dir);
    snprintf(emit, sizeof emit, "%s/emit", dir);
    snprintf(rep, sizeof rep, "%s/report.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(in, sizeof in, "x=%s", tu_shared(MODEL "/inputs/00/x.npy"));
    snprintf(exp, sizeof exp, "%s", tu_shared(MODEL "/expected/00/y.npy"));
    char *model = strdup(tu_shared(MODEL "/model.onnx"));
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--emit-tosa", emit, "--report", rep, NULL), 0);
    /* report: the Conv is delegated; the input Q and output DQ stay on the CPU; the other
     * Q/DQ nodes are folded */
    char *r = tu_slurp(rep);
    assert_int_equal(count(r, "\"placement\": \"delegate\""), 1);
    assert_int_equal(count(r, "\"placement\": \"cpu\""), 2);
    assert_int_equal(count(r, "\"placement\": \"folded\""), 4);
    assert_non_null(strstr(r, "\"name\": \"Conv_4\""));
    free(r);
    /* metadata: quantized int8 boundary with the model's parameters */
    char path[600];
    snprintf(path, sizeof path, "%s/0.json", emit);
    char *meta = tu_slurp(path);
    assert_non_null(strstr(meta, "\"name\": \"x_q\""));
    assert_non_null(strstr(meta, "\"dtype\": \"int8\""));
    assert_non_null(strstr(meta, "\"zero_point\": 3"));
    assert_non_null(strstr(meta, "\"zero_point\": -13"));
    free(meta);
    /* the emitted graph reads back: CONV2D with an i32 accumulator, per-channel RESCALE */
    snprintf(path, sizeof path, "%s/0.tosa", emit);
    tosa_graph *tg = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_read_file(path, &tg, &err), TOSAC_OK);
    const tosa_block *b = tosa_graph_main_block(tg);
    int convs = 0, rescales = 0;
    for (int i = 0; i < b->n_ops; i++) {
        if (b->ops[i].op == TOSA_OP_CONV2D) {
            convs++;
            assert_int_equal(b->ops[i].attr.acc_type, TOSAC_DT_I32);
            assert_int_equal(b->tensors[b->ops[i].inputs[0]].dtype, TOSAC_DT_I8);
        }
        if (b->ops[i].op == TOSA_OP_RESCALE) {
            rescales++;
            assert_true(b->ops[i].attr.per_channel);
        }
    }
    assert_int_equal(convs, 1);
    assert_int_equal(rescales, 1);
    tosa_graph_free(tg);
    /* run and compare with onnxruntime */
    assert_int_equal(tu_cli(NULL, NULL, "run", prg, "--input", in, "--output-dir", out, NULL), 0);
    snprintf(path, sizeof path, "%s/y.npy", out);
    tosac_tensor y, e;
    assert_int_equal(tosac_npy_read(path, &y, &err), TOSAC_OK);
    assert_int_equal(tosac_npy_read(exp, &e, &err), TOSAC_OK);
    assert_int_equal(y.dtype, TOSAC_DT_F32);
    assert_int_equal(tosac_tensor_numel(&y), tosac_tensor_numel(&e));
    const double scale = 0.0514178164; /* y_scale of the model's last QuantizeLinear */
    for (int64_t i = 0; i < tosac_tensor_numel(&y); i++) {
        double a = ((float *)y.data)[i], x = ((float *)e.data)[i];
        assert_true(fabs(a - x) <= lc_tol(1, scale, x, 0)); /* one output step */
    }
    tosac_tensor_free(&y);
    tosac_tensor_free(&e);
    free(model);
    tu_rmtree(dir);
    free(dir);
}

static void test_compile_bad_args(void **state)
{
    (void)state;
    char *errout = NULL;
    char *model = strdup(tu_shared(MODEL "/model.onnx"));
    assert_int_equal(tu_cli(NULL, &errout, "compile", model, "-o", "/tmp/x.prg", NULL), 2);
    assert_non_null(strstr(errout, "--spec is required"));
    free(errout);
    assert_int_equal(tu_cli(NULL, &errout, "compile", model, "--spec", "TOSA-9.9+INT", "-o",
                            "/tmp/x.prg", NULL), 2);
    assert_non_null(strstr(errout, "tosac: error:"));
    free(errout);
    free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_run_conv),
        cmocka_unit_test(test_compile_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
