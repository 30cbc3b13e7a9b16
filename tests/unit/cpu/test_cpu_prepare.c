/* The CPU operators' prepare/eval split (cpu_internal.h): every attribute is read by the
 * prepare step, once per plan, and never while the node runs.
 *
 * The seam: a plan prepares its nodes when it is made; the node's attributes are then
 * hidden (n_attrs = 0), so an eval that still looked one up would see the ONNX default. For
 * each operator below, with attributes that are not the defaults, the plan made before the
 * attributes were hidden must give bit for bit the outputs it gave with them, and a plan
 * made after must not (it fails, or its outputs differ): the attributes matter, so the first
 * check could fail. What each operator computes is pinned by the ONNX node tests; a few
 * results are checked here by hand as well, with the prepare-time errors of invalid
 * attributes (the same one-line messages eval used to give). */
#include "testutil.h"

#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/cpu_internal.h"
#include "cpu_testgraph.h"

#define F32 TOSAC_DT_F32
#define I64 TOSAC_DT_I64
#define BOOL TOSAC_DT_BOOL

typedef struct tin {
    tosac_dtype dt;
    int rank;
    int64_t shape[4];
    const void *v;      /* rank-product values of dt */
    int is_const;       /* a constant of the graph, else a graph input */
} tin;

typedef struct tcase {
    const char *op;
    int64_t opset;
    int n_in, n_out;
    tin in[5];
    void (*attrs)(ir_graph *g, int k);
} tcase;

static tosac_error E; /* attribute setters' errors: checked after each build */

#define SET_I(name, v) ir_node_set_int(g, k, name, v, &E)
#define SET_F(name, v) ir_node_set_float(g, k, name, v, &E)
#define SET_S(name, v) ir_node_set_string(g, k, name, v, &E)
#define SET_INTS(name, ...)                                                                    \
    ir_node_set_ints(g, k, name, (const int64_t[]){__VA_ARGS__},                               \
                     (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), &E)

