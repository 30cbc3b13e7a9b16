/* Quantization diagnostics through the CLI (issue 11), on the bundled PP-OCR classifier
 * (examples/ppocr_cls), quantized a8w8 on samples 00-03:
 * - tosac run MODEL.onnx --dump-intermediates: the input and output as given and written,
 *   no constants, a Conv whose Relu the executor fused only under the Relu's name;
 * - tosac run PROGRAM --dump-intermediates: the raw input_quantized is the input quantized
 *   by hand; every dequantized value is (raw - zero_point) * scale of its raw tensor, in the
 *   ONNX layout (channels-last delegate tensors transposed back), and every quantized tensor
 *   the report lists is found, but one named below;
 * - tosac compare DIR DIR: figures of hand-made dumps, the first tensor below the threshold,
 *   and its errors;
 * - compile --int-io: signature scale/zero point as the report's, integer outputs equal to
 *   the float-io program's values before its output DequantizeLinear, errors. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/runtime.h"
#include "util/fileio.h"
#include "util/json.h"

static char *g_dir;             /* the test's work folder */
static char g_model[4096], g_calib[4096];

static const char *inp(int s)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%02d/x.npy", tu_source("examples/ppocr_cls/inputs"), s);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    g_dir = tu_mkdtemp();
    snprintf(g_model, sizeof g_model, "%s", tu_source("examples/ppocr_cls/model.onnx"));
    snprintf(g_calib, sizeof g_calib, "%s/calib", g_dir);
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && for s in 00 01 02 03; do ln -s %s/$s %s/$s; done",
             g_calib, tu_source("examples/ppocr_cls/inputs"), g_calib);
    assert_int_equal(system(cmd), 0);
    /* the float-io program (and its report) and the --int-io one, same calibration */
    assert_int_equal(tu_cli(NULL, NULL, "compile", g_model, "--spec", "TOSA-1.0+INT",
                            "--quantize", "a8w8", "--calib", g_calib, "-o",
                            tu_join(g_dir, "q.prog"), "--report", tu_join(g_dir, "rep.json"),
                            "-q", NULL), 0);
    assert_int_equal(tu_cli(NULL, NULL, "compile", g_model, "--spec", "TOSA-1.0+INT",
                            "--quantize", "a8w8", "--calib", g_calib, "--int-io", "-o",
                            tu_join(g_dir, "int.prog"), "-q", NULL), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(g_dir);
    return 0;
}

static tosac_json *read_json(const char *path)
{
    tosac_json *j = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_json_parse_file(path, &j, &err))
        fail_msg("%s", err.msg);
    return j;
}

static const char *jstr(const tosac_json *o, const char *k)
{
    const char *s = tosac_json_string(tosac_json_get(o, k));
    assert_non_null(s);
    return s;
}

static const tosac_json *entry(const tosac_json *list, const char *tensor)
{
    for (int i = 0; i < tosac_json_count(list); i++)
        if (strcmp(jstr(tosac_json_at(list, i), "tensor"), tensor) == 0)
            return tosac_json_at(list, i);
    return NULL;
}

static void load(const char *dir, const char *file, tosac_tensor *t)
{
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_npy_read(tu_join(dir, file), t, &err))
        fail_msg("%s", err.msg);
}

static void assert_same_tensor(const tosac_tensor *a, const tosac_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(tosac_shape_equal(a->rank, a->shape, b->rank, b->shape));
    assert_int_equal(a->nbytes, b->nbytes);
    assert_memory_equal(a->data, b->data, a->nbytes);
}

