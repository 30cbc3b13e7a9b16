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

/* FLATBUFFER_LAYOUT.md section 8 (the RESCALE example), written as JSON by hand and turned
 * into a binary by flatc 2.0.8 (`flatc -b` with a schema transcribed from the layout), which
 * builds back to front: vtables after their tables, defaults omitted. */
static const unsigned char rescale_example[872] = {
    0x0c, 0x00, 0x00, 0x00, 0x54, 0x4f, 0x53, 0x41, 0x00, 0x00, 0x00, 0x00,
    0xec, 0xff, 0xff, 0xff, 0x44, 0x03, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0c, 0x00,
    0x04, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x10, 0x03, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x0e, 0x00, 0x18, 0x00, 0x04, 0x00, 0x08, 0x00, 0x0c, 0x00,
    0x10, 0x00, 0x14, 0x00, 0x0e, 0x00, 0x00, 0x00, 0xe0, 0x02, 0x00, 0x00,
    0x10, 0x00, 0x00, 0x00, 0x7c, 0x01, 0x00, 0x00, 0xc4, 0x02, 0x00, 0x00,
    0xac, 0x02, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x38, 0x01, 0x00, 0x00,
    0xf0, 0x00, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0xea, 0xfe, 0xff, 0xff, 0x00, 0x00, 0x00, 0x42,
    0x42, 0x00, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x6f, 0x75, 0x74, 0x30, 0x00, 0x00, 0x00, 0x00,
    0x05, 0x00, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00,
    0x1c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x6f, 0x7a, 0x70, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x69, 0x7a, 0x70, 0x00, 0x02, 0x00, 0x00, 0x00, 0x73, 0x68, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x6d, 0x75, 0x6c, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x69, 0x6e, 0x30, 0x00, 0x08, 0x00, 0x0c, 0x00, 0x07, 0x00, 0x08, 0x00,
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00,
    0x6a, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x43, 0x43, 0x00, 0x00, 0x00,
    0x20, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x6f, 0x7a, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0xff, 0xff, 0xff,
    0x9a, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x43, 0x43, 0x00, 0x00, 0x00,
    0x20, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x69, 0x7a, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c, 0xff, 0xff, 0xff,
    0xca, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x43, 0x43, 0x00, 0x00, 0x00,
    0x24, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x73, 0x68, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x06, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x18, 0x00, 0x08, 0x00,
    0x07, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x14, 0x00, 0x0e, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x43, 0x43, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00,
    0x18, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x6d, 0x75, 0x6c, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x04, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x06, 0x00, 0x00, 0x00, 0x10, 0x01, 0x00, 0x00, 0xd4, 0x00, 0x00, 0x00,
    0x98, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x12, 0xff, 0xff, 0xff, 0x18, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x6f, 0x75, 0x74, 0x30, 0x00, 0x00, 0x00, 0x00, 0x74, 0xff, 0xff, 0xff,
    0x24, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x6f, 0x7a, 0x70, 0x00, 0xa4, 0xff, 0xff, 0xff,
    0x24, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xf6, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x69, 0x7a, 0x70, 0x00, 0xd4, 0xff, 0xff, 0xff,
    0x20, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x73, 0x68, 0x00, 0x00, 0x0c, 0x00, 0x14, 0x00, 0x04, 0x00, 0x08, 0x00,
    0x0c, 0x00, 0x10, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
    0x14, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x6d, 0x75, 0x6c, 0x00,
    0x00, 0x00, 0x0a, 0x00, 0x10, 0x00, 0x04, 0x00, 0x08, 0x00, 0x0c, 0x00,
    0x0a, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x69, 0x6e, 0x30, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x6f, 0x75, 0x74, 0x30, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x69, 0x6e, 0x30, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x6d, 0x61, 0x69, 0x6e, 0x00, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x6d, 0x61, 0x69, 0x6e, 0x00, 0x00, 0x00, 0x00,
    0x0c, 0x00, 0x14, 0x00, 0x08, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x07, 0x00,
    0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void test_rescale_example_bytes(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g;
    assert_int_equal(tosa_graph_read(rescale_example, sizeof rescale_example, &g, &err), TOSAC_OK);
    assert_int_equal(g->ver_major, 1);
    assert_int_equal(g->ver_minor, 0);
    assert_int_equal(g->ver_patch, 0);
    assert_false(g->ver_draft);
    const tosa_block *b = tosa_graph_main_block(g);
    assert_string_equal(b->name, "main");
    assert_int_equal(b->n_tensors, 6);
    assert_int_equal(b->n_ops, 5);
    const char *names[6] = {"in0", "mul", "sh", "izp", "ozp", "out0"};
    const tosac_dtype types[6] = {TOSAC_DT_I8, TOSAC_DT_I32, TOSAC_DT_I8, TOSAC_DT_I8,
                                  TOSAC_DT_I8, TOSAC_DT_I8};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(b->tensors[i].name, names[i]);
        assert_int_equal(b->tensors[i].dtype, types[i]);
    }
    assert_int_equal(b->tensors[0].rank, 2);
    assert_int_equal(b->tensors[0].shape[1], 4);
    assert_int_equal(((int32_t *)b->tensors[1].data)[0], 1 << 30);
    assert_int_equal(((int8_t *)b->tensors[2].data)[0], 30);
    assert_int_equal(((int8_t *)b->tensors[3].data)[0], -10);
    assert_int_equal(((int8_t *)b->tensors[4].data)[0], 5);
    assert_null(b->tensors[5].data);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(b->ops[i].op, TOSA_OP_CONST);
        assert_int_equal(b->ops[i].n_inputs, 0);
        assert_int_equal(b->ops[i].outputs[0], i + 1);
    }
    const tosa_operator *o = &b->ops[4];
    assert_int_equal(o->op, TOSA_OP_RESCALE);
    assert_true(o->attr.scale32);
    assert_int_equal(o->attr.rounding_mode, TOSA_ROUND_SINGLE);
    assert_false(o->attr.per_channel);
    assert_false(o->attr.input_unsigned);
    assert_false(o->attr.output_unsigned);
    for (int i = 0; i < 5; i++)
        assert_int_equal(o->inputs[i], i);
    assert_int_equal(o->outputs[0], 5);
    assert_int_equal(b->inputs[0], 0);
    assert_int_equal(b->outputs[0], 5);
    tosa_graph_free(g);
}