static void a_reduce(ir_graph *g, int k) { SET_INTS("axes", 1); SET_I("keepdims", 0); }
static void a_reduce0(ir_graph *g, int k) { SET_INTS("axes", -2); }
static void a_keepdims0(ir_graph *g, int k) { SET_I("keepdims", 0); }
static void a_argmax(ir_graph *g, int k) { SET_I("axis", 1); SET_I("keepdims", 0); SET_I("select_last_index", 1); }
static void a_topk(ir_graph *g, int k) { SET_I("k", 1); SET_I("axis", 0); SET_I("largest", 0); }
static void a_cumsum(ir_graph *g, int k) { SET_I("exclusive", 1); SET_I("reverse", 1); }
static void a_eps(ir_graph *g, int k) { SET_F("epsilon", 0.5f); }
static void a_layernorm(ir_graph *g, int k) { SET_I("axis", 0); SET_F("epsilon", 0.5f); }
static void a_lrn(ir_graph *g, int k) { SET_I("size", 3); SET_F("alpha", 0.5f); SET_F("beta", 1); SET_F("bias", 2); }
static void a_mvn(ir_graph *g, int k) { SET_INTS("axes", 1); }
static void a_resize(ir_graph *g, int k) { SET_S("mode", "linear"); SET_S("coordinate_transformation_mode", "align_corners"); }
static void a_upsample(ir_graph *g, int k) { SET_S("mode", "linear"); }
static void a_grid(ir_graph *g, int k) { SET_S("mode", "nearest"); SET_I("align_corners", 1); }
static void a_alpha(ir_graph *g, int k) { SET_F("alpha", 0.5f); }
static void a_selu(ir_graph *g, int k) { SET_F("alpha", 2); SET_F("gamma", 3); }
static void a_hardsigmoid(ir_graph *g, int k) { SET_F("alpha", 0.25f); SET_F("beta", 0.25f); }
static void a_shrink(ir_graph *g, int k) { SET_F("lambd", 1.5f); SET_F("bias", 0.5f); }
static void a_gelu(ir_graph *g, int k) { SET_S("approximate", "tanh"); }
static void a_clip(ir_graph *g, int k) { SET_F("min", -1); SET_F("max", 2); }
static void a_cast(ir_graph *g, int k) { SET_I("to", 7); }
static void a_isinf(ir_graph *g, int k) { SET_I("detect_negative", 0); }
static void a_pad2(ir_graph *g, int k) { SET_INTS("pads", 0, 1, 0, 1); SET_F("value", 9); }
static void a_pad_edge(ir_graph *g, int k) { SET_S("mode", "edge"); }
static void a_d2s(ir_graph *g, int k) { SET_I("blocksize", 2); SET_S("mode", "CRD"); }
static void a_s2d(ir_graph *g, int k) { SET_I("blocksize", 2); }
static void a_trilu(ir_graph *g, int k) { SET_I("upper", 0); }
static void a_crop(ir_graph *g, int k) { SET_INTS("axes", 1); }
static void a_revseq(ir_graph *g, int k) { SET_I("batch_axis", 0); SET_I("time_axis", 1); }
static void a_batch_dims(ir_graph *g, int k) { SET_I("batch_dims", 1); }
static void a_scatter(ir_graph *g, int k) { SET_I("axis", 1); SET_S("reduction", "add"); }
static void a_scatter_nd(ir_graph *g, int k) { SET_S("reduction", "mul"); }
static void a_axis0(ir_graph *g, int k) { SET_I("axis", 0); }
static void a_axis1(ir_graph *g, int k) { SET_I("axis", 1); }
static void a_unique(ir_graph *g, int k) { SET_I("sorted", 0); }
static void a_window(ir_graph *g, int k) { SET_I("periodic", 0); SET_I("output_datatype", 11); }
static void a_dft(ir_graph *g, int k) { SET_I("inverse", 1); }
static void a_onesided0(ir_graph *g, int k) { SET_I("onesided", 0); }
static void a_dtype11(ir_graph *g, int k) { SET_I("output_datatype", 11); }
static void a_rnn(ir_graph *g, int k)
{
    SET_S("direction", "reverse");
    SET_I("hidden_size", 1);
    ir_node_set_strings(g, k, "activations", (const char *const[]){"Relu"}, 1, &E);
}
static void a_gru(ir_graph *g, int k) { SET_I("linear_before_reset", 1); SET_F("clip", 0.25f); }
static void a_nms(ir_graph *g, int k) { SET_I("center_point_box", 1); }
static void a_roi(ir_graph *g, int k)
{
    SET_S("mode", "max");
    SET_I("output_height", 2);
    SET_I("sampling_ratio", 1);
    SET_F("spatial_scale", 0.5f);
}
static void a_loss(ir_graph *g, int k) { SET_S("reduction", "sum"); SET_I("ignore_index", 2); }
static void a_loss_none(ir_graph *g, int k) { SET_S("reduction", "none"); }
static void a_tfidf(ir_graph *g, int k)
{
    SET_S("mode", "TF");
    SET_I("min_gram_length", 1);
    SET_I("max_gram_length", 1);
    SET_INTS("pool_int64s", 7, 8);
    SET_INTS("ngram_counts", 0);
    SET_INTS("ngram_indexes", 1, 0);
}
static void a_strides2(ir_graph *g, int k) { SET_INTS("strides", 2); }
static void a_unpool(ir_graph *g, int k) { SET_INTS("kernel_shape", 2); SET_INTS("strides", 2); }
static void a_constant(ir_graph *g, int k)
{
    tosac_tensor t;
    tosac_error err;
    int64_t s = 2;
    assert_int_equal(tosac_tensor_alloc(&t, F32, 1, &s, &err), TOSAC_OK);
    ((float *)t.data)[0] = 4;
    ((float *)t.data)[1] = -4;
    ir_node_set_tensor(g, k, "value", &t, &E);
    tosac_tensor_free(&t);
}
static void a_cos(ir_graph *g, int k)
{
    tosac_tensor t;
    tosac_error err;
    int64_t s = 1;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_I32, 1, &s, &err), TOSAC_OK);
    ((int32_t *)t.data)[0] = 5;
    ir_node_set_tensor(g, k, "value", &t, &E);
    tosac_tensor_free(&t);
}
static void a_shape(ir_graph *g, int k) { SET_I("start", 1); }
static void a_eyelike(ir_graph *g, int k) { SET_I("k", 1); }

/* x: [2, 3] of mixed signs, with a tie in row 0 */
static const float X6[6] = {1, -2, 1, -4, 5, -6};
#define X23 {F32, 2, {2, 3}, X6, 0}