static void test_dump_onnx(void **state)
{
    (void)state;
    const char *d = tu_join(g_dir, "ref"), *o = tu_join(g_dir, "ref_out");
    char dd[4096], od[4096];
    snprintf(dd, sizeof dd, "%s", d);
    snprintf(od, sizeof od, "%s", o);
    assert_int_equal(tu_cli(NULL, NULL, "run", g_model, "--input", inp(4),
                            "--dump-intermediates", dd, "-o", od, NULL), 0);
    tosac_json *idx = read_json(tu_join(dd, "index.json"));
    const tosac_json *list = tosac_json_get(idx, "tensors");
    int n = tosac_json_count(list);
    /* ppocr: 471 nodes, 250 of them Constant; 221 others with one output each; the 9 Convs
     * of the squeeze-excitation blocks have a Relu right after them, which the executor
     * folds into the Conv: 1 input + 221 - 9 */
    assert_int_equal(n, 1 + 221 - 9);
    for (int i = 0; i < n; i++) {
        const tosac_json *e = tosac_json_at(list, i);
        int64_t ord;
        assert_true(tosac_json_int(tosac_json_get(e, "order"), &ord));
        assert_int_equal(ord, i);
        assert_string_not_equal(jstr(e, "op_type"), "Constant");
    }
    tosac_tensor a, b;
    const tosac_json *x = tosac_json_at(list, 0);
    assert_string_equal(jstr(x, "tensor"), "x");
    assert_string_equal(jstr(x, "op_type"), "input");
    load(dd, jstr(x, "file"), &a);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_read(inp(4), &b, &err), TOSAC_OK);
    assert_same_tensor(&a, &b);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);
    const tosac_json *y = tosac_json_at(list, n - 1);
    assert_string_equal(jstr(y, "tensor"), "softmax_0.tmp_0");
    load(dd, jstr(y, "file"), &a);
    load(od, "softmax_0.tmp_0.npy", &b);
    assert_same_tensor(&a, &b);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);
    /* a Conv fused with the Relu after it: only the Relu's value exists */
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(g_model, &m, &err), TOSAC_OK);
    int fused_seen = 0;
    for (int k = 0; k < m->graph->n_nodes; k++) {
        const ir_node *nd = &m->graph->nodes[k];
        if (!ir_node_is(nd, "Relu"))
            continue;
        int p = ir_graph_producer(m->graph, nd->inputs[0]);
        if (p < 0 || !ir_node_is(&m->graph->nodes[p], "Conv") ||
            ir_graph_consumers(m->graph, nd->inputs[0], NULL, 0) != 1)
            continue;
        assert_null(entry(list, m->graph->tensors[nd->inputs[0]].name));
        assert_non_null(entry(list, m->graph->tensors[nd->outputs[0]].name));
        fused_seen++;
    }
    assert_int_equal(fused_seen, 9); /* the other 6 Relus follow a BatchNormalization */
    ir_model_free(m);
    tosac_json_free(idx);
}

/* round half to even of the float quotient, as QuantizeLinear */
static int64_t quantize(float v, float scale, int64_t zp)
{
    float q = nearbyintf(v / scale) + (float)zp;
    return q < -128 ? -128 : q > 127 ? 127 : (int64_t)q;
}

