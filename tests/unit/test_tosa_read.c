/* The .tosa reader on the shared conformance files: every file reads, counts match an
 * independent walk of the flatbuffers, and decoded values match the raw bytes. */
#include "testutil.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/tosa.h"

static tosa_graph *read_conf(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "conformance/%s/test.tosa", rel);
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = NULL;
    tosac_code rc = tosa_graph_read_file(tu_shared(path), &g, &err);
    if (rc)
        fail_msg("%s: %s", rel, err.msg);
    return g;
}

static int declared(const tosa_block *b)
{
    int n = 0;
    for (int i = 0; i < b->n_tensors; i++)
        n += !b->tensors[i].outer_ref;
    return n;
}

/* Totals over all 1159 files from a separate Python walk of the raw flatbuffers
 * (operators vector and tensors vector lengths of every block; no block has shapes). */
static void test_all_conformance_files(void **state)
{
    (void)state;
    glob_t gl;
    assert_int_equal(glob(tu_shared("conformance/*/*/test.tosa"), 0, NULL, &gl), 0);
    assert_int_equal(gl.gl_pathc, 1159);
    long ops = 0, tensors = 0, outer = 0;
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        tosac_error err;
        tosac_error_clear(&err);
        tosa_graph *g;
        if (tosa_graph_read_file(gl.gl_pathv[i], &g, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(g->ver_major, 1);
        assert_int_equal(g->ver_minor, 0);
        assert_false(g->ver_draft);
        for (int r = 0; r < g->n_regions; r++)
            for (int b = 0; b < g->regions[r].n_blocks; b++) {
                const tosa_block *blk = &g->regions[r].blocks[b];
                ops += blk->n_ops;
                tensors += declared(blk);
                outer += blk->n_tensors - declared(blk);
            }
        tosa_graph_free(g);
    }
    globfree(&gl);
    assert_int_equal(ops, 2472);
    assert_int_equal(tensors, 3758);
    /* 7 WHILE_LOOP tests: the cond block uses const-3 and the body const-4 of "main". */
    assert_int_equal(outer, 14);
}

typedef struct block_count {
    const char *name;
    int n_ops, n_tensors;
    int ops[5];
} block_count;

static void check_counts(const char *rel, const block_count *want, int n_blocks)
{
    tosa_graph *g = read_conf(rel);
    assert_int_equal(g->n_regions, 1);
    assert_string_equal(g->regions[0].name, "main");
    assert_int_equal(g->regions[0].n_blocks, n_blocks);
    for (int i = 0; i < n_blocks; i++) {
        const tosa_block *b = &g->regions[0].blocks[i];
        assert_string_equal(b->name, want[i].name);
        assert_int_equal(b->n_ops, want[i].n_ops);
        assert_int_equal(declared(b), want[i].n_tensors);
        for (int k = 0; k < b->n_ops; k++)
            assert_int_equal(b->ops[k].op, want[i].ops[k]);
    }
    tosa_graph_free(g);
}

/* Per-block counts and op numbers from the same Python walk. */
static void test_counts_per_file(void **state)
{
    (void)state;
    const block_count conv[] = {{"main", 5, 6, {67, 67, 67, 67, 3}}};
    check_counts("conv2d/conv2d_1x1_1x34x34x3_f16xf16_accf16_st11_pad0000_dilat11_lclbnd1_s0",
                 conv, 1);
    const block_count wl[] = {{"main", 4, 8, {67, 67, 67, 71}},
                              {"COND_BLOCK", 1, 4, {47}},
                              {"BODY_BLOCK", 2, 5, {23, 30}}};
    check_counts("while_loop/while_loop_0_i8_iter0", wl, 3);
    const block_count ci[] = {{"main", 2, 4, {67, 70}},
                              {"THEN_BLOCK", 1, 3, {23}},
                              {"ELSE_BLOCK", 1, 3, {22}}};
    check_counts("cond_if/cond_if_binary_1x1x1x1_i16_cond1", ci, 3);
    const block_count rs[] = {{"main", 2, 3, {75, 57}}};
    check_counts("reshape/reshape_0_b_perm1_rank0_out0", rs, 1);
}

/* Raw bytes of this file (Python walk): input-1 INT16 [1] "0040", input-2 INT8 [1] "2d",
 * rescale_input_zp INT48 [1] "000000000000", rescale_output_zp INT8 [1] "eb";
 * RESCALE attribute: only rounding_mode = 1 stored. */
static void test_rescale_values(void **state)
{
    (void)state;
    tosa_graph *g = read_conf("rescale/rescale_0_i48_outi8_sc0_dr0_pc0_iu0_ou0");
    const tosa_block *b = tosa_graph_main_block(g);
    assert_non_null(b);
    assert_int_equal(b->n_tensors, 6);
    int in0 = tosa_block_find_tensor(b, "input-0"), mul = tosa_block_find_tensor(b, "input-1");
    int sh = tosa_block_find_tensor(b, "input-2");
    int izp = tosa_block_find_tensor(b, "rescale_input_zp");
    int ozp = tosa_block_find_tensor(b, "rescale_output_zp");
    assert_int_equal(b->tensors[in0].dtype, TOSAC_DT_I48);
    assert_int_equal(b->tensors[in0].rank, 0);
    assert_null(b->tensors[in0].data);
    assert_int_equal(b->tensors[mul].dtype, TOSAC_DT_I16);
    assert_int_equal(b->tensors[mul].rank, 1);
    assert_int_equal(b->tensors[mul].shape[0], 1);
    assert_int_equal(b->tensors[mul].data_size, 2);
    assert_int_equal(((int16_t *)b->tensors[mul].data)[0], 16384);
    assert_int_equal(((int8_t *)b->tensors[sh].data)[0], 45);
    assert_int_equal(b->tensors[izp].data_size, 8);
    assert_int_equal(((int64_t *)b->tensors[izp].data)[0], 0);
    assert_int_equal(((int8_t *)b->tensors[ozp].data)[0], -21);
    const tosa_operator *o = &b->ops[4];
    assert_int_equal(o->op, TOSA_OP_RESCALE);
    assert_int_equal(o->n_inputs, 5);
    assert_int_equal(o->inputs[0], in0);
    assert_int_equal(o->inputs[1], mul);
    assert_int_equal(o->inputs[2], sh);
    assert_int_equal(o->inputs[3], izp);
    assert_int_equal(o->inputs[4], ozp);
    assert_int_equal(o->attr.rounding_mode, TOSA_ROUND_SINGLE);
    assert_false(o->attr.scale32);
    assert_int_equal(b->n_inputs, 1);
    assert_int_equal(b->inputs[0], in0);
    assert_int_equal(b->n_outputs, 1);
    assert_string_equal(b->tensors[b->outputs[0]].name, "result-0");
    tosa_graph_free(g);
}

/* WHILE_LOOP's cond block compares with const-3, declared only in "main". */
static void test_outer_reference(void **state)
{
    (void)state;
    tosa_graph *g = read_conf("while_loop/while_loop_0_i8_iter0");
    const tosa_block *main_b = tosa_graph_main_block(g);
    const tosa_block *cond = tosa_graph_find_block(g, "COND_BLOCK");
    assert_non_null(cond);
    assert_string_equal(main_b->name, "main");
    int inner = tosa_block_find_tensor(cond, "const-3");
    int outer = tosa_block_find_tensor(main_b, "const-3");
    assert_true(inner >= 0 && outer >= 0);
    assert_true(cond->tensors[inner].outer_ref);
    assert_false(main_b->tensors[outer].outer_ref);
    assert_int_equal(cond->tensors[inner].dtype, main_b->tensors[outer].dtype);
    assert_int_equal(cond->tensors[inner].rank, main_b->tensors[outer].rank);
    assert_null(cond->tensors[inner].data);
    assert_non_null(main_b->tensors[outer].data);
    const tosa_operator *w = &main_b->ops[3];
    assert_int_equal(w->op, TOSA_OP_WHILE_LOOP);
    assert_string_equal(w->attr.cond_graph, "COND_BLOCK");
    assert_string_equal(w->attr.body_graph, "BODY_BLOCK");
    tosa_graph_free(g);
}

static void expect_read_error(const void *buf, size_t len, tosac_code code, const char *words)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = (tosa_graph *)1;
    assert_int_equal(tosa_graph_read(buf, len, &g, &err), code);
    assert_null(g);
    if (!strstr(err.msg, words))
        fail_msg("message '%s' lacks '%s'", err.msg, words);
}

static void test_rejects_non_tosa(void **state)
{
    (void)state;
    expect_read_error("", 0, TOSAC_ERR_INPUT, "only 0 bytes");
    expect_read_error("\x08\0\0\0ONNX\0\0\0\0", 12, TOSAC_ERR_INPUT, "identifier");
    /* root offset beyond the end */
    expect_read_error("\xff\0\0\0TOSA", 8, TOSAC_ERR_INPUT, "root table");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_conformance_files),
        cmocka_unit_test(test_counts_per_file),
        cmocka_unit_test(test_rescale_values),
        cmocka_unit_test(test_outer_reference),
        cmocka_unit_test(test_rejects_non_tosa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
