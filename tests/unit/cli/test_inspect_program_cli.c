/* `tosac inspect PROGRAM [--json]`: the compile report kept in the program (every node's
 * placement and reason), the delegates (operators, quantized I/O) and the CPU graph; programs
 * without a report; bad files. */
#include "backend_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/program_internal.h" /* test_without_report drops the report */
#include "tosac/compile.h"
#include "tosac/program.h"
#include "util/fileio.h"
#include "util/json.h"

#define MODEL "models/synth_qdq_s16_op21_split_matmul/model.onnx"

static char *compile(const char *dir)
{
    char *prg = malloc(600);
    snprintf(prg, 600, "%s/sm.prg", dir);
    char *model = strdup(tu_shared(MODEL));
    assert_int_equal(tu_cli(NULL, NULL, "compile", model, "--spec", "TOSA-1.0+INT+int16+u55",
                            "-o", prg, NULL), 0);
    free(model);
    return prg;
}

static void test_text(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = compile(dir), *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, NULL), 0);
    assert_non_null(strstr(out, "spec TOSA-1.0+INT+int16+u55\n"));
    assert_non_null(strstr(out, "1 delegate, CPU graph of 8 nodes\n"));
    assert_non_null(strstr(out, "nodes (13):\n"));
    /* the int16 MatMul stays on the CPU with the U55 reason (Vela's U55 MATMUL is int8 only);
     * Split and Transpose are delegated */
    const char *mm = strstr(out, "MatMul_10");
    assert_non_null(mm);
    assert_non_null(strstr(mm, "cpu: U55 restriction: MATMUL of int16 activations is not "
                                "supported on Ethos-U55 (int8 x int8 only)\n"));
    /* the edge Q/DQ: integer delegate boundaries, with the category named once */
    assert_non_null(strstr(out, "QuantizeLinear       cpu: boundary rule: delegates without "
                                "PRO-FP keep their boundaries integer"));
    assert_non_null(strstr(out, "Split_2"));
    assert_non_null(strstr(strstr(out, "Split_2"), "delegate 0\n"));
    assert_non_null(strstr(out, "delegate 0: SLICE 2, TRANSPOSE 1\n"));
    assert_non_null(strstr(out, "input  x_q int16 [1,2,64,49] scale 0.000120771307 zero_point 0"));
    assert_non_null(strstr(out, "output k_q int16 [1,2,32,49]"));
    assert_non_null(strstr(out, "cpu graph: QuantizeLinear TosaDelegate DequantizeLinear"));
    free(out);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

static void test_json(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = compile(dir), *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, "--json", NULL), 0);
    tosac_json *j = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_json_parse(out, strlen(out), &j, &err), TOSAC_OK);
    assert_string_equal(tosac_json_string(tosac_json_get(j, "spec")), "TOSA-1.0+INT+int16+u55");
    /* docs/REPORT.md: the report's fields, with the same meaning as in compile --report */
    int64_t sv = 0, nd = -1, bd = -1;
    assert_true(tosac_json_int(tosac_json_get(j, "schema_version"), &sv));
    assert_int_equal(sv, TOSAC_REPORT_SCHEMA_VERSION);
    assert_true(tosac_json_int(tosac_json_get(j, "n_delegates"), &nd));
    assert_int_equal(nd, 1);
    assert_int_equal(tosac_json_count(tosac_json_get(j, "delegates")), 1);
    assert_true(tosac_json_int(tosac_json_get(j, "body_delegates"), &bd));
    assert_int_equal(bd, 0);
    const tosac_json *nodes = tosac_json_get(j, "nodes");
    assert_int_equal(tosac_json_count(nodes), 13);
    int delegated = 0, cpu = 0;
    for (int i = 0; i < 13; i++) {
        const char *pl = tosac_json_string(tosac_json_get(tosac_json_at(nodes, i), "placement"));
        delegated += strcmp(pl, "delegate") == 0;
        cpu += strcmp(pl, "cpu") == 0;
    }
    assert_int_equal(delegated, 2);
    assert_int_equal(cpu, 4); /* input Q, two output DQ, the MatMul */
    int u55 = 0, boundary = 0;
    for (int i = 0; i < 13; i++) {
        const char *cat = tosac_json_string(tosac_json_get(tosac_json_at(nodes, i), "category"));
        u55 += cat && strcmp(cat, "U55 restriction") == 0;
        boundary += cat && strcmp(cat, "boundary rule") == 0;
    }
    assert_int_equal(u55, 1);
    assert_int_equal(boundary, 3);
    const tosac_json *d0 = tosac_json_at(tosac_json_get(j, "delegates"), 0);
    int64_t v;
    assert_true(tosac_json_int(tosac_json_get(tosac_json_get(d0, "operators"), "SLICE"), &v));
    assert_int_equal(v, 2);
    const tosac_json *outs = tosac_json_get(d0, "outputs");
    assert_int_equal(tosac_json_count(outs), 2);
    assert_string_equal(tosac_json_string(tosac_json_get(tosac_json_at(outs, 0), "dtype")),
                        "int16");
    assert_int_equal(tosac_json_count(tosac_json_get(j, "cpu_nodes")), 8);
    tosac_json_free(j);
    free(out);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

