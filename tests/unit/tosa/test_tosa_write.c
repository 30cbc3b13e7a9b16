/* The writer on hand-built graphs: every attribute table, packed INT4 / INT48 data at their
 * edge values, the shapes table, 1.1 numbering, and what the writer refuses. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "tosa/fb_read.h"
#include "tosac/tosa.h"

/* One block "main" with tensors a, b (int8 [2]) and one operator op(a) -> b. */
static tosa_graph *one_op(int minor, tosa_op op, const tosa_attr *attr)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, minor);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t shp[1] = {2};
    assert_int_equal(tosa_block_add_tensor(b, "a", TOSAC_DT_I8, 1, shp, NULL, 0, &err), 0);
    assert_int_equal(tosa_block_add_tensor(b, "b", TOSAC_DT_I8, 1, shp, NULL, 0, &err), 1);
    int in[1] = {0}, out[1] = {1};
    assert_int_equal(tosa_block_add_op(b, op, attr, in, 1, out, 1, &err), 0);
    assert_int_equal(tosa_block_set_io(b, in, 1, out, 1, &err), TOSAC_OK);
    if (op == TOSA_OP_COND_IF || op == TOSA_OP_WHILE_LOOP) {
        /* the referenced sub-graphs must exist */
        tosa_region *r = &g->regions[0];
        tosa_region_add_block(r, "g1");
        tosa_region_add_block(r, "g2");
    }
    return g;
}

/* Writes g, reads it back, checks equality and returns the copy. */
static tosa_graph *round_trip(const tosa_graph *g)
{
    tosac_error err;
    tosac_error_clear(&err);
    void *buf;
    size_t len;
    tosa_graph *back;
    if (tosa_graph_write(g, &buf, &len, &err) || tosa_graph_read(buf, len, &back, &err))
        fail_msg("%s", err.msg);
    free(buf);
    assert_true(tosa_graph_equal(g, back));
    return back;
}

static const tosa_attr *op_attr(const tosa_graph *g) { return &g->regions[0].blocks[0].ops[0].attr; }