static void test_dump_program(void **state)
{
    (void)state;
    char dd[4096], od[4096], od2[4096];
    snprintf(dd, sizeof dd, "%s", tu_join(g_dir, "q"));
    snprintf(od, sizeof od, "%s", tu_join(g_dir, "q_out"));
    snprintf(od2, sizeof od2, "%s", tu_join(g_dir, "q_out_plain"));
    const char *prog = tu_join(g_dir, "q.prog");
    char pp[4096];
    snprintf(pp, sizeof pp, "%s", prog);
    assert_int_equal(tu_cli(NULL, NULL, "run", pp, "--input", inp(4), "--dump-intermediates",
                            dd, "-o", od, NULL), 0);
    assert_int_equal(tu_cli(NULL, NULL, "run", pp, "--input", inp(4), "-o", od2, NULL), 0);
    tosac_tensor a, b;
    load(od, "softmax_0.tmp_0.npy", &a); /* dumping changes nothing of the run */
    load(od2, "softmax_0.tmp_0.npy", &b);
    assert_same_tensor(&a, &b);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);

    tosac_json *idx = read_json(tu_join(dd, "index.json"));
    tosac_json *rep = read_json(tu_join(g_dir, "rep.json"));
    const tosac_json *list = tosac_json_get(idx, "tensors");
    const tosac_json *qt = tosac_json_get(rep, "quantized_tensors");
    /* the input quantized by hand */
    const tosac_json *xq = entry(list, "x_quantized"), *xr = NULL;
    for (int i = 0; i < tosac_json_count(qt); i++)
        if (strcmp(jstr(tosac_json_at(qt, i), "name"), "x_quantized") == 0)
            xr = tosac_json_at(qt, i);
    assert_non_null(xq);
    assert_non_null(xr);
    double scale;
    int64_t zp;
    assert_true(tosac_json_double(tosac_json_get(xr, "scale"), &scale));
    assert_true(tosac_json_int(tosac_json_get(xr, "zero_point"), &zp));
    load(dd, jstr(xq, "file"), &a);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_read(inp(4), &b, &err), TOSAC_OK);
    assert_int_equal(a.dtype, TOSAC_DT_I8);
    for (int64_t i = 0; i < tosac_tensor_numel(&b); i++)
        assert_int_equal(tosac_tensor_int_at(&a, i),
                         quantize(((float *)b.data)[i], (float)scale, zp));
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);

    /* every dequantized value from its raw tensor, transposed back where it is NHWC */
    int n_deq = 0, n_nhwc = 0;
    for (int i = 0; i < tosac_json_count(list); i++) {
        const tosac_json *e = tosac_json_at(list, i);
        const char *from = tosac_json_string(tosac_json_get(e, "dequantized_from"));
        if (!from)
            continue;
        const tosac_json *r = entry(list, from);
        assert_non_null(r);
        assert_true(tosac_json_double(tosac_json_get(e, "scale"), &scale));
        assert_true(tosac_json_int(tosac_json_get(e, "zero_point"), &zp));
        tosac_tensor dq, raw;
        load(dd, jstr(e, "file"), &dq);
        load(dd, jstr(r, "file"), &raw);
        assert_int_equal(dq.dtype, TOSAC_DT_F32);
        assert_int_equal(tosac_tensor_numel(&dq), tosac_tensor_numel(&raw));
        const char *layout = jstr(e, "transposed_from");
        bool nhwc = strcmp(layout, "channels_last") == 0;
        if (!nhwc) {
            assert_string_equal(layout, "same");
            assert_true(tosac_shape_equal(dq.rank, dq.shape, raw.rank, raw.shape));
        } else {
            assert_int_equal(dq.rank, 4);
            assert_int_equal(raw.shape[1], dq.shape[2]);
            assert_int_equal(raw.shape[2], dq.shape[3]);
            assert_int_equal(raw.shape[3], dq.shape[1]);
            n_nhwc++;
        }
        int64_t N = dq.rank == 4 ? dq.shape[0] : 1, C = dq.rank == 4 ? dq.shape[1] : 1;
        int64_t H = dq.rank == 4 ? dq.shape[2] : 1, W = dq.rank == 4 ? dq.shape[3] : 1;
        for (int64_t k = 0; k < tosac_tensor_numel(&dq); k++) {
            int64_t src = k;
            if (nhwc) {
                int64_t w = k % W, h = k / W % H, c = k / (W * H) % C, nn = k / (W * H * C);
                src = ((nn * H + h) * W + w) * C + c;
            }
            (void)N;
            float want = (float)((double)(tosac_tensor_int_at(&raw, src) - zp) * scale);
            assert_true(((float *)dq.data)[k] == want);
        }
        tosac_tensor_free(&dq);
        tosac_tensor_free(&raw);
        n_deq++;
    }
    /* every quantized tensor of the report is in the dump under its float name, but the
     * Reshape's output: the lowering folds that reshape into its reader's operand */
    int missing = 0;
    for (int i = 0; i < tosac_json_count(qt); i++) {
        const tosac_json *q = tosac_json_at(qt, i);
        if (!entry(list, jstr(q, "float"))) {
            assert_string_equal(jstr(q, "name"), "reshape2_0.tmp_0_quantized");
            missing++;
        }
    }
    assert_int_equal(missing, 1);
    /* one dequantized value per float name (a Relu/Clip's input is listed as an alias of
     * its output's), but x, whose real value is there, and the missing one */
    int n_float = 0;
    for (int i = 0; i < tosac_json_count(qt); i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(jstr(tosac_json_at(qt, i), "float"),
                          jstr(tosac_json_at(qt, j), "float")) == 0;
        n_float += !seen;
    }
    assert_int_equal(n_deq, n_float - 1 - missing);
    assert_null(tosac_json_get(entry(list, "x"), "dequantized_from"));
    assert_true(n_nhwc > 50); /* the convolutions' outputs inside the delegate */
    tosac_json_free(idx);
    tosac_json_free(rep);

    /* a dump folder that cannot be made: one line, exit 2, no outputs either */
    char fileish[4096];
    snprintf(fileish, sizeof fileish, "%s", tu_join(g_dir, "rep.json"));
    tu_cli_expect_exit2("is not a directory",
                        (const char *[]){"run", pp, "--input", inp(4), "--dump-intermediates",
                                         fileish, "-o", tu_join(g_dir, "never"), NULL});
    FILE *never = fopen(tu_join(g_dir, "never/softmax_0.tmp_0.npy"), "rb");
    assert_null(never);
    /* the float model's dump against the program's: a table and a first layer below 20 dB */
    char *out = NULL;
    int rc = tu_cli(&out, NULL, "compare", tu_join(g_dir, "ref"), dd, NULL);
    assert_true(rc == 0 || rc == 1);
    assert_non_null(strstr(out, "    0       inf  1.000000             0  x\n"));
    assert_non_null(strstr(out, rc ? "first below 20 dB: " : "first below 20 dB: none"));
    free(out);
}