/* A program written without a report (as before the report was stored) still inspects. */
static void test_without_report(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = compile(dir), *out = NULL;
    tosac_program *p = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_program_read_file(prg, &p, &err), TOSAC_OK);
    assert_non_null(tosac_program_report(p));
    free(p->report); /* white box: the legacy program, written without one */
    p->report = NULL;
    assert_int_equal(tosac_program_write_file(p, prg, &err), TOSAC_OK);
    tosac_program_free(p);
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, NULL), 0);
    assert_non_null(strstr(out, "(no compile report in this program)"));
    assert_non_null(strstr(out, "delegate 0: SLICE 2, TRANSPOSE 1"));
    free(out);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

/* --dot: the delegate as a labelled cluster of its 3 operators (the split's two SLICEs and the
 * TRANSPOSE; no CONST), the MatMul left on the CPU (u55 has no int16 MATMUL) apart, edges
 * labelled with dtype and shape, the delegate's inputs bound to the CPU value feeding them. */
static void test_dot(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = compile(dir), *out = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, "--dot", NULL), 0);
    assert_non_null(strstr(out, "digraph program {"));
    assert_non_null(strstr(out, "subgraph cluster_d0 {\n    label=\"delegate 0: 3 TOSA operators\";"));
    assert_null(strstr(out, "CONST"));
    assert_int_equal(tu_count_lines(out) > 20, 1);
    assert_non_null(strstr(out, "label=\"MatMul\\n(CPU)\"]"));
    assert_non_null(strstr(out, "-> din1_0 [label=\"i16[1x2x64x49]\"];"));
    assert_non_null(strstr(out, "fillcolor=white, label=\"TRANSPOSE\"];"));
    assert_non_null(strstr(out, " -> dout1_1 [label=\"i16[1x2x49x32]\"];"));
    free(out);
    /* the ONNX model with --spec: compiled in memory, the same picture as its program's */
    char *model = strdup(tu_shared(MODEL)), *from_onnx = NULL;
    assert_int_equal(tu_cli(&out, NULL, "inspect", prg, "--dot", NULL), 0);
    assert_int_equal(tu_cli(&from_onnx, NULL, "inspect", model, "--dot", "--spec",
                            "TOSA-1.0+INT+int16+u55", NULL), 0);
    assert_string_equal(from_onnx, out);
    free(from_onnx);
    free(out);
    free(model);
    char *errout = NULL;
    assert_int_equal(tu_cli(NULL, &errout, "inspect", prg, "--dot", "--json", NULL), 2);
    assert_non_null(strstr(errout, "--json and --dot exclude each other"));
    free(errout);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

static void test_bad_files(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp(), *prg = compile(dir), *errout = NULL;
    void *buf = NULL;
    size_t len = 0;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_read_file(prg, &buf, &len, &err), TOSAC_OK);
    /* cut inside the report: the header's file size promises more than there is */
    assert_int_equal(tosac_write_file(prg, buf, len - 10, &err), TOSAC_OK);
    assert_int_equal(tu_cli(NULL, &errout, "inspect", prg, NULL), 2);
    assert_non_null(strstr(errout, "the file has"));
    free(errout);
    /* the report is not JSON */
    char *bad = malloc(len);
    memcpy(bad, buf, len);
    size_t at = len - 6;
    while (at > 0 && memcmp(bad + at, "\"spec\"", 6) != 0)
        at--;
    assert_true(at > 0);
    bad[at] = '?'; /* the report's first key loses its opening quote */
    assert_int_equal(tosac_write_file(prg, bad, len, &err), TOSAC_OK);
    assert_int_equal(tu_cli(NULL, &errout, "inspect", prg, NULL), 2);
    assert_non_null(strstr(errout, "tosac: error:"));
    free(errout);
    assert_int_equal(tu_cli(NULL, &errout, "inspect", prg, "--frob", NULL), 2);
    assert_non_null(strstr(errout, "unknown option '--frob'"));
    free(errout);
    free(bad);
    free(buf);
    free(prg);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_without_report),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