static void test_attribute_tables(void **state)
{
    (void)state;
    tosa_attr a;
    tosa_graph *g, *back;

    memset(&a, 0, sizeof a);
    a.n_pad = 6, a.pad[0] = -1, a.pad[5] = 7;
    a.n_stride = 3, a.stride[0] = 2, a.stride[2] = 3;
    a.n_dilation = 3, a.dilation[1] = 4;
    a.local_bound = true;
    a.acc_type = TOSAC_DT_I48;
    g = one_op(0, TOSA_OP_CONV3D, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->pad[0], -1);
    assert_int_equal(op_attr(back)->pad[5], 7);
    assert_int_equal(op_attr(back)->n_dilation, 3);
    assert_int_equal(op_attr(back)->dilation[1], 4);
    assert_true(op_attr(back)->local_bound);
    assert_int_equal(op_attr(back)->acc_type, TOSAC_DT_I48);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.n_kernel = 2, a.kernel[0] = 3, a.kernel[1] = 5;
    a.n_stride = 2, a.stride[1] = 2;
    a.n_pad = 4, a.pad[3] = 1;
    a.acc_type = TOSAC_DT_F32;
    g = one_op(0, TOSA_OP_AVG_POOL2D, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->kernel[1], 5);
    assert_int_equal(op_attr(back)->acc_type, TOSAC_DT_F32);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.n_out_pad = 4, a.out_pad[2] = -3;
    a.n_stride = 2, a.stride[0] = 2;
    a.acc_type = TOSAC_DT_F16;
    g = one_op(0, TOSA_OP_TRANSPOSE_CONV2D, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->out_pad[2], -3);
    assert_int_equal(op_attr(back)->acc_type, TOSAC_DT_F16);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.n_min_val = 2, a.min_val[0] = 0x00, a.min_val[1] = 0xfc;
    a.n_max_val = 2, a.max_val[0] = 0x00, a.max_val[1] = 0x7c;
    a.nan_mode = TOSA_NAN_IGNORE;
    g = one_op(0, TOSA_OP_CLAMP, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->n_min_val, 2);
    assert_int_equal(op_attr(back)->min_val[1], 0xfc);
    assert_int_equal(op_attr(back)->max_val[1], 0x7c);
    assert_int_equal(op_attr(back)->nan_mode, TOSA_NAN_IGNORE);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.scale32 = true, a.rounding_mode = TOSA_ROUND_DOUBLE, a.per_channel = true;
    a.input_unsigned = true, a.output_unsigned = true;
    g = one_op(0, TOSA_OP_RESCALE, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->rounding_mode, TOSA_ROUND_DOUBLE);
    assert_true(op_attr(back)->output_unsigned);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.custom_operator_name = (char *)"my_op";
    a.custom_domain_name = (char *)"com.example";
    a.custom_impl_attrs = (uint8_t *)"\x01\x02\x03";
    a.n_custom_impl_attrs = 3;
    g = one_op(0, TOSA_OP_CUSTOM, &a);
    back = round_trip(g);
    assert_string_equal(op_attr(back)->custom_operator_name, "my_op");
    assert_string_equal(op_attr(back)->custom_domain_name, "com.example");
    assert_int_equal(op_attr(back)->n_custom_impl_attrs, 3);
    assert_memory_equal(op_attr(back)->custom_impl_attrs, "\x01\x02\x03", 3);
    tosa_graph_free(g);
    tosa_graph_free(back);

    memset(&a, 0, sizeof a);
    a.then_graph = (char *)"g1", a.else_graph = (char *)"g2";
    g = one_op(0, TOSA_OP_COND_IF, &a);
    back = round_trip(g);
    assert_string_equal(op_attr(back)->else_graph, "g2");
    tosa_graph_free(g);
    tosa_graph_free(back);
    memset(&a, 0, sizeof a);
    a.cond_graph = (char *)"g1", a.body_graph = (char *)"g2";
    g = one_op(0, TOSA_OP_WHILE_LOOP, &a);
    back = round_trip(g);
    assert_string_equal(op_attr(back)->cond_graph, "g1");
    tosa_graph_free(g);
    tosa_graph_free(back);

    /* Small tables: one scalar each. */
    const struct {
        tosa_op op;
        int32_t axis;
        uint32_t nan, mode;
        bool flag;
    } small[] = {
        {TOSA_OP_ARGMAX, 3, TOSA_NAN_IGNORE, 0, false},
        {TOSA_OP_REDUCE_MAX, 1, TOSA_NAN_PROPAGATE, 0, false},
        {TOSA_OP_REDUCE_SUM, 2, 0, 0, false},
        {TOSA_OP_CONCAT, -1, 0, 0, false},
        {TOSA_OP_REVERSE, 5, 0, 0, false},
        {TOSA_OP_MAXIMUM, 0, TOSA_NAN_IGNORE, 0, false},
        {TOSA_OP_RESIZE, 0, 0, TOSA_RESIZE_BILINEAR, false},
        {TOSA_OP_ARITHMETIC_RIGHT_SHIFT, 0, 0, 0, true},
        {TOSA_OP_FFT2D, 0, 0, 0, true},
        {TOSA_OP_RFFT2D, 0, 0, 0, true},
    };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        memset(&a, 0, sizeof a);
        a.axis = small[i].axis;
        a.nan_mode = small[i].nan;
        a.mode = small[i].mode;
        a.round = a.inverse = a.local_bound = small[i].flag;
        g = one_op(0, small[i].op, &a);
        back = round_trip(g);
        const tosa_attr *r = op_attr(back);
        if (small[i].op != TOSA_OP_RESIZE && small[i].op != TOSA_OP_MAXIMUM &&
            small[i].op < TOSA_OP_FFT2D)
            assert_int_equal(r->axis, small[i].axis);
        if (small[i].op == TOSA_OP_RESIZE)
            assert_int_equal(r->mode, TOSA_RESIZE_BILINEAR);
        if (small[i].op == TOSA_OP_FFT2D)
            assert_true(r->inverse && r->local_bound);
        tosa_graph_free(g);
        tosa_graph_free(back);
    }

    /* Transpose perms and an op with an empty table. */
    memset(&a, 0, sizeof a);
    a.n_perms = 3, a.perms[0] = 2, a.perms[1] = 0, a.perms[2] = 1;
    g = one_op(0, TOSA_OP_TRANSPOSE, &a);
    back = round_trip(g);
    assert_int_equal(op_attr(back)->n_perms, 3);
    assert_int_equal(op_attr(back)->perms[0], 2);
    tosa_graph_free(g);
    tosa_graph_free(back);
    g = one_op(0, TOSA_OP_ABS, NULL);
    back = round_trip(g);
    assert_int_equal(back->regions[0].blocks[0].ops[0].op, TOSA_OP_ABS);
    tosa_graph_free(g);
    tosa_graph_free(back);
}