static void write_f32(const char *dir, const char *name, int n, const float *v)
{
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t shape[1] = {n};
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, 1, shape, &err), TOSAC_OK);
    memcpy(t.data, v, t.nbytes);
    assert_int_equal(tosac_npy_write(tu_join(dir, name), &t, &err), TOSAC_OK);
    tosac_tensor_free(&t);
}

static void write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(s, f);
    fclose(f);
}

static void test_compare_dirs(void **state)
{
    (void)state;
    char r[4096], s[4096];
    snprintf(r, sizeof r, "%s", tu_join(g_dir, "cmp_ref"));
    snprintf(s, sizeof s, "%s", tu_join(g_dir, "cmp_res"));
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s %s", r, s);
    assert_int_equal(system(cmd), 0);
    /* a equal; b error energy 1/64 over signal 1: 10 log10(64) = 18.06 dB, cosine
     * 1/sqrt(1 + 1/64) = 0.992278, max 0.125; c [2,0] vs [0,2]: 10 log10(4/8) = -3.01 dB,
     * cosine 0; d only in the reference, e only in the result */
    write_f32(r, "a.npy", 4, (const float[]){1, 2, 3, 4});
    write_f32(s, "a.npy", 4, (const float[]){1, 2, 3, 4});
    write_f32(r, "b.npy", 4, (const float[]){1, 0, 0, 0});
    write_f32(s, "b.npy", 4, (const float[]){1, 0, 0, 0.125f});
    write_f32(r, "c.npy", 2, (const float[]){2, 0});
    write_f32(s, "c.npy", 2, (const float[]){0, 2});
    write_f32(r, "d.npy", 2, (const float[]){1, 1});
    write_f32(s, "e.npy", 2, (const float[]){1, 1});
    const char *idx_r = "{\"tensors\": [{\"file\": \"a.npy\", \"tensor\": \"a\", \"op_type\": \"Conv\","
                        " \"node\": \"n_a\"}, {\"file\": \"d.npy\", \"tensor\": \"d\"},"
                        " {\"file\": \"b.npy\", \"tensor\": \"b\", \"op_type\": \"Relu\", \"node\": \"n_b\"},"
                        " {\"file\": \"c.npy\", \"tensor\": \"c\"}]}";
    const char *idx_s = "{\"tensors\": [{\"file\": \"c.npy\", \"tensor\": \"c\"},"
                        " {\"file\": \"e.npy\", \"tensor\": \"e\"}, {\"file\": \"b.npy\", \"tensor\": \"b\"},"
                        " {\"file\": \"a.npy\", \"tensor\": \"a\"}]}";
    write_text(tu_join(r, "index.json"), idx_r);
    write_text(tu_join(s, "index.json"), idx_s);
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "compare", r, s, NULL), 1);
    assert_non_null(strstr(out, "    0       inf  1.000000             0  a\n"));
    assert_non_null(strstr(out, "    2     18.06  0.992278         0.125  b\n"));
    assert_non_null(strstr(out, "    3     -3.01  0.000000             2  c\n"));
    assert_null(strstr(out, "  d\n"));
    assert_non_null(strstr(out, "compared: 3 tensors"));
    assert_non_null(strstr(out, "first below 20 dB: b (order 2, Relu node 'n_b'): sqnr 18.06 dB"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "compare", r, s, "--sqnr-below", "18", NULL), 1);
    assert_non_null(strstr(out, "first below 18 dB: c (order 3"));
    free(out);
    assert_int_equal(tu_cli(&out, NULL, "compare", r, s, "--sqnr-below", "-10", NULL), 0);
    assert_non_null(strstr(out, "first below -10 dB: none"));
    free(out);
    /* errors: one line, exit 2 */
    tu_cli_expect_exit2("two .npy files or two dump folders",
                        (const char *[]){"compare", r, tu_join(s, "a.npy"), NULL});
    tu_cli_expect_exit2("--sqnr-below compares two dump folders",
                        (const char *[]){"compare", tu_join(r, "a.npy"), tu_join(s, "a.npy"),
                                         "--sqnr-below", "3", NULL});
    tu_cli_expect_exit2("folders take --sqnr-below",
                        (const char *[]){"compare", r, s, "--atol", "1", NULL});
    tu_cli_expect_exit2("--sqnr-below takes a number",
                        (const char *[]){"compare", r, s, "--sqnr-below", "x", NULL});
    write_text(tu_join(s, "index.json"), "{\"tensors\": [{\"file\": \"../a.npy\", \"tensor\": \"a\"}]}");
    tu_cli_expect_exit2("plain \"file\" name", (const char *[]){"compare", r, s, NULL});
    write_text(tu_join(s, "index.json"), "{\"other\": 1}");
    tu_cli_expect_exit2("not a tosac run --dump-intermediates folder",
                        (const char *[]){"compare", r, s, NULL});
    write_text(tu_join(s, "index.json"), "{\"tensors\": [{\"file\": \"e.npy\", \"tensor\": \"e\"}]}");
    tu_cli_expect_exit2("no tensor name in common", (const char *[]){"compare", r, s, NULL});
}

