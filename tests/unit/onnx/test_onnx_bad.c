/* Bad ONNX models are clean TOSAC_ERR_INPUT / TOSAC_ERR_UNSUPPORTED errors naming the problem:
 * truncations and random corruption of a real model, and hand-encoded models with cycles,
 * dangling names, unknown types, lying sizes, huge dims, unsafe external paths, deep nesting. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/onnx.h"
#include "util/fileio.h"

/* ---- a tiny protobuf encoder, so each test states its model field by field ---- */
typedef struct pb {
    uint8_t d[8192];
    size_t n;
} pb;

static void put_varint(pb *b, uint64_t v)
{
    do {
        assert_true(b->n < sizeof b->d);
        b->d[b->n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
}
static void pb_int(pb *b, int field, int64_t v)
{
    put_varint(b, (uint64_t)field << 3);
    put_varint(b, (uint64_t)v);
}
static void pb_bytes(pb *b, int field, const void *data, size_t len)
{
    put_varint(b, ((uint64_t)field << 3) | 2);
    put_varint(b, len);
    assert_true(b->n + len <= sizeof b->d);
    memcpy(b->d + b->n, data, len);
    b->n += len;
}
static void pb_str(pb *b, int field, const char *s) { pb_bytes(b, field, s, strlen(s)); }
static void pb_msg(pb *b, int field, const pb *m) { pb_bytes(b, field, m->d, m->n); }

/* NodeProto with up to 2 inputs and 1 output ("" = none). */
static void node(pb *graph, const char *op, const char *in0, const char *in1, const char *out)
{
    pb n = {.n = 0};
    if (in0)
        pb_str(&n, 1, in0);
    if (in1)
        pb_str(&n, 1, in1);
    pb_str(&n, 2, out);
    pb_str(&n, 4, op);
    pb_msg(graph, 1, &n);
}

/* ValueInfoProto name: float tensor of rank n (dims given). */
static void value(pb *graph, int field, const char *name, int n, const int64_t *dims)
{
    pb shape = {.n = 0}, tt = {.n = 0}, type = {.n = 0}, vi = {.n = 0};
    for (int i = 0; i < n; i++) {
        pb dim = {.n = 0};
        pb_int(&dim, 1, dims[i]);
        pb_msg(&shape, 1, &dim);
    }
    pb_int(&tt, 1, 1);
    pb_msg(&tt, 2, &shape);
    pb_msg(&type, 1, &tt);
    pb_str(&vi, 1, name);
    pb_msg(&vi, 2, &type);
    pb_msg(graph, field, &vi);
}

static void model(pb *out, int64_t opset, const pb *graph)
{
    pb op = {.n = 0};
    out->n = 0;
    pb_int(out, 1, 8);
    pb_int(&op, 2, opset);
    pb_msg(out, 8, &op);
    pb_msg(out, 7, graph);
}

static tosac_code import(const pb *m, const char *base_dir, tosac_error *err)
{
    ir_model *im = NULL;
    tosac_error_clear(err);
    tosac_code rc = onnx_import_bytes(m->d, m->n, base_dir, &im, err);
    ir_model_free(im);
    return rc;
}

static void expect(const pb *m, tosac_code code, const char *msg)
{
    tosac_error err;
    assert_int_equal(import(m, NULL, &err), code);
    if (!strstr(err.msg, msg))
        fail_msg("expected '%s' in '%s'", msg, err.msg);
}

static const int64_t two[1] = {2};

static void test_good_model_imports(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    node(&g, "Relu", "x", NULL, "y");
    value(&g, 11, "x", 1, two);
    value(&g, 12, "y", 1, two);
    model(&m, 13, &g);
    tosac_error err;
    assert_int_equal(import(&m, NULL, &err), TOSAC_OK);
}

static void test_cycle(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    node(&g, "Relu", "b", NULL, "a");
    node(&g, "Neg", "a", NULL, "b");
    value(&g, 12, "a", 1, two);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "cycle through node");
}

static void test_dangling_input(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    node(&g, "Relu", "ghost", NULL, "y");
    value(&g, 12, "y", 1, two);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "node 0 (Relu ''): input 'ghost' is not defined");
}

