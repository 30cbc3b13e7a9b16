/* `tosac compile --emit-tosa DIR`: DIR/<n>.tosa in the TOSA 1.0 layout, 1.1 when the spec is
 * 1.1 (the Version table and the DType numbers checked by walking the flatbuffer bytes here,
 * independently of our reader: INT8 = 3, INT64 = 17 only in 1.1), and DIR/<n>.json exactly as
 * the issue specifies ({"inputs": [{"name","dtype","shape","scale","zero_point"}], "outputs"},
 * NumPy dtype names, scale/zero_point only for quantized tensors, lists when per-axis). */
#include "backend_testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_json.h"
#include "tosac/onnx.h"
#include "util/fileio.h"
#include "util/json.h"

static tosac_error E;

/* ---- a minimal flatbuffer walk (FLATBUFFER_LAYOUT.md section 4) ---- */
typedef struct fb {
    const unsigned char *b;
    size_t n;
} fb;

static uint32_t u32(const fb *f, size_t at)
{
    assert_true(at + 4 <= f->n);
    return (uint32_t)f->b[at] | (uint32_t)f->b[at + 1] << 8 | (uint32_t)f->b[at + 2] << 16 |
           (uint32_t)f->b[at + 3] << 24;
}

static uint16_t u16(const fb *f, size_t at)
{
    assert_true(at + 2 <= f->n);
    return (uint16_t)(f->b[at] | f->b[at + 1] << 8);
}

/* Position of field id of the table at tab, or 0 when absent. */
static size_t field(const fb *f, size_t tab, int id)
{
    size_t vt = tab - (size_t)(int32_t)u32(f, tab);
    uint16_t vsize = u16(f, vt), slot = (uint16_t)(4 + 2 * id);
    if (slot >= vsize)
        return 0;
    uint16_t off = u16(f, vt + slot);
    return off ? tab + off : 0;
}

/* The table / vector an offset field points to. */
static size_t deref(const fb *f, size_t at) { return at + u32(f, at); }

/* Element i of the vector of tables at vec. */
static size_t table_at(const fb *f, size_t vec, uint32_t i)
{
    assert_true(i < u32(f, vec));
    return deref(f, vec + 4 + 4 * (size_t)i);
}

static int32_t int_field(const fb *f, size_t tab, int id, int32_t dflt)
{
    size_t p = field(f, tab, id);
    return p ? (int32_t)u32(f, p) : dflt;
}

/* Version (major, minor) and the DType numbers of the main block's tensors named names[]. */
static void walk(const char *path, int *major, int *minor, const char *const *names,
                 uint32_t *types, int n)
{
    void *buf = NULL;
    size_t len = 0;
    assert_int_equal(tosac_read_file(path, &buf, &len, &E), TOSAC_OK);
    fb f = {buf, len};
    size_t root = deref(&f, 0);
    size_t ver = deref(&f, field(&f, root, 0));
    *major = int_field(&f, ver, 0, -1);
    *minor = int_field(&f, ver, 1, -1);
    size_t region = table_at(&f, deref(&f, field(&f, root, 1)), 0);
    size_t block = table_at(&f, deref(&f, field(&f, region, 1)), 0);
    size_t tensors = deref(&f, field(&f, block, 2));
    for (int k = 0; k < n; k++) {
        types[k] = 0;
        for (uint32_t i = 0; i < u32(&f, tensors); i++) {
            size_t t = table_at(&f, tensors, i);
            size_t name = deref(&f, field(&f, t, 0));
            uint32_t nlen = u32(&f, name);
            if (nlen == strlen(names[k]) && memcmp(f.b + name + 4, names[k], nlen) == 0)
                types[k] = (uint32_t)int_field(&f, t, 2, 0);
        }
    }
    free(buf);
}

static char *join(const char *dir, const char *file)
{
    char *p = malloc(strlen(dir) + strlen(file) + 2);
    sprintf(p, "%s/%s", dir, file);
    return p;
}

/* y = x + x2, both int64 [2, 3], written to model.onnx in dir. */
static char *int64_model(const char *dir)
{
    ir_model *m = ir_model_new();
    assert_int_equal(ir_model_set_opset(m, "", 13, &E), TOSAC_OK);
    ir_graph *g = m->graph;
    const int64_t s[2] = {2, 3};
    int ins[2] = {ir_graph_add_input(g, "x", TOSAC_DT_I64, 2, s, &E),
                  ir_graph_add_input(g, "x2", TOSAC_DT_I64, 2, s, &E)};
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_I64, 2, s, &E);
    assert_true(ir_graph_add_node(g, "Add", NULL, "add", ins, 2, &y, 1, &E) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &E), TOSAC_OK);
    char *path = join(dir, "model.onnx");
    assert_int_equal(onnx_export_file(m, path, &E), TOSAC_OK);
    ir_model_free(m);
    return path;
}