static void test_int_io(void **state)
{
    (void)state;
    char ip[4096], qp[4096];
    snprintf(ip, sizeof ip, "%s", tu_join(g_dir, "int.prog"));
    snprintf(qp, sizeof qp, "%s", tu_join(g_dir, "q.prog"));
    /* the signature: integer edges with the report's scale and zero point */
    char *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", ip, "--json", NULL), 0);
    tosac_json *js = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(out, strlen(out), &js, &err), TOSAC_OK);
    free(out);
    tosac_json *rep = read_json(tu_join(g_dir, "rep.json"));
    const tosac_json *qt = tosac_json_get(rep, "quantized_tensors");
    const tosac_json *sig = tosac_json_get(js, "signature");
    const char *side[2] = {"inputs", "outputs"}, *want[2] = {"x_quantized",
                                                             "softmax_0.tmp_0_quantized"};
    for (int k = 0; k < 2; k++) {
        const tosac_json *l = tosac_json_get(sig, side[k]);
        assert_int_equal(tosac_json_count(l), 1);
        const tosac_json *e = tosac_json_at(l, 0);
        assert_string_equal(jstr(e, "name"), want[k]);
        assert_string_equal(jstr(e, "dtype"), "i8");
        const tosac_json *q = NULL;
        for (int i = 0; i < tosac_json_count(qt); i++)
            if (strcmp(jstr(tosac_json_at(qt, i), "name"), want[k]) == 0)
                q = tosac_json_at(qt, i);
        assert_non_null(q);
        double s1, s2;
        int64_t z1, z2;
        assert_true(tosac_json_double(tosac_json_at(tosac_json_get(e, "scale"), 0), &s1));
        assert_true(tosac_json_double(tosac_json_get(q, "scale"), &s2));
        assert_true(tosac_json_int(tosac_json_at(tosac_json_get(e, "zero_point"), 0), &z1));
        assert_true(tosac_json_int(tosac_json_get(q, "zero_point"), &z2));
        assert_true((float)s1 == (float)s2);
        assert_int_equal(z1, z2);
    }
    tosac_json_free(js);
    tosac_json_free(rep);
    /* on the held-out samples: the int program's output is the float-io program's value
     * before its output DequantizeLinear, bit for bit, from the same quantized input */
    for (int s = 4; s < 8; s++) {
        char dd[4096], od[4096], xq[4200];
        snprintf(dd, sizeof dd, "%s/intdump%d", g_dir, s);
        snprintf(od, sizeof od, "%s/intout%d", g_dir, s);
        assert_int_equal(tu_cli(NULL, NULL, "run", qp, "--input", inp(s), "--dump-intermediates",
                                dd, "-o", tu_join(g_dir, "ignored"), NULL), 0);
        snprintf(xq, sizeof xq, "x_quantized=%s/x_quantized.npy", dd);
        assert_int_equal(tu_cli(NULL, NULL, "run", ip, "--input", xq, "-o", od, NULL), 0);
        tosac_tensor a, b;
        load(od, "softmax_0.tmp_0_quantized.npy", &a);
        load(dd, "softmax_0.tmp_0_quantized.npy", &b);
        assert_int_equal(a.dtype, TOSAC_DT_I8);
        assert_same_tensor(&a, &b);
        tosac_tensor_free(&a);
        tosac_tensor_free(&b);
    }
    /* tosac quantize --int-io: an integer-edged QDQ model that compiles to the same program
     * behaviour (the DQ after its input keeps the scale); its edges printed */
    char qi[4096], qip[4096], *errs = NULL;
    snprintf(qi, sizeof qi, "%s", tu_join(g_dir, "qi.onnx"));
    snprintf(qip, sizeof qip, "%s", tu_join(g_dir, "qi.prog"));
    assert_int_equal(tu_cli(NULL, &errs, "quantize", g_model, "--scheme", "a8w8", "--calib",
                            g_calib, "--int-io", "-o", qi, NULL), 0);
    assert_non_null(strstr(errs, "tosac: input x_quantized: i8 scale 0.00784313772 zero_point -1\n"));
    assert_non_null(strstr(errs, "tosac: output softmax_0.tmp_0_quantized: i8 scale "));
    free(errs);
    assert_int_equal(tu_cli(NULL, NULL, "compile", qi, "--spec", "TOSA-1.0+INT", "--input-shape",
                            "x_quantized=1,3,48,192", "-o", qip, "-q", NULL), 0);
    char dd4[4096], xq4[4200];
    snprintf(dd4, sizeof dd4, "%s/intdump4", g_dir);
    snprintf(xq4, sizeof xq4, "%s/x_quantized.npy", dd4);
    assert_int_equal(tu_cli(NULL, NULL, "run", qip, "--input", xq4, "-o",
                            tu_join(g_dir, "qi_out"), NULL), 0);
    tosac_tensor a, b;
    load(tu_join(g_dir, "qi_out"), "softmax_0.tmp_0_quantized.npy", &a);
    load(dd4, "softmax_0.tmp_0_quantized.npy", &b);
    assert_same_tensor(&a, &b);
    tosac_tensor_free(&a);
    tosac_tensor_free(&b);
    /* the int program refuses float input; --int-io needs the edge Q/DQ */
    tu_cli_expect_exit2("must be i8", (const char *[]){"run", ip, "--input", inp(4), "-o",
                                                       tu_join(g_dir, "ignored"), NULL});
    tu_cli_expect_exit2("--int-io: input 'x' is not read by one QuantizeLinear",
                        (const char *[]){"compile", g_model, "--spec", "TOSA-1.0+INT+FP",
                                         "--input-shape", "x=1,3,48,192", "--int-io", "-o",
                                         tu_join(g_dir, "bad.prog"), NULL});
}