static const tcase cases[] = {
    {"ReduceSum", 11, 1, 1, {X23}, a_reduce},
    {"ReduceMax", 11, 1, 1, {X23}, a_reduce0},
    {"ReduceLogSumExp", 13, 1, 1, {X23}, a_reduce},
    {"ReduceMean", 18, 2, 1, {X23, {I64, 1, {1}, (const int64_t[]){-1}, 1}}, a_keepdims0},
    {"ArgMax", 13, 1, 1, {X23}, a_argmax},
    {"ArgMin", 13, 1, 1, {X23}, a_argmax},
    {"TopK", 1, 1, 2, {X23}, a_topk},
    {"CumSum", 14, 2, 1, {X23, {I64, 0, {0}, (const int64_t[]){1}, 1}}, a_cumsum},
    {"BatchNormalization", 15, 5, 1,
     {{F32, 4, {1, 2, 1, 2}, (const float[]){1, 2, 3, 5}, 0},
      {F32, 1, {2}, (const float[]){1, 2}, 1}, {F32, 1, {2}, (const float[]){0, 1}, 1},
      {F32, 1, {2}, (const float[]){1, 4}, 1}, {F32, 1, {2}, (const float[]){1, 0.5f}, 1}},
     a_eps},
    {"InstanceNormalization", 6, 3, 1,
     {{F32, 3, {1, 2, 2}, (const float[]){1, 3, 0, 4}, 0},
      {F32, 1, {2}, (const float[]){1, 2}, 1}, {F32, 1, {2}, (const float[]){0, 1}, 1}},
     a_eps},
    {"LayerNormalization", 17, 2, 1, {X23, {F32, 1, {3}, (const float[]){1, 2, 3}, 1}},
     a_layernorm},
    {"LRN", 13, 1, 1, {{F32, 4, {1, 3, 1, 1}, (const float[]){1, 2, 3}, 0}}, a_lrn},
    {"MeanVarianceNormalization", 13, 1, 1, {X23}, a_mvn},
    {"Resize", 13, 3, 1,
     {{F32, 4, {1, 1, 1, 2}, (const float[]){1, 3}, 0}, {F32, 1, {0}, NULL, 1},
      {F32, 1, {4}, (const float[]){1, 1, 1, 2}, 1}},
     a_resize},
    {"Upsample", 9, 2, 1,
     {{F32, 4, {1, 1, 1, 2}, (const float[]){1, 3}, 0},
      {F32, 1, {4}, (const float[]){1, 1, 1, 2}, 1}},
     a_upsample},
    {"GridSample", 16, 2, 1,
     {{F32, 4, {1, 1, 2, 2}, (const float[]){1, 2, 3, 4}, 0},
      {F32, 4, {1, 1, 1, 2}, (const float[]){0.25f, 0.25f}, 1}},
     a_grid},
    {"LeakyRelu", 16, 1, 1, {X23}, a_alpha},
    {"Elu", 6, 1, 1, {X23}, a_alpha},
    {"Celu", 12, 1, 1, {X23}, a_alpha},
    {"ThresholdedRelu", 10, 1, 1, {X23}, a_alpha},
    {"Selu", 6, 1, 1, {X23}, a_selu},
    {"HardSigmoid", 6, 1, 1, {X23}, a_hardsigmoid},
    {"Shrink", 9, 1, 1, {X23}, a_shrink},
    {"Gelu", 20, 1, 1, {X23}, a_gelu},
    {"Clip", 6, 1, 1, {X23}, a_clip},
    {"Cast", 13, 1, 1, {X23}, a_cast},
    {"IsInf", 10, 1, 1,
     {{F32, 1, {3}, (const float[]){__builtin_inff(), -__builtin_inff(), 0}, 0}}, a_isinf},
    {"Pad", 2, 1, 1, {X23}, a_pad2},
    {"Pad", 13, 2, 1, {X23, {I64, 1, {4}, (const int64_t[]){0, 1, 0, 1}, 1}}, a_pad_edge},
    {"DepthToSpace", 13, 1, 1,
     {{F32, 4, {1, 8, 1, 1}, (const float[]){0, 1, 2, 3, 4, 5, 6, 7}, 0}}, a_d2s},
    {"SpaceToDepth", 13, 1, 1, {{F32, 4, {1, 1, 2, 2}, (const float[]){1, 2, 3, 4}, 0}}, a_s2d},
    {"Trilu", 14, 1, 1, {X23}, a_trilu},
    /* without its axes the one target length is too few for the two axes: the plan fails */
    {"CenterCropPad", 18, 2, 1, {X23, {I64, 1, {1}, (const int64_t[]){2}, 1}}, a_crop},
    {"ReverseSequence", 10, 2, 1, {X23, {I64, 1, {2}, (const int64_t[]){3, 2}, 1}}, a_revseq},
    {"GatherND", 13, 2, 1, {X23, {I64, 2, {2, 1}, (const int64_t[]){2, 0}, 1}}, a_batch_dims},
    {"ScatterElements", 16, 3, 1,
     {X23, {I64, 2, {2, 1}, (const int64_t[]){0, 2}, 1},
      {F32, 2, {2, 1}, (const float[]){10, 20}, 1}},
     a_scatter},
    {"ScatterND", 16, 3, 1,
     {X23, {I64, 2, {1, 1}, (const int64_t[]){1}, 1},
      {F32, 2, {1, 3}, (const float[]){2, 2, 2}, 1}},
     a_scatter_nd},
    {"OneHot", 11, 3, 1,
     {{I64, 1, {2}, (const int64_t[]){0, 2}, 1}, {I64, 0, {0}, (const int64_t[]){3}, 1},
      {F32, 1, {2}, (const float[]){0, 1}, 0}},
     a_axis0},
    {"Compress", 11, 2, 1, {X23, {BOOL, 1, {3}, (const uint8_t[]){1, 0, 1}, 1}}, a_axis1},
    {"Unique", 11, 1, 1, {{F32, 1, {3}, (const float[]){3, 1, 3}, 0}}, a_unique},
    {"HannWindow", 17, 1, 1, {{I64, 0, {0}, (const int64_t[]){4}, 1}}, a_window},
    {"BlackmanWindow", 17, 1, 1, {{I64, 0, {0}, (const int64_t[]){4}, 1}}, a_window},
    {"DFT", 17, 1, 1, {{F32, 3, {1, 4, 1}, (const float[]){1, 2, 0, -1}, 0}}, a_dft},
    {"STFT", 17, 4, 1,
     {{F32, 3, {1, 4, 1}, (const float[]){1, 2, 0, -1}, 0},
      {I64, 0, {0}, (const int64_t[]){2}, 1}, {F32, 1, {4}, (const float[]){1, 0.5f, 1, 2}, 1},
      {I64, 0, {0}, (const int64_t[]){4}, 1}},
     a_onesided0},
    {"MelWeightMatrix", 17, 5, 1,
     {{I64, 0, {0}, (const int64_t[]){2}, 1}, {I64, 0, {0}, (const int64_t[]){8}, 1},
      {I64, 0, {0}, (const int64_t[]){8000}, 1}, {F32, 0, {0}, (const float[]){0}, 1},
      {F32, 0, {0}, (const float[]){4000}, 1}},
     a_dtype11},
    {"RNN", 14, 3, 2,
     {{F32, 3, {2, 1, 1}, (const float[]){1, -3}, 0}, {F32, 3, {1, 1, 1}, (const float[]){1}, 1},
      {F32, 3, {1, 1, 1}, (const float[]){0.5f}, 1}},
     a_rnn},
    {"GRU", 14, 3, 2,
     {{F32, 3, {2, 1, 1}, (const float[]){1, -3}, 0},
      {F32, 3, {1, 3, 1}, (const float[]){1, 0.5f, -1}, 1},
      {F32, 3, {1, 3, 1}, (const float[]){0.5f, 1, 2}, 1}},
     a_gru},
    {"NonMaxSuppression", 11, 4, 1,
     {{F32, 3, {1, 2, 4}, (const float[]){0, 0, 2, 2, 1, 1, 2, 2}, 0},
      {F32, 3, {1, 1, 2}, (const float[]){0.9f, 0.8f}, 0},
      {I64, 1, {1}, (const int64_t[]){2}, 1}, {F32, 1, {1}, (const float[]){0.2f}, 1}},
     a_nms},
    {"RoiAlign", 16, 3, 1,
     {{F32, 4, {1, 1, 2, 2}, (const float[]){1, 2, 3, 4}, 0},
      {F32, 2, {1, 4}, (const float[]){0, 0, 4, 4}, 1}, {I64, 1, {1}, (const int64_t[]){0}, 1}},
     a_roi},
    {"NegativeLogLikelihoodLoss", 13, 2, 1, {X23, {I64, 1, {2}, (const int64_t[]){0, 2}, 1}},
     a_loss},
    {"SoftmaxCrossEntropyLoss", 13, 2, 1, {X23, {I64, 1, {2}, (const int64_t[]){0, 1}, 1}},
     a_loss_none},
    {"TfIdfVectorizer", 9, 1, 1, {{I64, 1, {4}, (const int64_t[]){7, 7, 8, 7}, 1}}, a_tfidf},
    {"ConvTranspose", 11, 2, 1,
     {{F32, 3, {1, 1, 2}, (const float[]){1, 2}, 0}, {F32, 3, {1, 1, 2}, (const float[]){1, 3}, 1}},
     a_strides2},
    {"MaxUnpool", 11, 2, 1,
     {{F32, 3, {1, 1, 2}, (const float[]){5, 6}, 0}, {I64, 3, {1, 1, 2}, (const int64_t[]){0, 3}, 1}},
     a_unpool},
    {"Constant", 13, 0, 1, {{0}}, a_constant},
    {"ConstantOfShape", 13, 1, 1, {{I64, 1, {1}, (const int64_t[]){2}, 1}}, a_cos},
    {"Shape", 15, 1, 1, {X23}, a_shape},
    {"EyeLike", 9, 1, 1, {X23}, a_eyelike},
};