static void test_dangling_output(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    value(&g, 11, "x", 1, two);
    value(&g, 12, "nowhere", 1, two);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "output 'nowhere' is not produced");
}

static void test_produced_twice(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    value(&g, 11, "x", 1, two);
    node(&g, "Relu", "x", NULL, "y");
    node(&g, "Neg", "x", NULL, "y");
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "output 'y' is already produced");
}

/* initializer "w": dims, data_type, raw_data */
static void initializer(pb *g, int n_dims, const int64_t *dims, int dtype, const void *raw,
                        size_t raw_len)
{
    pb t = {.n = 0};
    for (int i = 0; i < n_dims; i++)
        pb_int(&t, 1, dims[i]);
    pb_int(&t, 2, dtype);
    pb_str(&t, 8, "w");
    pb_bytes(&t, 9, raw, raw_len);
    pb_msg(g, 5, &t);
}

static void test_unknown_data_type(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    initializer(&g, 1, two, 99, "abcdefgh", 8);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "initializer 'w': data type type 99 is not supported");
    g.n = 0;
    initializer(&g, 1, two, 8, "ab", 2); /* STRING */
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_UNSUPPORTED, "data type STRING is not supported");
}

/* The second "w" is refused; its data must be released (the ASan build checks leaks). */
static void test_duplicate_initializer(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    initializer(&g, 1, two, 1, "abcdefgh", 8);
    initializer(&g, 1, two, 1, "ijklmnop", 8);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "initializer 'w' appears twice");
}

static void test_raw_size_mismatch(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    initializer(&g, 1, two, 1, "abcdefghijkl", 12);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "raw_data has 12 bytes, the shape needs 8");
}

static void test_huge_dims(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    int64_t dims[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    initializer(&g, 2, dims, 1, "abcd", 4);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "too large");
    g.n = 0;
    int64_t neg[1] = {-5};
    value(&g, 11, "x", 1, neg);
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "input 'x': dimension 0 is -5");
}

static void test_inconsistent_declared_shape(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    float w[2] = {1, 2};
    int64_t three[1] = {3};
    initializer(&g, 1, two, 1, w, sizeof w);
    value(&g, 11, "w", 1, three); /* IR<4 style input naming the initializer, other shape */
    model(&m, 13, &g);
    expect(&m, TOSAC_ERR_INPUT, "inconsistent shapes (dimension 0 is 3 and 2)");
}

static void test_opsets(void **state)
{
    (void)state;
    pb g = {.n = 0}, m;
    value(&g, 11, "x", 1, two);
    node(&g, "Relu", "x", NULL, "y");
    /* below 9 a model imports when its operators mean what they mean at opset 9 */
    model(&m, 8, &g);
    tosac_error err;
    assert_int_equal(import(&m, NULL, &err), TOSAC_OK);
    pb up = {.n = 0};
    value(&up, 11, "x", 1, two);
    node(&up, "Upsample", "x", NULL, "y"); /* Upsample-7: scales was an attribute */
    model(&m, 8, &up);
    expect(&m, TOSAC_ERR_UNSUPPORTED,
           "Upsample at ai.onnx opset 8 differs from its opset-9 meaning and is not supported");
    pb sub = {.n = 0};
    value(&sub, 11, "x", 1, two);
    node(&sub, "Sub", "x", "x", "y"); /* Sub-6 without a broadcast attribute: equal shapes */
    model(&m, 6, &sub);
    assert_int_equal(import(&m, NULL, &err), TOSAC_OK);
    model(&m, 22, &g);
    expect(&m, TOSAC_ERR_UNSUPPORTED, "ai.onnx opset 22 is not supported (supported: 9..21)");
    pb noopset = {.n = 0};
    pb_int(&noopset, 1, 8);
    pb_msg(&noopset, 7, &g);
    expect(&noopset, TOSAC_ERR_INPUT, "imports no ai.onnx opset");
}