typedef struct seen {
    int cpu, in_delegate, inputs;
    bool bad;
} seen;

static void count_value(void *user, const tosac_rt_value *v)
{
    seen *s = user;
    if (!v->name || !v->tensor || !v->tensor->data || !v->op || !v->node)
        s->bad = true;
    s->inputs += strcmp(v->op, "input") == 0;
    if (v->delegate >= 0)
        s->in_delegate++;
    else
        s->cpu++;
}

/* The runtime's observer: the CPU values always (input, the input Q, the delegate's output,
 * the output DQ), the delegate's tensors only on the reference interpreter; none once
 * removed. */
static void test_runtime_observer(void **state)
{
    (void)state;
    void *prog = NULL;
    size_t len = 0;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(tu_join(g_dir, "q.prog"), &prog, &len, &err), TOSAC_OK);
    for (int ref = 0; ref < 2; ref++) {
        tosac_rt_options o = {tosac_rt_ops_all, ref, NULL};
        size_t bytes = 0;
        assert_int_equal(tosac_rt_arena_size_ex(prog, len, &o, &bytes, &err), TOSAC_OK);
        void *arena = aligned_alloc(16, (bytes + 15) / 16 * 16);
        assert_non_null(arena);
        tosac_rt *rt = NULL;
        assert_int_equal(tosac_rt_init_ex(prog, len, arena, bytes, &o, &rt, &err), TOSAC_OK);
        memset(tosac_rt_input(rt, 0)->data, 0, tosac_rt_input(rt, 0)->nbytes);
        seen s = {0, 0, 0, false};
        tosac_rt_set_observer(rt, count_value, &s);
        assert_int_equal(tosac_rt_invoke(rt, &err), TOSAC_OK);
        assert_false(s.bad);
        assert_int_equal(s.inputs, 1);
        assert_int_equal(s.cpu, 4); /* x, x_quantized, the delegate's output, the output */
        if (ref)
            assert_true(s.in_delegate > 100); /* every operator of the delegate */
        else
            assert_int_equal(s.in_delegate, 0);
        memset(&s, 0, sizeof s);
        tosac_rt_set_observer(rt, NULL, NULL);
        assert_int_equal(tosac_rt_invoke(rt, &err), TOSAC_OK);
        assert_int_equal(s.cpu + s.in_delegate, 0);
        free(arena);
    }
    free(prog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_onnx),
        cmocka_unit_test(test_dump_program),
        cmocka_unit_test(test_compare_dirs),
        cmocka_unit_test(test_runtime_observer),
        cmocka_unit_test(test_int_io),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