static void test_int64_under_1_1(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *model = int64_model(dir), *prg = join(dir, "p.prg");
    char *emit = join(dir, "emit");
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.1+INT+int64", "-o",
                            prg, "--emit-tosa", emit, NULL), 0);
    char *tp = join(emit, "0.tosa");
    int major, minor;
    const char *names[3] = {"x", "x2", "y"};
    uint32_t types[3];
    walk(tp, &major, &minor, names, types, 3);
    assert_int_equal(major, 1);
    assert_int_equal(minor, 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(types[i], 17); /* INT64 in the 1.1 DType enum */
    /* the metadata: plain int64 tensors, no quantization */
    char *jp = join(emit, "0.json");
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse_file(jp, &j, &E), TOSAC_OK);
    const tosac_json *in = tosac_json_get(j, "inputs");
    assert_int_equal(tosac_json_count(in), 2);
    assert_int_equal(tosac_json_count(tosac_json_get(j, "outputs")), 1);
    const tosac_json *x = tosac_json_at(in, 0);
    assert_string_equal(tosac_json_string(tosac_json_get(x, "name")), "x");
    assert_string_equal(tosac_json_string(tosac_json_get(x, "dtype")), "int64");
    assert_int_equal(tosac_json_count(tosac_json_get(x, "shape")), 2);
    assert_null(tosac_json_get(x, "scale"));
    assert_null(tosac_json_get(x, "zero_point"));
    tosac_json_free(j);
    /* the same model under TOSA-1.0+INT: a runtime int64 input stays on the CPU, nothing is
     * emitted */
    char *emit10 = join(dir, "emit10");
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--emit-tosa", emit10, NULL), 0);
    char *tp10 = join(emit10, "0.tosa");
    FILE *fp = fopen(tp10, "rb");
    assert_null(fp);
    free(tp10);
    free(emit10);
    free(jp);
    free(tp);
    free(emit);
    free(prg);
    free(model);
    tu_rmtree(dir);
    free(dir);
}

static void test_int8_under_1_0(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = join(dir, "p.prg"), *emit = join(dir, "emit");
    char *model = strdup(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"));
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT", "-o", prg,
                            "--emit-tosa", emit, NULL), 0);
    char *tp = join(emit, "0.tosa"), *jp = join(emit, "0.json");
    int major, minor;
    const char *names[2] = {"x_q", "y_q"};
    uint32_t types[2];
    walk(tp, &major, &minor, names, types, 2);
    assert_int_equal(major, 1);
    assert_int_equal(minor, 0);
    assert_int_equal(types[0], 3); /* INT8 */
    assert_int_equal(types[1], 3);
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse_file(jp, &j, &E), TOSAC_OK);
    /* exactly two keys at the top, in order */
    assert_int_equal(j->n, 2);
    assert_string_equal(j->keys[0], "inputs");
    assert_string_equal(j->keys[1], "outputs");
    const tosac_json *x = tosac_json_at(tosac_json_get(j, "inputs"), 0);
    const char *keys[5] = {"name", "dtype", "shape", "scale", "zero_point"};
    assert_int_equal(x->n, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(x->keys[i], keys[i]);
    assert_string_equal(tosac_json_string(tosac_json_get(x, "dtype")), "int8");
    /* the model's parameters (meta.json tensor_qparams of the zoo: x 0.0295125.., zp 3) */
    double s;
    int64_t zp, d;
    assert_true(tosac_json_double(tosac_json_get(x, "scale"), &s));
    assert_true(fabs(s - 0.02951251156628132) < 1e-9);
    assert_true(tosac_json_int(tosac_json_get(x, "zero_point"), &zp));
    assert_int_equal(zp, 3);
    const int64_t want[4] = {1, 8, 20, 20};
    for (int i = 0; i < 4; i++) {
        assert_true(tosac_json_int(tosac_json_at(tosac_json_get(x, "shape"), i), &d));
        assert_int_equal(d, want[i]);
    }
    const tosac_json *y = tosac_json_at(tosac_json_get(j, "outputs"), 0);
    assert_true(tosac_json_int(tosac_json_get(y, "zero_point"), &zp));
    assert_int_equal(zp, -13);
    tosac_json_free(j);
    free(tp);
    free(jp);
    free(model);
    free(emit);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

/* A per-axis quantized boundary tensor: scale and zero_point are lists. */
static void test_meta_per_axis(void **state)
{
    (void)state;
    ir_graph *g = ir_graph_new("g", NULL);
    const int64_t s[2] = {3, 2};
    int t = ir_graph_add_input(g, "w", TOSAC_DT_I8, 2, s, &E);
    const float sc[3] = {0.5f, 0.25f, 0.125f};
    const int64_t zps[3] = {0, 1, -1};
    assert_int_equal(ir_tensor_set_quant(g, t, sc, zps, 3, 0, TOSAC_DT_I8, &E), TOSAC_OK);
    int u = ir_graph_add_input(g, "f", TOSAC_DT_F16, 1, s, &E);
    int ins[1] = {t}, outs[1] = {u};
    char *text = compile_delegate_meta(g, ins, 1, outs, 1);
    assert_non_null(text);
    tosac_json *j = NULL;
    assert_int_equal(tosac_json_parse(text, strlen(text), &j, &E), TOSAC_OK);
    const tosac_json *w = tosac_json_at(tosac_json_get(j, "inputs"), 0);
    const tosac_json *scale = tosac_json_get(w, "scale"), *zp = tosac_json_get(w, "zero_point");
    assert_int_equal(tosac_json_count(scale), 3);
    assert_int_equal(tosac_json_count(zp), 3);
    for (int i = 0; i < 3; i++) {
        double v;
        int64_t z;
        assert_true(tosac_json_double(tosac_json_at(scale, i), &v));
        assert_true(v == sc[i]);
        assert_true(tosac_json_int(tosac_json_at(zp, i), &z));
        assert_int_equal(z, zps[i]);
    }
    const tosac_json *f = tosac_json_at(tosac_json_get(j, "outputs"), 0);
    assert_string_equal(tosac_json_string(tosac_json_get(f, "dtype")), "float16");
    assert_null(tosac_json_get(f, "scale"));
    tosac_json_free(j);
    free(text);
    ir_graph_free(g);
}

int main(void)
{
    tosac_error_clear(&E);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int64_under_1_1),
        cmocka_unit_test(test_int8_under_1_0),
        cmocka_unit_test(test_meta_per_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