/* 1.1 graphs use the 1.1 numbering: new ops and types, and their attribute tables. */
static void test_version_1_1(void **state)
{
    (void)state;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.block_size = 32;
    tosa_graph *g = one_op(1, TOSA_OP_CAST_TO_BLOCK_SCALED, &a);
    tosac_error err;
    tosac_error_clear(&err);
    const int64_t shp[1] = {2};
    const int64_t v64[2] = {INT64_MIN, INT64_MAX};
    tosa_block *b = &g->regions[0].blocks[0];
    assert_true(tosa_block_add_tensor(b, "c64", TOSAC_DT_I64, 1, shp, v64, 16, &err) >= 0);
    tosa_graph *back = round_trip(g);
    assert_int_equal(back->ver_minor, 1);
    assert_int_equal(op_attr(back)->block_size, 32);
    const tosa_tensor *t = &back->regions[0].blocks[0].tensors[2];
    assert_int_equal(t->dtype, TOSAC_DT_I64);
    assert_memory_equal(t->data, v64, 16);
    tosa_graph_free(back);

    /* The same graph cannot be written as 1.0: INT64 and the op do not exist there. */
    g->ver_minor = 0;
    void *buf;
    size_t len;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "not a TOSA 1.0 operator"));
    tosa_graph_free(g);
}

/* INT4: two's complement nibbles, element 2i low. INT48: 6 LE bytes. Expected bytes worked
 * out by hand: -7 = 0x9, 7 = 0x7, -1 = 0xf, 0 = 0x0, 1 = 0x1; 2^47-1 = ff ff ff ff ff 7f,
 * -(2^47-1) = 01 00 00 00 00 80, -1 = ff*6. */
static void test_packed_data(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int8_t i4[5] = {-7, 7, -1, 0, 1};
    const int64_t s5[1] = {5}, s3[1] = {3};
    const int64_t i48[3] = {((int64_t)1 << 47) - 1, -(((int64_t)1 << 47) - 1), -1};
    const uint8_t bools[3] = {1, 0, 1};
    assert_int_equal(tosa_block_add_tensor(b, "i4", TOSAC_DT_I4, 1, s5, i4, 5, &err), 0);
    assert_int_equal(tosa_block_add_tensor(b, "i48", TOSAC_DT_I48, 1, s3, i48, 24, &err), 1);
    assert_int_equal(tosa_block_add_tensor(b, "b", TOSAC_DT_BOOL, 1, s3, bools, 3, &err), 2);
    void *buf;
    size_t len;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_OK);
    const uint8_t want4[3] = {0x79, 0x0f, 0x01};
    const uint8_t want48[18] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x01, 0x00, 0x00,
                                0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    /* Each data vector: a 4-byte count then the bytes, the bytes 8-aligned. */
    const uint8_t *p = buf;
    int found4 = 0, found48 = 0;
    for (size_t i = 4; i + 18 <= len; i++) {
        if (p[i - 4] == 3 && !p[i - 3] && !p[i - 2] && !p[i - 1] && !memcmp(p + i, want4, 3)) {
            found4 = 1;
            assert_int_equal(i % 8, 0);
        }
        if (p[i - 4] == 18 && !memcmp(p + i, want48, 18)) {
            found48 = 1;
            assert_int_equal(i % 8, 0);
        }
    }
    assert_true(found4);
    assert_true(found48);
    tosa_graph *back;
    assert_int_equal(tosa_graph_read(buf, len, &back, &err), TOSAC_OK);
    free(buf);
    assert_true(tosa_graph_equal(g, back));
    const tosa_block *rb = tosa_graph_main_block(back);
    assert_memory_equal(rb->tensors[0].data, i4, 5);
    assert_memory_equal(rb->tensors[1].data, i48, 24);
    assert_memory_equal(rb->tensors[2].data, bools, 3);
    tosa_graph_free(back);

    /* Out-of-range values are refused, naming the tensor. */
    ((int8_t *)b->tensors[0].data)[2] = 8;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "tensor 'i4': value 8"));
    ((int8_t *)b->tensors[0].data)[2] = -1;
    tosac_error_clear(&err);
    ((int64_t *)b->tensors[1].data)[0] = (int64_t)1 << 47;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "does not fit in INT48"));
    tosa_graph_free(g);
}