/* One node of c over its inputs, outputs of unknown type and shape. */
static ir_model *build(const tcase *c, int *node, tosac_tensor *inputs, int *n_inputs)
{
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_error_clear(&E);
    int in[5], out[2];
    *n_inputs = 0;
    for (int i = 0; i < c->n_in; i++) {
        const tin *t = &c->in[i];
        char name[4] = {'i', (char)('0' + i), 0};
        tosac_tensor v;
        assert_int_equal(tosac_tensor_alloc(&v, t->dt, t->rank, t->shape, &err), TOSAC_OK);
        if (v.nbytes)
            memcpy(v.data, t->v, v.nbytes);
        if (t->is_const) {
            in[i] = ir_graph_add_const(g, name, t->dt, t->rank, t->shape, v.data, v.nbytes, &err);
            tosac_tensor_free(&v);
        } else {
            in[i] = ir_graph_add_input(g, name, t->dt, t->rank, t->shape, &err);
            inputs[(*n_inputs)++] = v;
        }
        assert_true(in[i] >= 0);
    }
    for (int o = 0; o < c->n_out; o++) {
        char name[4] = {'y', (char)('0' + o), 0};
        out[o] = ir_graph_add_tensor(g, name, TOSAC_DT_UNKNOWN, -1, NULL, &err);
    }
    *node = ir_graph_add_node(g, c->op, NULL, "n", in, c->n_in, out, c->n_out, &err);
    assert_true(*node >= 0);
    c->attrs(g, *node);
    assert_int_equal(E.code, TOSAC_OK);
    for (int o = 0; o < c->n_out; o++)
        ir_graph_mark_output(g, out[o], &err);
    assert_int_equal(err.code, TOSAC_OK);
    return m;
}