static void test_wrong_field_type(void **state)
{
    (void)state;
    pb m = {.n = 0};
    pb_int(&m, 7, 5); /* graph encoded as a varint */
    expect(&m, TOSAC_ERR_INPUT, "protobuf decoding failed");
    pb e = {.n = 0};
    expect(&e, TOSAC_ERR_INPUT, "empty ONNX model");
    pb nograph = {.n = 0}, op = {.n = 0};
    pb_int(&op, 2, 13);
    pb_msg(&nograph, 8, &op);
    expect(&nograph, TOSAC_ERR_INPUT, "has no graph");
}

static void test_deep_nesting_refused(void **state)
{
    (void)state;
    /* graph { node { attribute { g { node { attribute { g ... } } } } } } 40 levels deep */
    pb *cur = calloc(1, sizeof *cur), *next = calloc(1, sizeof *next);
    for (int level = 0; level < 40; level++) {
        pb attr = {.n = 0}, nd = {.n = 0};
        pb_str(&attr, 1, "body");
        pb_int(&attr, 20, 5);
        pb_msg(&attr, 6, cur);
        pb_str(&nd, 4, "Loop");
        pb_msg(&nd, 5, &attr);
        next->n = 0;
        pb_msg(next, 1, &nd);
        pb *t = cur;
        cur = next;
        next = t;
    }
    pb *m = calloc(1, sizeof *m);
    model(m, 13, cur);
    expect(m, TOSAC_ERR_INPUT, "nested more than 48 deep");
    free(cur);
    free(next);
    free(m);
}

static void external_model(pb *m, const char *location)
{
    pb g = {.n = 0}, t = {.n = 0}, loc = {.n = 0};
    pb_int(&t, 1, 2);
    pb_int(&t, 2, 1);
    pb_str(&t, 8, "w");
    pb_str(&loc, 1, "location");
    pb_str(&loc, 2, location);
    pb_msg(&t, 13, &loc);
    pb_int(&t, 14, 1);
    pb_msg(&g, 5, &t);
    node(&g, "Neg", "w", NULL, "y");
    value(&g, 12, "y", 1, two);
    model(m, 13, &g);
}

static void test_external_data(void **state)
{
    (void)state;
    pb m;
    tosac_error err;
    external_model(&m, "../secret.bin");
    expect(&m, TOSAC_ERR_INPUT, "external data '../secret.bin' but the model was not loaded");
    assert_int_equal(import(&m, "/tmp", &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "path '../secret.bin' must be relative and stay next to the model"));
    external_model(&m, "/etc/passwd");
    assert_int_equal(import(&m, "/tmp", &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "path '/etc/passwd' must be relative"));
    external_model(&m, "a/../../b");
    assert_int_equal(import(&m, "/tmp", &err), TOSAC_ERR_INPUT);

    /* A real file next to the model: read, and too-short files refused. */
    tosac_error_clear(&err);
    char *dir = tu_mkdtemp();
    char path[512];
    float w[2] = {1.5f, -2.0f};
    snprintf(path, sizeof path, "%s/w.bin", dir);
    assert_int_equal(tosac_write_file(path, w, sizeof w, &err), TOSAC_OK);
    external_model(&m, "w.bin");
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    assert_int_equal(tosac_write_file(path, m.d, m.n, &err), TOSAC_OK);
    ir_model *im = NULL;
    assert_int_equal(onnx_import_file(path, &im, &err), TOSAC_OK);
    const ir_tensor *t = &im->graph->tensors[ir_graph_find_tensor(im->graph, "w")];
    assert_int_equal(t->nbytes, 8);
    assert_memory_equal(t->data, w, 8);
    ir_model_free(im);
    snprintf(path, sizeof path, "%s/w.bin", dir);
    assert_int_equal(tosac_write_file(path, w, 4, &err), TOSAC_OK);
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    assert_int_equal(onnx_import_file(path, &im, &err), TOSAC_ERR_INPUT);
    if (!strstr(err.msg, "external data 'w.bin' is shorter than offset 0 + 8 bytes"))
        fail_msg("%s", err.msg);
    tu_rmtree(dir);
    free(dir);
}

