/* Bad attributes and data for the signal, detection, sampling, Einsum and TfIdf operators
 * are clean errors naming the problem (never a crash); a NaN grid coordinate samples NaN; a
 * node output unlike its declared type is an error. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "cpu/cpu_exec.h"

/* A one-node model over float inputs of the given shapes (n <= 3); returns the node index. */
static int one_node(ir_model *m, const char *op, int n, const int *ranks, const int64_t shapes[][4])
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = m->graph;
    int in[3], out;
    for (int i = 0; i < n; i++) {
        char name[8] = {'x', (char)('0' + i), 0};
        in[i] = ir_graph_add_input(g, name, TOSAC_DT_F32, ranks[i], shapes[i], &err);
    }
    out = ir_graph_add_tensor(g, "y", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    int k = ir_graph_add_node(g, op, NULL, "n", in, n, &out, 1, &err);
    assert_true(k >= 0);
    ir_graph_mark_output(g, out, &err);
    return k;
}

/* Runs m on inputs filled with fill; returns the code, err.msg in msg. */
static tosac_code run(ir_model *m, float fill, char *msg, tosac_tensor *y)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_graph *g = m->graph;
    tosac_tensor in[3];
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        assert_int_equal(tosac_tensor_alloc(&in[i], TOSAC_DT_F32, t->rank, t->shape, &err), TOSAC_OK);
        for (int64_t j = 0; j < tosac_tensor_numel(&in[i]); j++)
            ((float *)in[i].data)[j] = fill;
    }
    tosac_code rc = cpu_run_model(m, in, g->n_inputs, y, 1, &err);
    strcpy(msg, err.msg);
    for (int i = 0; i < g->n_inputs; i++)
        tosac_tensor_free(&in[i]);
    return rc;
}

static void test_einsum_equations(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"ij,jk->ik", "more terms than the 1 inputs"},
        {"i->i", "does not match input rank 2"},
        {"ij->ix", "unknown or repeated"},
        {"ij->ii", "unknown or repeated"},
        {"i.j->ij", "does not match input rank"},
        {"ij->i-", "malformed"},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        ir_model *m = ir_model_new();
        const int64_t s[1][4] = {{2, 3}};
        tosac_error err;
        int k = one_node(m, "Einsum", 1, (int[]){2}, s);
        ir_node_set_string(m->graph, k, "equation", bad[t][0], &err);
        char msg[512];
        tosac_tensor y;
        assert_int_equal(run(m, 1, msg, &y), TOSAC_ERR_INPUT);
        if (!strstr(msg, bad[t][1]))
            fail_msg("'%s': expected '%s' in '%s'", bad[t][0], bad[t][1], msg);
        ir_model_free(m);
    }
}

static void test_grid_and_rois(void **state)
{
    (void)state;
    /* a NaN grid point samples NaN; an infinite one reads the padding (0), no crash */
    ir_model *m = ir_model_new();
    const int64_t s[2][4] = {{1, 1, 2, 2}, {1, 1, 1, 2}};
    one_node(m, "GridSample", 2, (int[]){4, 4}, s);
    char msg[512];
    tosac_tensor y;
    assert_int_equal(run(m, NAN, msg, &y), TOSAC_OK);
    assert_true(isnan(((float *)y.data)[0]));
    tosac_tensor_free(&y);
    assert_int_equal(run(m, INFINITY, msg, &y), TOSAC_OK);
    assert_true(((float *)y.data)[0] == 0.0f);
    tosac_tensor_free(&y);
    ir_model_free(m);
    /* RoiAlign with infinite rois is refused (batch_indices omitted first) */
    m = ir_model_new();
    const int64_t r[2][4] = {{1, 1, 2, 2}, {1, 4}};
    one_node(m, "RoiAlign", 2, (int[]){4, 2}, r);
    assert_int_equal(run(m, INFINITY, msg, &y), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "input 2 is required"));
    ir_model_free(m);
}

static void test_nms_and_tfidf(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    const int64_t s[2][4] = {{1, 3, 4}, {1, 1, 2}};
    one_node(m, "NonMaxSuppression", 2, (int[]){3, 3}, s);
    char msg[512];
    tosac_tensor y;
    assert_int_equal(run(m, 1, msg, &y), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "scores must be [batches, classes, boxes]"));
    ir_model_free(m);
    m = ir_model_new();
    const int64_t t[1][4] = {{4}};
    int k = one_node(m, "TfIdfVectorizer", 1, (int[]){1}, t);
    tosac_error err;
    ir_node_set_string(m->graph, k, "mode", "TF", &err);
    /* the attributes are checked first (prepare step): none of the n-gram lists */
    assert_int_equal(run(m, 1, msg, &y), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "node 'n' (TfIdfVectorizer): pool_int64s, ngram_counts and "
                               "ngram_indexes are required"));
    /* valid attributes (one unigram 7 in column 0): then the float input is refused */
    const int64_t pool[1] = {7}, counts[1] = {0}, idx[1] = {0};
    ir_node_set_ints(m->graph, k, "pool_int64s", pool, 1, &err);
    ir_node_set_ints(m->graph, k, "ngram_counts", counts, 1, &err);
    ir_node_set_ints(m->graph, k, "ngram_indexes", idx, 1, &err);
    ir_node_set_int(m->graph, k, "min_gram_length", 1, &err);
    ir_node_set_int(m->graph, k, "max_gram_length", 1, &err);
    assert_int_equal(run(m, 1, msg, &y), TOSAC_ERR_INPUT);
    assert_non_null(strstr(msg, "input must be int32 or int64"));
    ir_model_free(m);
}

/* A node writing another type than its output declares (a pass that mis-typed the graph) is
 * an error naming it, not a value passed on under the wrong type. */
static void test_output_type_mismatch(void **state)
{
    (void)state;
    ir_model *m = ir_model_new();
    const int ranks[1] = {1};
    const int64_t shapes[1][4] = {{2}};
    int k = one_node(m, "Cast", 1, ranks, shapes);
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(ir_node_set_int(m->graph, k, "to", 7, &err), TOSAC_OK); /* INT64 */
    m->graph->tensors[m->graph->nodes[k].outputs[0]].dtype = TOSAC_DT_I32;
    char msg[512];
    tosac_tensor y;
    assert_int_equal(run(m, 1.0f, msg, &y), TOSAC_ERR_INPUT);
    assert_string_equal(msg, "node 'n' (Cast): output 'y' is i64, declared i32");
    ir_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_einsum_equations),
        cmocka_unit_test(test_grid_and_rois),
        cmocka_unit_test(test_nms_and_tfidf),
        cmocka_unit_test(test_output_type_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