static int same(const tosac_tensor *a, const tosac_tensor *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i].dtype != b[i].dtype || a[i].rank != b[i].rank || a[i].nbytes != b[i].nbytes)
            return 0;
        for (int k = 0; k < a[i].rank; k++)
            if (a[i].shape[k] != b[i].shape[k])
                return 0;
        if (a[i].nbytes && memcmp(a[i].data, b[i].data, a[i].nbytes) != 0)
            return 0;
    }
    return 1;
}

static void free_all(tosac_tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        tosac_tensor_free(&t[i]);
}

/* The seam of the file comment, on plan p of the graph holding node k: runs it with the
 * attributes, hidden, and a new plan with them hidden. */
static void check_no_attr_read(const char *op, ir_model *m, int k, int64_t opset,
                               const tosac_tensor *in, int n_in, int n_out)
{
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    cpu_plan *p;
    assert_int_equal(cpu_plan_create(g, opset, &p, &err), TOSAC_OK);
    tosac_tensor with[2], hidden[2], fresh[2];
    if (cpu_plan_run(p, in, n_in, with, n_out, &err) != TOSAC_OK)
        fail_msg("%s: %s", op, err.msg);
    int n_attrs = g->nodes[k].n_attrs;
    g->nodes[k].n_attrs = 0;
    if (cpu_plan_run(p, in, n_in, hidden, n_out, &err) != TOSAC_OK)
        fail_msg("%s read an attribute during the run: %s", op, err.msg);
    if (!same(with, hidden, n_out))
        fail_msg("%s: the run without attributes differs (an attribute read during the run)", op);
    cpu_plan_free(p);
    /* a plan made now sees the defaults: the attributes mattered */
    assert_int_equal(cpu_plan_create(g, opset, &p, &err), TOSAC_OK);
    tosac_code rc = cpu_plan_run(p, in, n_in, fresh, n_out, &err);
    if (rc == TOSAC_OK) {
        if (same(with, fresh, n_out))
            fail_msg("%s: the test's attributes are the defaults", op);
        free_all(fresh, n_out);
    }
    cpu_plan_free(p);
    g->nodes[k].n_attrs = n_attrs;
    free_all(with, n_out);
    free_all(hidden, n_out);
}

static void test_no_attribute_read_while_running(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tcase *c = &cases[i];
        /* every operator here has a prepare step */
        assert_non_null(cpu_find_op(c->op));
        if (!cpu_find_op(c->op)->prep)
            fail_msg("%s has no prepare step", c->op);
        int k, n_in;
        tosac_tensor in[5];
        ir_model *m = build(c, &k, in, &n_in);
        check_no_attr_read(c->op, m, k, c->opset, in, n_in, c->n_out);
        free_all(in, n_in);
        ir_model_free(m);
    }
}

/* If and Loop: the branches and the body are looked up by the prepare step. */
static void test_control_flow_prepared(void **state)
{
    (void)state;
    ir_model *m = ct_if_model(2);
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s = 2;
    tosac_tensor in[2];
    assert_int_equal(tosac_tensor_alloc(&in[0], F32, 1, &s, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], BOOL, 0, NULL, &err), TOSAC_OK);
    ((float *)in[0].data)[0] = -1;
    ((float *)in[0].data)[1] = 2;
    for (int branch = 0; branch < 2; branch++) {
        *(uint8_t *)in[1].data = (uint8_t)branch;
        cpu_plan *p;
        assert_int_equal(cpu_plan_create(m->graph, 13, &p, &err), TOSAC_OK);
        int n_attrs = m->graph->nodes[0].n_attrs;
        m->graph->nodes[0].n_attrs = 0;
        tosac_tensor y;
        assert_int_equal(cpu_plan_run(p, in, 2, &y, 1, &err), TOSAC_OK);
        /* else = Abs(x) = (1, 2); then = Neg(x) = (1, -2) */
        assert_true(((float *)y.data)[0] == 1.0f);
        assert_true(((float *)y.data)[1] == (branch ? -2.0f : 2.0f));
        tosac_tensor_free(&y);
        cpu_plan_free(p);
        m->graph->nodes[0].n_attrs = n_attrs;
    }
    free_all(in, 2);
    ir_model_free(m);
}

