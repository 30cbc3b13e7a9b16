/* The bad-input table of docs/RELIABILITY.md, one case per row, through the built `tosac`
 * as a user runs it: each reader (ONNX model, .tosa file, program, .npy, spec string,
 * calibration folder, output paths) given a truncated, bit-flipped, wrong-magic, negative- or
 * enormous-dimension, wrong-type, wrong-count, unknown-operator file. Every case: exit 2, one
 * stderr line holding the row's message (naming the file where there is one), and no output
 * file left behind; an output path naming an input leaves the input's bytes as they were.
 * The bad files are made here from the shared test data or written byte by byte. Under the
 * sanitizer build LeakSanitizer runs in each tosac process: a leak on an error path exits 1
 * (ASan's code for a leak report), not 2, and fails the row. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONV_MODEL "models/synth_qdq_s8_op13_conv/model.onnx"
#define CONV_INPUT "models/synth_qdq_s8_op13_conv/inputs/00/x.npy"
#define TOSA_GRAPH "conformance/transpose/transpose_15x6_f32_perm0_fs/test.tosa"

static char *dir;

typedef struct bytes {
    unsigned char *p;
    size_t n;
} bytes;

static bytes load(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    bytes b = {malloc(1 << 20), 0};
    assert_non_null(b.p);
    b.n = fread(b.p, 1, 1 << 20, f);
    fclose(f);
    assert_true(b.n > 0 && b.n < (1 << 20));
    return b;
}

static const char *save(const char *name, const void *p, size_t n)
{
    const char *path = tu_join(dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
    return path;
}

/* A copy of src cut to n bytes, or with byte at ^= 0x80 (at < 0: none). */
static const char *damaged(const char *src, const char *name, size_t n, long at)
{
    bytes b = load(src);
    if (at >= 0)
        b.p[at] ^= 0x80;
    const char *path = save(name, b.p, n ? n : b.n);
    free(b.p);
    return path;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The row: exit 2, one stderr line containing msg, nothing at out (when given). */
static void row(const char *msg, const char *out, const char *const *args)
{
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, args);
    if (rc != 2 || !strstr(errs, msg) || tu_count_lines(errs) != 1)
        fail_msg("tosac %s: exit %d (want 2), stderr: %s(want '%s')", args[0], rc, errs, msg);
    free(errs);
    if (out && exists(out))
        fail_msg("tosac %s: left '%s' behind", args[0], out);
}

/* ---- a minimal protobuf writer: models no exporter would write ---- */

typedef struct pb {
    unsigned char b[512];
    size_t n;
} pb;