static const tosa_operator *main_op(tosa_graph *g, tosa_op op)
{
    const tosa_block *b = tosa_graph_main_block(g);
    for (int i = 0; i < b->n_ops; i++)
        if (b->ops[i].op == op)
            return &b->ops[i];
    fail_msg("no %s", tosa_op_name(op));
    return NULL;
}

static void assert_vec(const int32_t *v, int n, const int32_t *want, int n_want)
{
    assert_int_equal(n, n_want);
    for (int i = 0; i < n; i++)
        assert_int_equal(v[i], want[i]);
}

/* Attribute values written by Arm's serializer; expected values from the test names
 * (st/kern/pad/dilat/lclbnd/acc/mode) and, for CLAMP bytes and TRANSPOSE perms, from the
 * Python walk of the raw attribute tables. */
static void test_conformance_attributes(void **state)
{
    (void)state;
    tosa_graph *g = read_conf("conv3d/conv3d_1x2x2_1x4x6x5x3_i16xi8_acci48_st212_pad010110_"
                              "dilat121_lclbnd0");
    const tosa_operator *o = main_op(g, TOSA_OP_CONV3D);
    assert_vec(o->attr.pad, o->attr.n_pad, (const int32_t[]){0, 1, 0, 1, 1, 0}, 6);
    assert_vec(o->attr.stride, o->attr.n_stride, (const int32_t[]){2, 1, 2}, 3);
    assert_vec(o->attr.dilation, o->attr.n_dilation, (const int32_t[]){1, 2, 1}, 3);
    assert_false(o->attr.local_bound);
    assert_int_equal(o->attr.acc_type, TOSAC_DT_I48);
    tosa_graph_free(g);

    g = read_conf("conv2d/conv2d_1x1_1x34x34x3_f16xf16_accf16_st11_pad0000_dilat11_lclbnd1_s0");
    o = main_op(g, TOSA_OP_CONV2D);
    assert_vec(o->attr.pad, o->attr.n_pad, (const int32_t[]){0, 0, 0, 0}, 4);
    assert_true(o->attr.local_bound);
    assert_int_equal(o->attr.acc_type, TOSAC_DT_F16);
    tosa_graph_free(g);

    g = read_conf("max_pool2d/max_pool2d_1x11x9x1_f16_st12_kern22_pad1110_modeP");
    o = main_op(g, TOSA_OP_MAX_POOL2D);
    assert_vec(o->attr.kernel, o->attr.n_kernel, (const int32_t[]){2, 2}, 2);
    assert_vec(o->attr.stride, o->attr.n_stride, (const int32_t[]){1, 2}, 2);
    assert_vec(o->attr.pad, o->attr.n_pad, (const int32_t[]){1, 1, 1, 0}, 4);
    assert_int_equal(o->attr.nan_mode, TOSA_NAN_PROPAGATE);
    tosa_graph_free(g);

    g = read_conf("clamp/clamp_0_f32_modeI");
    o = main_op(g, TOSA_OP_CLAMP);
    assert_int_equal(o->attr.n_min_val, 8);
    assert_memory_equal(o->attr.min_val, "\x00\xda\xda\xfd\0\0\0\0", 8);
    assert_memory_equal(o->attr.max_val, "\xa5\xf3\x0f\x7f\0\0\0\0", 8);
    assert_int_equal(o->attr.nan_mode, TOSA_NAN_IGNORE);
    tosa_graph_free(g);

    g = read_conf("transpose/transpose_1x1x1x1x2x2_b_perm0");
    o = main_op(g, TOSA_OP_TRANSPOSE);
    assert_vec(o->attr.perms, o->attr.n_perms, (const int32_t[]){0, 3, 1, 4, 5, 2}, 6);
    tosa_graph_free(g);

    g = read_conf("rescale/rescale_10_u8_outi8_sc0_dr0_pc1_iu1_ou0");
    o = main_op(g, TOSA_OP_RESCALE);
    assert_false(o->attr.scale32);
    assert_true(o->attr.per_channel);
    assert_true(o->attr.input_unsigned);
    assert_false(o->attr.output_unsigned);
    assert_int_equal(o->attr.rounding_mode, TOSA_ROUND_SINGLE);
    tosa_graph_free(g);

    g = read_conf("arithmetic_right_shift/arithmetic_right_shift_10x7_i32_roundTrue_is");
    assert_true(main_op(g, TOSA_OP_ARITHMETIC_RIGHT_SHIFT)->attr.round);
    tosa_graph_free(g);
    g = read_conf("resize/resize_1x5x7x3_f16_modeN_outf16_sc2x1x2x1_off0x0_bor0x0");
    assert_int_equal(main_op(g, TOSA_OP_RESIZE)->attr.mode, TOSA_RESIZE_NEAREST);
    tosa_graph_free(g);
    g = read_conf("argmax/argmax_10x6x6_i16_axis2");
    assert_int_equal(main_op(g, TOSA_OP_ARGMAX)->attr.axis, 2);
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
        cmocka_unit_test(test_rescale_example_bytes),
        cmocka_unit_test(test_conformance_attributes),
        cmocka_unit_test(test_rejects_non_tosa),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