static void *read_model(const char *rel, size_t *len)
{
    void *buf;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(tu_shared(rel), &buf, len, &err), TOSAC_OK);
    return buf;
}

static void test_truncations(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = read_model("models/synth_qdq_s8_op13_conv/model.onnx", &len);
    for (size_t cut = 0; cut < len; cut++) {
        ir_model *m = NULL;
        tosac_error err;
        tosac_error_clear(&err);
        tosac_code rc = onnx_import_bytes(buf, cut, NULL, &m, &err);
        /* A cut on a field boundary can still be a (smaller) valid model; otherwise an error. */
        if (rc) {
            assert_true(rc == TOSAC_ERR_INPUT || rc == TOSAC_ERR_UNSUPPORTED);
            assert_true(err.msg[0] != '\0');
            assert_null(m);
        }
        ir_model_free(m);
    }
    free(buf);
}

/* onnx_import_file (the file mapped): a missing, empty, non-regular or truncated file is one
 * error naming the file; the whole file imports as its bytes do. */
static void expect_file(const char *path, const char *msg)
{
    ir_model *m = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(onnx_import_file(path, &m, &err), TOSAC_ERR_INPUT);
    assert_null(m);
    if (!strstr(err.msg, msg) || !strstr(err.msg, path) || strchr(err.msg, '\n'))
        fail_msg("expected '%s' and the path in one line: '%s'", msg, err.msg);
}

static void test_file_errors(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = read_model("models/synth_qdq_s8_op13_conv/model.onnx", &len);
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/m.onnx", dir);
    expect_file(path, "cannot open");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    expect_file(path, "empty ONNX model");
    expect_file(dir, "is not a regular file");
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len - 7, f), len - 7);
    assert_int_equal(fclose(f), 0);
    expect_file(path, "truncated or corrupt ONNX model");
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    ir_model *a = NULL, *b = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(onnx_import_file(path, &a, &err), TOSAC_OK);
    assert_int_equal(onnx_import_bytes(buf, len, dir, &b, &err), TOSAC_OK);
    assert_true(ir_model_equal(a, b));
    ir_model_free(a);
    ir_model_free(b);
    tu_rmtree_free(dir);
    free(buf);
}

static void test_corruption_fixed_seed(void **state)
{
    (void)state;
    size_t len;
    uint8_t *orig = read_model("models/synth_qdq_s8_op13_conv/model.onnx", &len);
    uint8_t *buf = malloc(len);
    uint32_t seed = 12345;
    int failures = 0;
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(buf, orig, len);
        for (int k = 0; k < 1 + iter % 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            size_t pos = (seed >> 8) % len;
            seed = seed * 1664525u + 1013904223u;
            buf[pos] = (uint8_t)(seed >> 24);
        }
        ir_model *m = NULL;
        tosac_error err;
        tosac_error_clear(&err);
        tosac_code rc = onnx_import_bytes(buf, len, NULL, &m, &err);
        if (rc) {
            failures++;
            assert_true(rc == TOSAC_ERR_INPUT || rc == TOSAC_ERR_UNSUPPORTED);
            assert_true(err.msg[0] != '\0');
        } else {
            assert_int_equal(ir_model_verify(m, &err), TOSAC_OK);
        }
        ir_model_free(m);
    }
    assert_true(failures > 100); /* the corruption really hits */
    free(buf);
    free(orig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_model_imports),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_dangling_input),
        cmocka_unit_test(test_dangling_output),
        cmocka_unit_test(test_produced_twice),
        cmocka_unit_test(test_unknown_data_type),
        cmocka_unit_test(test_duplicate_initializer),
        cmocka_unit_test(test_raw_size_mismatch),
        cmocka_unit_test(test_huge_dims),
        cmocka_unit_test(test_inconsistent_declared_shape),
        cmocka_unit_test(test_opsets),
        cmocka_unit_test(test_wrong_field_type),
        cmocka_unit_test(test_deep_nesting_refused),
        cmocka_unit_test(test_external_data),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_corruption_fixed_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