/* Loop (M = 3 doublings of a) and Scan (running sums of x's columns, last to first: the
 * graph of test_cpu_scan.c): the bodies and the Scan attributes are prepared. */
static void test_loop_scan_prepared(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s2[1] = {2}, s23[2] = {2, 3}, three = 3;
    uint8_t yes = 1;
    int mt = ir_graph_add_const(g, "M", I64, 0, NULL, &three, sizeof three, &err);
    int cd = ir_graph_add_const(g, "cond", BOOL, 0, NULL, &yes, 1, &err);
    int a = ir_graph_add_input(g, "a", F32, 1, s2, &err);
    int fin = ir_graph_add_tensor(g, "a_final", F32, 1, s2, &err);
    int lin[3] = {mt, cd, a};
    int k = pt_node(g, "Loop", lin, 3, &fin, 1);
    ct_loop_body(g, k, 2, NULL);
    ir_graph_mark_output(g, fin, &err);
    tosac_tensor in[2];
    assert_int_equal(tosac_tensor_alloc(&in[0], F32, 1, s2, &err), TOSAC_OK);
    ((float *)in[0].data)[0] = 1;
    ((float *)in[0].data)[1] = -2;
    check_no_attr_read("Loop", m, k, 13, in, 1, 1);
    tosac_tensor y;
    assert_int_equal(cpu_run_model(m, in, 1, &y, 1, &err), TOSAC_OK);
    assert_true(((float *)y.data)[0] == 8.0f && ((float *)y.data)[1] == -16.0f);
    tosac_tensor_free(&y);
    tosac_tensor_free(&in[0]);
    ir_model_free(m);

    m = ir_model_new();
    g = m->graph;
    int init = ir_graph_add_input(g, "init", F32, 1, s2, &err);
    int x = ir_graph_add_input(g, "x", F32, 2, s23, &err);
    int out[2] = {ir_graph_add_tensor(g, "final", F32, 1, s2, &err),
                  ir_graph_add_tensor(g, "ys", F32, 2, s23, &err)};
    int sin[2] = {init, x};
    k = pt_node(g, "Scan", sin, 2, out, 2);
    ir_node_set_int(g, k, "num_scan_inputs", 1, &err);
    const int64_t one = 1;
    ir_node_set_ints(g, k, "scan_input_axes", &one, 1, &err);
    ir_node_set_ints(g, k, "scan_input_directions", &one, 1, &err);
    ir_node_set_ints(g, k, "scan_output_axes", &one, 1, &err);
    ir_graph *b = ir_graph_new("body", g);
    int bs = ir_graph_add_input(b, "s", F32, 1, s2, &err);
    int bx = ir_graph_add_input(b, "xs", F32, 1, s2, &err);
    int so = ir_graph_add_tensor(b, "s_out", F32, 1, s2, &err);
    int yo = ir_graph_add_tensor(b, "y_out", F32, 1, s2, &err);
    int add_in[2] = {bs, bx};
    pt_node(b, "Add", add_in, 2, &so, 1);
    pt_node(b, "Identity", &so, 1, &yo, 1);
    ir_graph_mark_output(b, so, &err);
    ir_graph_mark_output(b, yo, &err);
    assert_int_equal(ir_node_set_graph(g, k, "body", b, &err), TOSAC_OK);
    ir_graph_mark_output(g, out[0], &err);
    ir_graph_mark_output(g, out[1], &err);
    assert_int_equal(err.code, TOSAC_OK);
    const float xv[6] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(tosac_tensor_alloc(&in[0], F32, 1, s2, &err), TOSAC_OK);
    assert_int_equal(tosac_tensor_alloc(&in[1], F32, 2, s23, &err), TOSAC_OK);
    memset(in[0].data, 0, in[0].nbytes);
    memcpy(in[1].data, xv, sizeof xv);
    check_no_attr_read("Scan", m, k, 13, in, 2, 2);
    free_all(in, 2);
    ir_model_free(m);
}