static void pb_varint(pb *m, uint64_t v)
{
    do {
        assert_true(m->n < sizeof m->b);
        m->b[m->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void pb_int(pb *m, int field, int64_t v)
{
    pb_varint(m, (uint64_t)field << 3);
    pb_varint(m, (uint64_t)v); /* negative: ten bytes, as protobuf writes int64 */
}

static void pb_bytes(pb *m, int field, const void *p, size_t n)
{
    pb_varint(m, (uint64_t)field << 3 | 2);
    pb_varint(m, n);
    assert_true(m->n + n <= sizeof m->b);
    memcpy(m->b + m->n, p, n);
    m->n += n;
}

static void pb_str(pb *m, int field, const char *s)
{
    pb_bytes(m, field, s, strlen(s));
}

static void pb_msg(pb *m, int field, const pb *sub)
{
    pb_bytes(m, field, sub->b, sub->n);
}

/* ValueInfoProto name: tensor(elem_type) with dims d0, d1. */
static pb value_info(const char *name, int elem_type, int64_t d0, int64_t d1)
{
    pb dim0 = {0}, dim1 = {0}, shape = {0}, tt = {0}, type = {0}, vi = {0};
    pb_int(&dim0, 1, d0);
    pb_int(&dim1, 1, d1);
    pb_msg(&shape, 1, &dim0);
    pb_msg(&shape, 1, &dim1);
    pb_int(&tt, 1, elem_type);
    pb_msg(&tt, 2, &shape);
    pb_msg(&type, 1, &tt);
    pb_str(&vi, 1, name);
    pb_msg(&vi, 2, &type);
    return vi;
}

/* ModelProto: opset 13, graph 'g' with one node op (x -> y), both float [d0, d1]. */
static const char *model(const char *name, const char *op, int64_t d0, int64_t d1)
{
    pb node = {0}, graph = {0}, opset = {0}, m = {0};
    pb_str(&node, 1, "x");
    pb_str(&node, 2, "y");
    pb_str(&node, 3, "n");
    pb_str(&node, 4, op);
    pb_msg(&graph, 1, &node);
    pb_str(&graph, 2, "g");
    pb x = value_info("x", 1, d0, d1), y = value_info("y", 1, d0, d1);
    pb_msg(&graph, 11, &x);
    pb_msg(&graph, 12, &y);
    pb_int(&m, 1, 8);
    pb_int(&opset, 2, 13);
    pb_msg(&m, 8, &opset);
    pb_msg(&m, 7, &graph);
    return save(name, m.b, m.n);
}

/* A .npy file: header dict text as given, then n data bytes of zeros. */
static const char *npy(const char *name, const char *descr, const char *shape, const char *order,
                       size_t n)
{
    char h[256];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                       descr, order, shape);
    while ((len + 11) % 64 != 63)
        h[len++] = ' ';
    h[len++] = '\n';
    unsigned char *b = calloc(1, 10 + (size_t)len + n);
    assert_non_null(b);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(len & 0xff);
    b[9] = (unsigned char)(len >> 8);
    memcpy(b + 10, h, (size_t)len);
    if (n == 16 && strcmp(descr, "<f4") == 0) { /* calibration values 1, 2, 3, -1 */
        float v[4] = {1, 2, 3, -1};
        memcpy(b + 10 + len, v, 16);
    }
    const char *path = save(name, b, 10 + (size_t)len + n);
    free(b);
    return path;
}

/* ---- the rows ---- */

static void test_onnx_model(void **state)
{
    (void)state;
    char *conv = strdup(tu_shared(CONV_MODEL)), *in = strdup(tu_shared(CONV_INPUT));
    char *out = strdup(tu_join(dir, "out.prog"));
    char *trunc = strdup(damaged(conv, "trunc.onnx", 1034, -1));
    row("trunc.onnx': truncated or corrupt ONNX model (truncated length-delimited field 7 in "
        "ModelProto)", out, (const char *const[]){"compile", trunc, "--spec", "TOSA-1.0+INT",
                                                  "-o", out, NULL});
    char *flip = strdup(damaged(conv, "flip.onnx", 0, 0));
    row("flip.onnx': truncated or corrupt ONNX model (unsupported protobuf wire type 7 in "
        "ModelProto)", out, (const char *const[]){"compile", flip, "--spec", "TOSA-1.0+INT",
                                                  "-o", out, NULL});
    /* not a model at all (wrong magic: ONNX has none, so it fails as protobuf) */
    const char *text = save("notes.onnx", "hello, not a model\n", 19);
    char *notes = strdup(text);
    row("notes.onnx': truncated or corrupt ONNX model (unsupported protobuf wire type 4 in "
        "ModelProto)", NULL, (const char *const[]){"inspect", notes, NULL});
    char *neg = strdup(model("neg.onnx", "Relu", 1, -5));
    row("neg.onnx': input 'x': dimension 1 is -5", out,
        (const char *const[]){"compile", neg, "--spec", "TOSA-1.0+FP", "-o", out, NULL});
    char *huge = strdup(model("huge.onnx", "Relu", 1, (int64_t)1 << 41));
    row("huge.onnx': input 'x': dimension 1 is 2199023255552", out,
        (const char *const[]){"compile", huge, "--spec", "TOSA-1.0+FP", "-o", out, NULL});
    char *unk = strdup(model("unknown_op.onnx", "Frobnicate", 1, 4));
    row("unknown_op.onnx': node 'n': operator Frobnicate is neither in TOSA-1.0+FP nor "
        "supported on the CPU", out,
        (const char *const[]){"compile", unk, "--spec", "TOSA-1.0+FP", "-o", out, NULL});
    /* inputs that do not fit the model: type, shape, count */
    char *odir = strdup(tu_join(dir, "outs"));
    char *i32 = strdup(npy("x_i32.npy", "<i4", "(1, 8, 20, 20)", "False", 4 * 3200));
    row("x_i32.npy': input 'x' must be f32[1,8,20,20], got i32[1,8,20,20]", odir,
        (const char *const[]){"run", conv, "-i", i32, "-o", odir, NULL});
    char *shp = strdup(npy("x_shape.npy", "<f4", "(1, 8, 20, 21)", "False", 4 * 3360));
    row("x_shape.npy': input 'x' must be f32[1,8,20,20], got f32[1,8,20,21]", odir,
        (const char *const[]){"run", conv, "-i", shp, "-o", odir, NULL});
    row("more inputs given than there are (1)", odir,
        (const char *const[]){"run", conv, "-i", in, "-i", in, "-o", odir, NULL});
    row("input 'x' is not given (use --input x=FILE.npy)", odir,
        (const char *const[]){"run", conv, "-o", odir, NULL});
    row("there is no input named 'y' (inputs: 'x')", odir,
        (const char *const[]){"run", conv, "-i", "y=/dev/null", "-o", odir, NULL});
    free(conv), free(in), free(out), free(trunc), free(flip), free(notes), free(neg);
    free(huge), free(unk), free(odir), free(i32), free(shp);
}

static void test_tosa_file(void **state)
{
    (void)state;
    char *g = strdup(tu_shared(TOSA_GRAPH)), *odir = strdup(tu_join(dir, "touts"));
    char *in = strdup(tu_shared("conformance/transpose/transpose_15x6_f32_perm0_fs/input-0.npy"));
    char *t = strdup(damaged(g, "trunc.tosa", 210, -1));
    row("trunc.tosa: corrupt .tosa file: version: offset points outside the buffer", odir,
        (const char *const[]){"run", t, "-i", in, "-o", odir, NULL});
    char *f = strdup(damaged(g, "flip.tosa", 0, 8));
    row("flip.tosa: corrupt .tosa file: root table: bad table size", odir,
        (const char *const[]){"run", f, "-i", in, "-o", odir, NULL});
    /* file identifier "TOSA" changed: then it can only be an ONNX model, and is not one */
    char *m = strdup(damaged(g, "magic.tosa", 0, 4));
    row("magic.tosa': truncated or corrupt ONNX model (invalid protobuf field number in "
        "ModelProto)", odir, (const char *const[]){"run", m, "-i", in, "-o", odir, NULL});
    char *conv_in = strdup(tu_shared(CONV_INPUT));
    row("x.npy': input 'input-0' must be [15,6], got f32[1,8,20,20]", odir,
        (const char *const[]){"run", g, "-i", conv_in, "-o", odir, NULL});
    free(g), free(odir), free(in), free(t), free(f), free(m), free(conv_in);
}

static void test_program_file(void **state)
{
    (void)state;
    char *prog = strdup(tu_join(dir, "good.prog")), *in = strdup(tu_shared(CONV_INPUT));
    char *odir = strdup(tu_join(dir, "pouts"));
    assert_int_equal(tu_cli(NULL, NULL, "compile", tu_shared(CONV_MODEL), "--spec",
                            "TOSA-1.0+INT", "-o", prog, NULL), 0);
    bytes b = load(prog);
    size_t n = b.n;
    free(b.p);
    char *t = strdup(damaged(prog, "trunc.prog", n / 2, -1));
    char want[160];
    snprintf(want, sizeof want, "trunc.prog: program: header says %zu bytes, the file has %zu "
             "(truncated or trailing bytes)", n, n / 2);
    row(want, odir, (const char *const[]){"run", t, "-i", in, "-o", odir, NULL});
    row(want, NULL, (const char *const[]){"inspect", t, NULL});
    char *fl = strdup(damaged(prog, "flags.prog", 0, 12));
    row("flags.prog: program: unknown header flags 0x80", odir,
        (const char *const[]){"run", fl, "-i", in, "-o", odir, NULL});
    char *mg = strdup(damaged(prog, "magic.prog", 0, 0));
    row("magic.prog' is not a .tosa graph, a tosac program or an ONNX model", odir,
        (const char *const[]){"run", mg, "-i", in, "-o", odir, NULL});
    char *ver = strdup(damaged(prog, "version.prog", 0, 8));
    row("version.prog: program: version 130 is not supported (this tosac reads version 2)",
        NULL, (const char *const[]){"inspect", ver, NULL});
    char *sec = strdup(damaged(prog, "section.prog", 0, 100));
    /* a section's size field 2^39 bytes larger: beyond the file */
    row("section.prog: program: section 2 (kind 3): 5497558", odir,
        (const char *const[]){"run", sec, "-i", in, "-o", odir, NULL});
    char *i32 = strdup(npy("p_i32.npy", "<i4", "(1, 8, 20, 20)", "False", 4 * 3200));
    row("p_i32.npy': input 'x' must be f32[1,8,20,20], got i32[1,8,20,20]", odir,
        (const char *const[]){"run", prog, "-i", i32, "-o", odir, NULL});
    free(prog), free(in), free(odir), free(t), free(fl), free(mg), free(ver), free(sec);
    free(i32);
}

static void test_npy_file(void **state)
{
    (void)state;
    char *conv = strdup(tu_shared(CONV_MODEL)), *odir = strdup(tu_join(dir, "nouts"));
    char *t = strdup(damaged(tu_shared(CONV_INPUT), "trunc.npy", 12918, -1));
    row("trunc.npy: invalid .npy file: 12790 data bytes, but float32 [1,8,20,20] needs 12800",
        odir, (const char *const[]){"run", conv, "-i", t, "-o", odir, NULL});
    char *m = strdup(damaged(tu_shared(CONV_INPUT), "magic.npy", 0, 5));
    row("magic.npy: invalid .npy file: missing \\x93NUMPY magic", odir,
        (const char *const[]){"run", conv, "-i", m, "-o", odir, NULL});
    char *neg = strdup(npy("neg.npy", "<f4", "(1, -3, 8, 8)", "False", 0));
    row("neg.npy: invalid .npy file: 'shape' holds something other than non-negative integers",
        odir, (const char *const[]){"run", conv, "-i", neg, "-o", odir, NULL});
    char *huge = strdup(npy("huge.npy", "<f4", "(1099511627776, 1099511627776)", "False", 0));
    row("huge.npy: tensor too large (more than 17179869184 bytes)", odir,
        (const char *const[]){"run", conv, "-i", huge, "-o", odir, NULL});
    char *cx = strdup(npy("complex.npy", "<c8", "(2,)", "False", 16));
    row("complex.npy: invalid .npy file: dtype '<c8' is not supported", odir,
        (const char *const[]){"run", conv, "-i", cx, "-o", odir, NULL});
    char *fo = strdup(npy("fortran.npy", "<f4", "(2, 2)", "True", 16));
    row("fortran.npy: invalid .npy file: Fortran-order arrays are not supported (save C order)",
        odir, (const char *const[]){"run", conv, "-i", fo, "-o", odir, NULL});
    free(conv), free(odir), free(t), free(m), free(neg), free(huge), free(cx), free(fo);
}

static void test_spec_string(void **state)
{
    (void)state;
    char *conv = strdup(tu_shared(CONV_MODEL)), *out = strdup(tu_join(dir, "spec.prog"));
    row("unknown token 'bogus'; valid for TOSA 1.0: profiles INT, FP;", out,
        (const char *const[]){"compile", conv, "--spec", "TOSA-1.0+INT+bogus", "-o", out, NULL});
    row("TOSA version '9.0' is not supported (valid versions: 1.0, 1.1)", out,
        (const char *const[]){"compile", conv, "--spec", "TOSA-9.0+INT", "-o", out, NULL});
    row("spec string names no profile; add INT and/or FP (e.g. TOSA-1.0+INT)", NULL,
        (const char *const[]){"spec", "TOSA-1.0", NULL});
    /* a spec the model cannot help: the spec's own error, not the model's */
    char err[160];
    snprintf(err, sizeof err, "tosac: error: 'u55' (Arm Ethos-U55) is integer-only and cannot "
             "be combined with FP; valid: INT with u55");
    row(err, out, (const char *const[]){"compile", conv, "--spec", "TOSA-1.0+FP+u55", "-o", out,
                                         NULL});
    free(conv), free(out);
}

static void test_calibration(void **state)
{
    (void)state;
    char *m = strdup(model("float.onnx", "Relu", 1, 4)), *out = strdup(tu_join(dir, "q.onnx"));
    char *empty = strdup(tu_join(dir, "cal_empty")), *wrong = strdup(tu_join(dir, "cal_wrong"));
    char *shape = strdup(tu_join(dir, "cal_shape"));
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(mkdir(wrong, 0755), 0);
    assert_int_equal(mkdir(tu_join(dir, "cal_wrong/s0"), 0755), 0);
    assert_int_equal(mkdir(shape, 0755), 0);
    npy("cal_wrong/s0/z.npy", "<f4", "(1, 4)", "False", 16);
    npy("cal_shape/a.npy", "<f4", "(1, 5)", "False", 20);
    row("--calib /nonexistent/calib: no such file or folder", out,
        (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib", "/nonexistent/calib",
                              "-o", out, NULL});
    char want[400];
    snprintf(want, sizeof want, "calibration folder '%s' has neither x.npy nor sample "
             "sub-folders nor .npy files", empty);
    row(want, out, (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib", empty,
                                         "-o", out, NULL});
    snprintf(want, sizeof want, "calibration folder '%s/s0' has no file x.npy for input 'x'",
             wrong);
    row(want, out, (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib", wrong,
                                         "-o", out, NULL});
    snprintf(want, sizeof want, "calibration input 'x' (%s/a.npy) has shape [1,5], the model "
             "expects f32[1,4]", shape);
    row(want, out, (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib", shape,
                                         "-o", out, NULL});
    char *prog = strdup(tu_join(dir, "q.prog"));
    row("--quantize a8w8 needs calibration data: --calib FILE.npy|NAME=FILE.npy|DIR", prog,
        (const char *const[]){"compile", m, "--spec", "TOSA-1.0+INT", "--quantize", "a8w8", "-o",
                              prog, NULL});
    row("unknown quantization scheme 'a9' (expected a8w8 or a16w8)", out,
        (const char *const[]){"quantize", m, "--scheme", "a9", "--calib", shape, "-o", out, NULL});
    free(m), free(out), free(empty), free(wrong), free(shape), free(prog);
}

/* -o naming what the command reads: refused, the input's bytes unchanged. */
static void refused_keeps(const char *msg, const char *input, const char *const *args)
{
    bytes before = load(input);
    row(msg, NULL, args);
    bytes after = load(input);
    assert_int_equal(after.n, before.n);
    assert_memory_equal(after.p, before.p, before.n);
    free(before.p);
    free(after.p);
}

static void test_output_paths(void **state)
{
    (void)state;
    char *m = strdup(model("float_o.onnx", "Relu", 1, 4));
    char *cal = strdup(tu_join(dir, "cal_ok")), *in = strdup(tu_join(dir, "cal_ok/a.npy"));
    assert_int_equal(mkdir(cal, 0755), 0);
    npy("cal_ok/a.npy", "<f4", "(1, 4)", "False", 16);
    row("cannot write '/proc/tosac-bad-input.prog'", "/proc/tosac-bad-input.prog",
        (const char *const[]){"compile", m, "--spec", "TOSA-1.0+FP", "-o",
                              "/proc/tosac-bad-input.prog", NULL});
    row("cannot write '/nonexistent/dir/x.prog': No such file or directory", NULL,
        (const char *const[]){"compile", m, "--spec", "TOSA-1.0+FP", "-o",
                              "/nonexistent/dir/x.prog", NULL});
    row("cannot write '/proc/q.onnx'", "/proc/q.onnx",
        (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib", cal, "-o",
                              "/proc/q.onnx", NULL});
    char want[400];
    snprintf(want, sizeof want, "-o '%s' names an input of the command (the model or a --calib "
             "file or a file in a --calib folder): it would be overwritten", m);
    refused_keeps(want, m, (const char *const[]){"compile", m, "--spec", "TOSA-1.0+FP", "-o", m,
                                                 NULL});
    snprintf(want, sizeof want, "-o '%s' names the input model: it would be overwritten", m);
    refused_keeps(want, m, (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib",
                                                 cal, "-o", m, NULL});
    /* a file inside the --calib folder is an input too */
    snprintf(want, sizeof want, "-o '%s' names a --calib input (or a file in a --calib folder): "
             "it would be overwritten", in);
    refused_keeps(want, in, (const char *const[]){"quantize", m, "--scheme", "a8w8", "--calib",
                                                  cal, "-o", in, NULL});
    snprintf(want, sizeof want, "-o '%s' names an input of the command", in);
    refused_keeps(want, in, (const char *const[]){"compile", m, "--spec", "TOSA-1.0+INT",
                                                  "--quantize", "a8w8", "--calib", cal, "-o",
                                                  in, NULL});
    /* and the good command, so the rows above fail for their reason only */
    char *out = strdup(tu_join(dir, "ok.onnx"));
    assert_int_equal(tu_cli(NULL, NULL, "quantize", m, "--scheme", "a8w8", "--calib", cal, "-o",
                            out, NULL), 0);
    assert_true(exists(out));
    free(m), free(cal), free(in), free(out);
}

static int setup(void **state)
{
    (void)state;
    dir = tu_mkdtemp();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_rmtree_free(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_onnx_model),   cmocka_unit_test(test_tosa_file),
        cmocka_unit_test(test_program_file), cmocka_unit_test(test_npy_file),
        cmocka_unit_test(test_spec_string),  cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_output_paths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