/* SHAPE values marked in_shapes_table go to block.shapes and come back marked. */
static void test_shapes_table(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t s4[2] = {2, 2}, n[1] = {2}, val[2] = {4, 1};
    assert_int_equal(tosa_block_add_tensor(b, "x", TOSAC_DT_F32, 2, s4, NULL, 0, &err), 0);
    const int64_t s41[2] = {4, 1};
    assert_int_equal(tosa_block_add_tensor(b, "y", TOSAC_DT_F32, 2, s41, NULL, 0, &err), 1);
    assert_int_equal(tosa_block_add_tensor(b, "shp", TOSAC_DT_SHAPE, 1, n, val, 16, &err), 2);
    b->tensors[2].in_shapes_table = true;
    int cs_out[1] = {2}, r_in[2] = {0, 2}, r_out[1] = {1};
    tosa_block_add_op(b, TOSA_OP_CONST_SHAPE, NULL, NULL, 0, cs_out, 1, &err);
    tosa_block_add_op(b, TOSA_OP_RESHAPE, NULL, r_in, 2, r_out, 1, &err);
    assert_int_equal(err.code, TOSAC_OK);
    tosa_graph *back = round_trip(g);
    const tosa_tensor *t = &back->regions[0].blocks[0].tensors[2];
    assert_true(t->in_shapes_table);
    assert_int_equal(t->dtype, TOSAC_DT_SHAPE);
    assert_int_equal(((int64_t *)t->data)[0], 4);
    tosa_graph_free(back);
    tosa_graph_free(g);
}

static void test_writer_refuses(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    void *buf;
    size_t len;
    tosa_graph *g = one_op(0, TOSA_OP_ABS, NULL);
    g->ver_draft = true;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "draft"));
    g->ver_draft = false;
    tosac_error_clear(&err);
    g->regions[0].blocks[0].tensors[0].dtype = TOSAC_DT_U8;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "tensor 'a': type u8 has no TOSA 1.0 DType"));
    tosa_graph_free(g);
    tosac_error_clear(&err);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.n_kernel = 3; /* kernel holds 2 */
    g = one_op(0, TOSA_OP_MAX_POOL2D, &a);
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "'kernel' has 3 values"));
    tosa_graph_free(g);
}

/* The writer refuses what its own reader would refuse, so every file it writes reads back
 * equal: enum values out of range, control flow naming no block, bools that are not 0/1. */
static void test_writer_refuses_what_reader_refuses(void **state)
{
    (void)state;
    tosac_error err;
    void *buf;
    size_t len;
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.nan_mode = 3; /* PROPAGATE = 1, IGNORE = 2 */
    tosa_graph *g = one_op(0, TOSA_OP_ARGMAX, &a);
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "operator 0 (ARGMAX): attribute 'nan_mode' has out-of-range value 3");
    tosa_graph_free(g);
    memset(&a, 0, sizeof a);
    a.then_graph = "g1"; /* else_graph missing */
    g = one_op(0, TOSA_OP_COND_IF, &a);
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "cannot write the graph: block 'main' operator 0 (COND_IF): "
                                 "else_graph is missing");
    tosa_graph_free(g);
    a.else_graph = "nowhere";
    g = one_op(0, TOSA_OP_COND_IF, &a);
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "else_graph 'nowhere' is not a block or region of the graph"));
    tosa_graph_free(g);
    /* a constant bool holding 7 */
    g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t two = 2;
    const uint8_t bad[2] = {1, 7};
    tosac_error_clear(&err);
    int t = tosa_block_add_tensor(b, "k", TOSAC_DT_BOOL, 1, &two, bad, 2, &err);
    assert_true(t >= 0);
    assert_true(tosa_block_add_op(b, TOSA_OP_CONST, NULL, NULL, 0, &t, 1, &err) >= 0);
    assert_int_equal(tosa_block_set_io(b, NULL, 0, &t, 1, &err), TOSAC_OK);
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "tensor 'k': value 7 at element 1 is not a bool (0 or 1)");
    tosa_graph_free(g);
}

/* Every constant data vector starts 16-aligned in the buffer (so a runtime can use it in
 * place), whatever the sizes of the strings and vectors before it; the file still reads back
 * equal. Checked by walking the flatbuffer, not through the reader. */
