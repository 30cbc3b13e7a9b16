/* Lean delegates: the zoo's CNNs compile to one delegate whose TRANSPOSEs sit only at its
 * edges (at most one per delegate input and output) and which holds no IDENTITY, with every
 * convolution still there (layout propagation, src/lower/lower_layout_propagate.c). Before
 * it, the mobilenet_v2 QDQ delegate held 27 TRANSPOSE and 35 IDENTITY operators, resnet18 25
 * and 17, ppocr 74 TRANSPOSEs. Results of these programs are checked against onnxruntime by
 * the zoo_compile suite; here only their operators. Needs the shared zoo. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/program.h"

typedef struct lean_case {
    const char *model, *spec, *quantize, *input_shape;
    int convs; /* CONV2D + DEPTHWISE_CONV2D (the classifier's Gemm is a CONV2D too) */
} lean_case;

static const lean_case cases[] = {
    {"mobilenet_v2_qdq_u8s8_op13", "TOSA-1.0+INT", NULL, NULL, 53},
    {"resnet18_qdq_u8s8_op13", "TOSA-1.0+INT", NULL, NULL, 21},
    {"ppocr_mobile_v2_cls", "TOSA-1.0+FP", NULL, "x=1,3,48,192", 54},
    {"mobilenet_v2_f32_op13", "TOSA-1.0+FP", NULL, NULL, 53},
    {"mobilenet_v2_f32_op13", "TOSA-1.0+INT", "a8w8", NULL, 53},
};

static int count(const tosa_block *b, tosa_op op)
{
    int n = 0;
    for (int i = 0; i < b->n_ops; i++)
        n += b->ops[i].op == op;
    return n;
}

static void test_zoo_cnns(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const lean_case *c = &cases[i];
        char model[1024], calib[1024], prg[1024];
        snprintf(model, sizeof model, "%s/%s/model.onnx", tu_shared("models"), c->model);
        snprintf(calib, sizeof calib, "%s/%s/inputs", tu_shared("models"), c->model);
        snprintf(prg, sizeof prg, "%s/p%zu.prg", dir, i);
        const char *calibs[1] = {calib};
        tosac_compile_options o;
        memset(&o, 0, sizeof o);
        o.spec = c->spec;
        o.quantize = c->quantize;
        if (c->quantize) {
            o.calib = calibs;
            o.n_calib = 1;
        }
        if (c->input_shape) {
            o.input_shapes = &c->input_shape;
            o.n_input_shapes = 1;
        }
        tosac_error err;
        tosac_error_clear(&err);
        tosac_program *p = NULL;
        tosac_code rc = tosac_compile_file(model, prg, &o, &err);
        if (!rc)
            rc = tosac_program_read_file(prg, &p, &err);
        if (rc)
            fail_msg("%s under %s: %s", c->model, c->spec, err.msg);
        assert_int_equal(tosac_program_n_delegates(p), 1);
        const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, 0));
        int t = count(b, TOSA_OP_TRANSPOSE), id = count(b, TOSA_OP_IDENTITY);
        int convs = count(b, TOSA_OP_CONV2D) + count(b, TOSA_OP_DEPTHWISE_CONV2D);
        printf("%s %s%s%s: %d TRANSPOSE, %d IDENTITY, %d convolutions, %d+%d delegate I/O\n",
               c->model, c->spec, c->quantize ? " --quantize " : "",
               c->quantize ? c->quantize : "", t, id, convs, b->n_inputs, b->n_outputs);
        assert_true(t <= b->n_inputs + b->n_outputs);
        assert_int_equal(id, 0);
        assert_int_equal(convs, c->convs);
        tosac_program_free(p);
    }
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_cnns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