/* Hand-checked results of a few prepared operators. */
static void test_prepared_results(void **state)
{
    (void)state;
    int k, n_in;
    tosac_tensor in[5], y[2];
    tosac_error err;
    tosac_error_clear(&err);
    /* ReduceSum axes (1), keepdims 0 over [[1, -2, 1], [-4, 5, -6]]: (0, -5) */
    ir_model *m = build(&cases[0], &k, in, &n_in);
    assert_int_equal(cpu_run_model(m, in, n_in, y, 1, &err), TOSAC_OK);
    assert_int_equal(y[0].rank, 1);
    assert_true(((float *)y[0].data)[0] == 0.0f && ((float *)y[0].data)[1] == -5.0f);
    tosac_tensor_free(&y[0]);
    free_all(in, n_in);
    ir_model_free(m);
    /* ArgMax axis 1, select_last_index over row 0's tie (1 at 0 and 2): (2, 1) */
    m = build(&cases[4], &k, in, &n_in);
    assert_string_equal(cases[4].op, "ArgMax");
    assert_int_equal(cpu_run_model(m, in, n_in, y, 1, &err), TOSAC_OK);
    assert_int_equal(y[0].dtype, I64);
    assert_true(((int64_t *)y[0].data)[0] == 2 && ((int64_t *)y[0].data)[1] == 1);
    tosac_tensor_free(&y[0]);
    free_all(in, n_in);
    ir_model_free(m);
    /* Pad-2 pads (0, 1, 0, 1) value 9: [[9, 1, -2, 1, 9], [9, -4, 5, -6, 9]] */
    m = build(&cases[27], &k, in, &n_in);
    assert_string_equal(cases[27].op, "Pad");
    assert_int_equal(cpu_run_model(m, in, n_in, y, 1, &err), TOSAC_OK);
    const float pad[10] = {9, 1, -2, 1, 9, 9, -4, 5, -6, 9};
    assert_int_equal(y[0].shape[1], 5);
    for (int i = 0; i < 10; i++)
        assert_true(((float *)y[0].data)[i] == pad[i]);
    tosac_tensor_free(&y[0]);
    free_all(in, n_in);
    ir_model_free(m);
    /* Cast to 7 (int64): 1, -2, 1, -4, 5, -6 */
    m = build(&cases[25], &k, in, &n_in);
    assert_string_equal(cases[25].op, "Cast");
    assert_int_equal(cpu_run_model(m, in, n_in, y, 1, &err), TOSAC_OK);
    assert_int_equal(y[0].dtype, I64);
    for (int i = 0; i < 6; i++)
        assert_true(((int64_t *)y[0].data)[i] == (int64_t)X6[i]);
    tosac_tensor_free(&y[0]);
    free_all(in, n_in);
    ir_model_free(m);
}