static void test_data_16_aligned(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    static const tosac_dtype dts[] = {TOSAC_DT_I8, TOSAC_DT_I16, TOSAC_DT_I32, TOSAC_DT_F32,
                                      TOSAC_DT_I4, TOSAC_DT_I48, TOSAC_DT_BOOL, TOSAC_DT_I8};
    enum { N = sizeof dts / sizeof dts[0] };
    uint8_t zeros[8 * 16] = {0}; /* the largest: 15 int48 values, 8 bytes each in memory */
    for (int i = 0; i < N; i++) {
        char name[16] = "c";
        for (int k = 0; k < i; k++) /* names of every length shift what follows */
            strcat(name, "x");
        int64_t shp[1] = {2 * i + 1};
        size_t bytes = (size_t)shp[0] * tosac_dtype_size(dts[i]);
        assert_int_equal(tosa_block_add_tensor(b, name, dts[i], 1, shp, zeros, bytes, &err), i);
    }
    void *buf;
    size_t len;
    if (tosa_graph_write(g, &buf, &len, &err))
        fail_msg("%s", err.msg);
    fb_buf fb = {buf, len, &err};
    fb_table root, region, block, tensor;
    fb_vec regions, blocks, tensors, data;
    bool present;
    assert_int_equal(fb_root(&fb, "TOSA", &root), TOSAC_OK);
    assert_int_equal(fb_vec_field(&fb, &root, 1, 4, &regions, &present, "t"), TOSAC_OK);
    assert_int_equal(fb_vec_table(&fb, &regions, 0, &region, "t"), TOSAC_OK);
    assert_int_equal(fb_vec_field(&fb, &region, 1, 4, &blocks, &present, "t"), TOSAC_OK);
    assert_int_equal(fb_vec_table(&fb, &blocks, 0, &block, "t"), TOSAC_OK);
    assert_int_equal(fb_vec_field(&fb, &block, 2, 4, &tensors, &present, "t"), TOSAC_OK);
    assert_int_equal(tensors.n, N);
    for (uint32_t i = 0; i < tensors.n; i++) {
        assert_int_equal(fb_vec_table(&fb, &tensors, i, &tensor, "t"), TOSAC_OK);
        assert_int_equal(fb_vec_field(&fb, &tensor, 3, 1, &data, &present, "t"), TOSAC_OK);
        assert_true(present);
        assert_int_equal(data.pos % 16, 0);
    }
    tosa_graph *back;
    if (tosa_graph_read(buf, len, &back, &err))
        fail_msg("%s", err.msg);
    assert_true(tosa_graph_equal(g, back));
    tosa_graph_free(back);
    tosa_graph_free(g);
    free(buf);
}

/* Appended after a 16-aligned prefix (a program's delegate section), the file is the bytes
 * tosa_graph_write gives, and the prefix stays; a misaligned offset is refused, *len kept. */
static void test_append_same_bytes(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int8_t w[5] = {1, -2, 3, -4, 5}; /* odd sizes move what follows */
    const int64_t shp[1] = {5};
    assert_int_equal(tosa_block_add_tensor(b, "w", TOSAC_DT_I8, 1, shp, w, sizeof w, &err), 0);
    assert_int_equal(tosa_block_add_tensor(b, "y", TOSAC_DT_I8, 1, shp, NULL, 0, &err), 1);
    int in[1] = {0}, out[1] = {1};
    assert_int_equal(tosa_block_add_op(b, TOSA_OP_IDENTITY, NULL, in, 1, out, 1, &err), 0);
    assert_int_equal(tosa_block_set_io(b, NULL, 0, out, 1, &err), TOSAC_OK);
    void *alone;
    size_t alone_len;
    if (tosa_graph_write(g, &alone, &alone_len, &err))
        fail_msg("%s", err.msg);
    size_t len = 48, cap = 48;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    memset(buf, 0xa5, len);
    void *vb = buf;
    if (tosa_graph_write_append(g, &vb, &len, &cap, &err))
        fail_msg("%s", err.msg);
    buf = vb;
    assert_int_equal(len, 48 + alone_len);
    assert_true(cap >= len);
    for (size_t i = 0; i < 48; i++)
        assert_int_equal(buf[i], 0xa5);
    assert_memory_equal(buf + 48, alone, alone_len);
    size_t before = 52; /* 4 bytes past a 16-aligned length */
    len = before;
    vb = buf;
    assert_int_equal(tosa_graph_write_append(g, &vb, &len, &cap, &err), TOSAC_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "not 16-aligned"));
    assert_int_equal(len, before);
    free(vb);
    free(alone);
    tosa_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attribute_tables),
        cmocka_unit_test(test_version_1_1),
        cmocka_unit_test(test_packed_data),
        cmocka_unit_test(test_shapes_table),
        cmocka_unit_test(test_writer_refuses),
        cmocka_unit_test(test_writer_refuses_what_reader_refuses),
        cmocka_unit_test(test_data_16_aligned),
        cmocka_unit_test(test_append_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
