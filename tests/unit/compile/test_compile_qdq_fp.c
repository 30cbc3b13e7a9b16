/* A QDQ model under TOSA-1.0+FP (no PRO-INT): mobilenet_v2_qdq_u8s8_op13 compiles with every
 * Conv and the Gemm delegated in float (pass_unfold_float dequantizes the constant int8
 * weights and int32 biases at compile time; they stayed on the CPU with "weights are not
 * constant" before), the activations' Q/DQ lowered with PRO-FP operators (CAST), so the
 * network is one delegate with nothing on the CPU (was 119 delegates), and the program
 * matches onnxruntime on the 3 samples.
 *
 * Tolerance (the zoo suite's for QDQ models, tests/zoo/zoo_test.c): one step of the output's
 * DequantizeLinear + onnxruntime's own spread between its fused and plain evaluations
 * (meta.json: 0.0390944667160511) + 1e-6. A float CONV2D sums in another order than the CPU
 * kernel, so an activation at a rounding boundary may quantize one step apart and carry on;
 * measured 0.0293 (the TOSA-1.0+INT program shows the same). */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"
#include "tosac/program.h"
#include "util/json.h"

#define MODEL "models/mobilenet_v2_qdq_u8s8_op13/"

static char *path(const char *rel)
{
    static char buf[4][1024];
    static int k;
    char full[512];
    snprintf(full, sizeof full, MODEL "%s", rel);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", tu_shared(full));
    return buf[k];
}

/* Scale of the DequantizeLinear producing the graph output. */
static double output_step(const ir_graph *g)
{
    int p = ir_graph_producer(g, g->outputs[0]);
    assert_true(p >= 0 && ir_node_is(&g->nodes[p], "DequantizeLinear"));
    tosac_tensor s;
    assert_true(ir_graph_const_value(g, g->nodes[p].inputs[1], &s));
    return ((const float *)s.data)[0];
}

static void test_mobilenet_fp(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = NULL;
    assert_int_equal(onnx_import_file(path("model.onnx"), &m, &err), TOSAC_OK);
    double tol = output_step(m->graph) + 0.0390944667160511 + 1e-6;
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = "TOSA-1.0+FP";
    tosac_program *p = NULL;
    char *report = NULL;
    if (tosac_compile_model(m, &o, &p, &report, &err))
        fail_msg("compile: %s", err.msg);
    tosac_json *doc = NULL;
    assert_int_equal(tosac_json_parse(report, strlen(report), &doc, &err), TOSAC_OK);
    free(report);
    const tosac_json *nodes = tosac_json_get(doc, "nodes");
    int conv = 0, gemm = 0, cpu = 0;
    for (int i = 0; i < tosac_json_count(nodes); i++) {
        const tosac_json *n = tosac_json_at(nodes, i);
        const char *op = tosac_json_string(tosac_json_get(n, "op_type"));
        const char *where = tosac_json_string(tosac_json_get(n, "placement"));
        if (strcmp(where, "cpu") == 0) {
            cpu++;
            print_error("%s on the CPU: %s\n", op, tosac_json_string(tosac_json_get(n, "reason")));
        }
        conv += strcmp(op, "Conv") == 0 && strcmp(where, "delegate") == 0;
        gemm += strcmp(op, "Gemm") == 0 && strcmp(where, "delegate") == 0;
    }
    int64_t n_delegates = -1;
    assert_true(tosac_json_int(tosac_json_get(doc, "n_delegates"), &n_delegates));
    tosac_json_free(doc);
    assert_int_equal(conv, 52);
    assert_int_equal(gemm, 1);
    assert_int_equal(cpu, 0);
    assert_int_equal(n_delegates, 1);
    static const char *const samples[] = {"00", "01", "02"};
    for (int s = 0; s < 3; s++) {
        char rel[64];
        tosac_tensor in, want, got;
        snprintf(rel, sizeof rel, "inputs/%s/input.npy", samples[s]);
        assert_int_equal(tosac_npy_read(path(rel), &in, &err), TOSAC_OK);
        snprintf(rel, sizeof rel, "expected/%s/logits.npy", samples[s]);
        assert_int_equal(tosac_npy_read(path(rel), &want, &err), TOSAC_OK);
        if (tosac_program_run(p, &in, 1, &got, 1, &err))
            fail_msg("run: %s", err.msg);
        assert_int_equal(tosac_tensor_numel(&got), tosac_tensor_numel(&want));
        double worst = 0;
        for (int64_t i = 0; i < tosac_tensor_numel(&got); i++)
            worst = fmax(worst, fabs((double)((float *)got.data)[i] - ((float *)want.data)[i]));
        if (worst > tol)
            fail_msg("sample %s: max |got - onnxruntime| %g > %g", samples[s], worst, tol);
        tosac_tensor_free(&in);
        tosac_tensor_free(&want);
        tosac_tensor_free(&got);
    }
    tosac_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mobilenet_fp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