/* A constant axes input (Reduce* from opset 18) is read and checked by the prepare step too. */
static void test_constant_axes_at_prepare(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    const tcase c = {"ReduceMax", 18, 2, 1, {X23, {I64, 1, {1}, (const int64_t[]){2}, 1}},
                     a_keepdims0};
    int k, n_in;
    tosac_tensor in[5], y;
    ir_model *m = build(&c, &k, in, &n_in);
    cpu_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.g = m->graph;
    cx.node = &m->graph->nodes[k];
    cx.opset = 18;
    cx.err = &err;
    _Alignas(16) unsigned char st[CPU_PREP_MAX];
    assert_int_equal(cpu_prepare(&cx, cpu_find_op("ReduceMax"), st), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "node 'n' (ReduceMax): axis 2 is out of range for rank 2");
    tosac_error_clear(&err);
    assert_int_equal(cpu_run_model(m, in, n_in, &y, 1, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "node 'n' (ReduceMax): axis 2 is out of range for rank 2");
    free_all(in, n_in);
    ir_model_free(m);
}

/* Invalid attributes fail the prepare step with the one-line error eval used to give; a
 * plan is still made (a node that never runs must not stop a graph) and its run reports
 * the same message. */
static void bad_attr(const char *op, int64_t opset, int rank, void (*attrs)(ir_graph *, int),
                     const char *want)
{
    tosac_error err;
    tosac_error_clear(&err);
    tcase c = {op, opset, 1, 1, {X23}, attrs};
    if (rank == 1) {
        static const float three[3] = {1, 2, 3};
        c.in[0] = (tin){F32, 1, {3}, three, 0};
    }
    int k, n_in;
    tosac_tensor in[5], y;
    ir_model *m = build(&c, &k, in, &n_in);
    const cpu_op_entry *e = cpu_find_op(op);
    assert_non_null(e);
    assert_non_null(e->prep);
    cpu_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.g = m->graph;
    cx.node = &m->graph->nodes[k];
    cx.opset = opset;
    cx.err = &err;
    _Alignas(16) unsigned char st[CPU_PREP_MAX];
    assert_int_not_equal(cpu_prepare(&cx, e, st), TOSAC_OK);
    if (strcmp(err.msg, want) != 0)
        fail_msg("%s: prepare said '%s', want '%s'", op, err.msg, want);
    tosac_error_clear(&err);
    assert_int_not_equal(cpu_run_model(m, in, n_in, &y, 1, &err), TOSAC_OK);
    assert_string_equal(err.msg, want);
    free_all(in, n_in);
    ir_model_free(m);
}

static void a_axes_far(ir_graph *g, int k) { SET_INTS("axes", 0, 2); }
static void a_axis_far(ir_graph *g, int k) { SET_I("axis", -3); }
static void a_cast_bad(ir_graph *g, int k) { SET_I("to", 99); }
static void a_pad_bad(ir_graph *g, int k) { SET_S("mode", "mirror"); }
static void a_gelu_bad(ir_graph *g, int k) { SET_S("approximate", "erf"); }
static void a_red_bad(ir_graph *g, int k) { SET_S("reduction", "avg"); }
static void a_lrn_bad(ir_graph *g, int k) { SET_I("size", 0); }
static void a_resize_bad(ir_graph *g, int k) { SET_S("mode", "area"); }
static void a_rnn_bad(ir_graph *g, int k) { SET_S("direction", "sideways"); }
static void a_block_bad(ir_graph *g, int k) { SET_I("blocksize", 0); }

static void test_bad_attributes_at_prepare(void **state)
{
    (void)state;
    bad_attr("ReduceSum", 11, 2, a_axes_far, "node 'n' (ReduceSum): axis 2 is out of range for rank 2");
    bad_attr("ArgMax", 13, 2, a_axis_far, "node 'n' (ArgMax): axis -3 is out of range for rank 2");
    bad_attr("Cast", 13, 2, a_cast_bad, "node 'n' (Cast): cast to ONNX type 99 is not supported");
    bad_attr("Pad", 2, 2, a_pad_bad, "node 'n' (Pad): unknown mode 'mirror'");
    bad_attr("Gelu", 20, 2, a_gelu_bad,
             "node 'n' (Gelu): approximate must be 'none' or 'tanh', got 'erf'");
    bad_attr("ScatterND", 16, 2, a_red_bad, "node 'n' (ScatterND): unknown reduction 'avg'");
    bad_attr("LRN", 13, 2, a_lrn_bad, "node 'n' (LRN): size must be positive");
    bad_attr("Resize", 13, 2, a_resize_bad, "node 'n' (Resize): unknown mode 'area'");
    bad_attr("RNN", 14, 2, a_rnn_bad, "node 'n' (RNN): unknown direction 'sideways'");
    bad_attr("DepthToSpace", 13, 2, a_block_bad, "node 'n' (DepthToSpace): blocksize must be positive");
}

/* Every operator's prepared state fits the fixed-size block; the operators without a prepare
 * step are exactly the ones without attributes listed at cpu_op_entry (cpu_internal.h), and
 * Einsum (its equation is still parsed at eval). */
static void test_prepared_state_fits(void **state)
{
    (void)state;
    static const char *const no_attrs[] = {
        "Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "BitwiseAnd", "BitwiseOr",
        "BitwiseXor", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "PRelu",
        "Sum", "Mean", "Max", "Min", "Where", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal",
        "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
        "Floor", "Ceil", "Round", "Erf", "Sign", "Not", "BitwiseNot", "Relu", "Sigmoid",
        "HardSwish", "Tanh", "Softplus", "Softsign", "Mish", "Identity", "CastLike", "IsNaN",
        "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool", "Size", "Range",
        "Expand", "Tile", "NonZero", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul",
        "Det", "Einsum"};
    const cpu_op_entry *tables[] = {cpu_ops_elementwise, cpu_ops_unary, cpu_ops_conv, cpu_ops_pool,
                                    cpu_ops_reduce, cpu_ops_norm, cpu_ops_shape, cpu_ops_layout,
                                    cpu_ops_gather, cpu_ops_quant, cpu_ops_control, cpu_ops_scan,
                                    cpu_ops_resize, cpu_ops_rnn, cpu_ops_loss, cpu_ops_linalg,
                                    cpu_ops_detect, cpu_ops_text, cpu_ops_signal};
    int with = 0, without = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const cpu_op_entry *e = tables[t]; e->op_type; e++) {
            if (e->prep) {
                assert_true(e->prep->size >= 1 && e->prep->size <= CPU_PREP_MAX);
                with++;
                continue;
            }
            size_t i = 0;
            while (i < sizeof no_attrs / sizeof no_attrs[0] && strcmp(no_attrs[i], e->op_type))
                i++;
            if (i == sizeof no_attrs / sizeof no_attrs[0])
                fail_msg("%s has no prepare step", e->op_type);
            without++;
        }
    assert_int_equal(without, (int)(sizeof no_attrs / sizeof no_attrs[0]));
    assert_int_equal(with, 95); /* MatMul's: whether B is a constant (packed once) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_attribute_read_while_running),
        cmocka_unit_test(test_control_flow_prepared),
        cmocka_unit_test(test_loop_scan_prepared),
        cmocka_unit_test(test_prepared_results),
        cmocka_unit_test(test_bad_attributes_at_prepare),
        cmocka_unit_test(test_constant_axes_at_prepare),
        cmocka_unit_test(test_prepared_state_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
