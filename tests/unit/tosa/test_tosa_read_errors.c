/* The reader's checks on hand-assembled flatbuffers: each bad file is TOSAC_ERR_INPUT with a
 * message naming what is wrong. The files are assembled field by field here (with the
 * low-level builder), so each can break exactly one rule. Each is read with both name
 * indexes (hashed and sorted), which must agree. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "tosa/fb_build.h"
#include "util/alloc.h"
#include "tosac/tosa.h"

/* One region/block "main": tensors t0 (type, shape [2] or rank `rank`, optional data) and
 * t1 (INT8 [2]); one operator op (attribute table: axis, nan_mode) in0 -> t1. */
typedef struct spec {
    int major, minor, draft;
    uint32_t type;
    int rank;
    int data_len;               /* -1: no data */
    const char *t0, *t1, *in0, *block_in;
    uint32_t op;
    int attr_type;              /* -1: same as op */
    uint32_t nan_mode;
} spec;

static spec base(void)
{
    return (spec){1, 0, 0, 3 /* INT8 */, 1, -1, "t0", "t1", "t0", "t0", 1 /* ARGMAX */, -1, 1};
}

#define S(v) ((fb_field){FB_SCALAR, 4, (uint64_t)(v)})
#define O ((fb_field){FB_OFFSET, 4, 0})

static void str_at(fb_builder *b, size_t slot, const char *s)
{
    fb_build_patch(b, slot, fb_build_string(b, s));
}

static void names_at(fb_builder *b, size_t slot, const char *s)
{
    size_t v = fb_build_vector(b, 1, 4, 4);
    fb_build_patch(b, slot, v);
    str_at(b, v + 4, s);
}

static void tensor_at(fb_builder *b, size_t slot, const char *name, uint32_t type, int rank,
                      int data_len)
{
    fb_field f[4] = {O, O, S(type), data_len >= 0 ? O : (fb_field){FB_ABSENT, 0, 0}};
    size_t s[4];
    fb_build_patch(b, slot, fb_build_table(b, f, 4, s));
    str_at(b, s[0], name);
    size_t v = fb_build_vector(b, (uint32_t)rank, 4, 4);
    fb_build_patch(b, s[1], v);
    for (int i = 0; i < rank; i++)
        fb_build_put32(b, v + 4 + 4 * (size_t)i, 2);
    if (data_len >= 0)
        fb_build_patch(b, s[3], fb_build_vector(b, (uint32_t)data_len, 1, 8));
}

static fb_builder assemble(const spec *sp)
{
    fb_builder b;
    fb_build_init(&b);
    size_t root = fb_build_zeros(&b, 8);
    memcpy(b.buf + 4, "TOSA", 4);
    fb_field gf[2] = {O, O};
    size_t gs[2];
    fb_build_patch(&b, root, fb_build_table(&b, gf, 2, gs));
    fb_field vf[4] = {S(sp->major), S(sp->minor), S(0), {FB_SCALAR, 1, (uint64_t)sp->draft}};
    fb_build_patch(&b, gs[0], fb_build_table(&b, vf, 4, NULL));
    size_t rv = fb_build_vector(&b, 1, 4, 4);
    fb_build_patch(&b, gs[1], rv);
    fb_field rf[2] = {O, O};
    size_t rs[2];
    fb_build_patch(&b, rv + 4, fb_build_table(&b, rf, 2, rs));
    str_at(&b, rs[0], "main");
    size_t bv = fb_build_vector(&b, 1, 4, 4);
    fb_build_patch(&b, rs[1], bv);
    fb_field bf[5] = {O, O, O, O, O};
    size_t bs[5];
    fb_build_patch(&b, bv + 4, fb_build_table(&b, bf, 5, bs));
    str_at(&b, bs[0], "main");
    size_t ov = fb_build_vector(&b, 1, 4, 4);
    fb_build_patch(&b, bs[1], ov);
    uint32_t tag = sp->attr_type < 0 ? sp->op : (uint32_t)sp->attr_type;
    fb_field of[5] = {S(sp->op), {FB_SCALAR, 1, tag}, O, O, O};
    size_t os[5];
    fb_build_patch(&b, ov + 4, fb_build_table(&b, of, 5, os));
    fb_field af[2] = {S(0), S(sp->nan_mode)};
    fb_build_patch(&b, os[2], fb_build_table(&b, af, 2, NULL));
    names_at(&b, os[3], sp->in0);
    names_at(&b, os[4], sp->t1);
    size_t tv = fb_build_vector(&b, 2, 4, 4);
    fb_build_patch(&b, bs[2], tv);
    tensor_at(&b, tv + 4, sp->t0, sp->type, sp->rank, sp->data_len);
    tensor_at(&b, tv + 8, sp->t1, 3, 1, -1);
    names_at(&b, bs[3], sp->block_in);
    names_at(&b, bs[4], sp->t1);
    assert_false(b.oom);
    return b;
}

/* Read with the hashed name index (tosa_graph_read, the host's) and with the sorted one
 * (tosa_graph_read_ex, a target's): the same outcome, message and graph. */
static tosac_code read_spec(const spec *sp, tosac_error *err, tosa_graph **g)
{
    fb_builder b = assemble(sp);
    tosac_error_clear(err);
    tosac_code rc = tosa_graph_read(b.buf, b.len, g, err);
    tosac_error e2;
    tosac_error_clear(&e2);
    tosa_graph *g2 = NULL;
    assert_int_equal(tosa_graph_read_ex(b.buf, b.len, tosac_libc_allocator(), 0, &g2, &e2), rc);
    assert_string_equal(e2.msg, err->msg);
    if (!rc)
        assert_true(tosa_graph_equal(*g, g2));
    tosa_graph_free(g2);
    fb_build_free(&b);
    return rc;
}

static void expect_error(const spec *sp, const char *words)
{
    tosac_error err;
    tosa_graph *g;
    assert_int_equal(read_spec(sp, &err, &g), TOSAC_ERR_INPUT);
    assert_null(g);
    if (!strstr(err.msg, words))
        fail_msg("message '%s' lacks '%s'", err.msg, words);
}

static void test_valid_base(void **state)
{
    (void)state;
    spec sp = base();
    tosac_error err;
    tosa_graph *g;
    assert_int_equal(read_spec(&sp, &err, &g), TOSAC_OK);
    const tosa_block *b = tosa_graph_main_block(g);
    assert_int_equal(b->n_tensors, 2);
    assert_int_equal(b->ops[0].op, TOSA_OP_ARGMAX);
    assert_int_equal(b->ops[0].attr.nan_mode, TOSA_NAN_PROPAGATE);
    tosa_graph_free(g);
    /* INT64 (17) is a type of 1.1 files */
    sp.minor = 1;
    sp.type = 17;
    assert_int_equal(read_spec(&sp, &err, &g), TOSAC_OK);
    assert_int_equal(tosa_graph_main_block(g)->tensors[0].dtype, TOSAC_DT_I64);
    tosa_graph_free(g);
}

static void test_versions(void **state)
{
    (void)state;
    spec sp = base();
    sp.draft = 1;
    expect_error(&sp, "version 1.0.0 draft");
    sp = base();
    sp.major = 2;
    expect_error(&sp, "unsupported .tosa version 2.0.0");
    sp = base();
    sp.minor = 2;
    expect_error(&sp, "version 1.2.0");
}

static void test_enums(void **state)
{
    (void)state;
    spec sp = base();
    sp.type = 17; /* INT64 is not a 1.0 type */
    expect_error(&sp, "tensor 't0' has DType 17, not a TOSA 1.0 element type");
    sp = base();
    sp.type = 0;
    expect_error(&sp, "DType 0");
    sp = base();
    sp.op = 76; /* a 1.1 op in a 1.0 file */
    sp.attr_type = 0;
    expect_error(&sp, "operator 0: op 76 is not a TOSA 1.0 operator");
    sp = base();
    sp.nan_mode = 7;
    expect_error(&sp, "operator 0 (ARGMAX): attribute 'nan_mode' has out-of-range value 7");
    sp = base();
    sp.attr_type = 3;
    expect_error(&sp, "operator 0 (ARGMAX): attribute_type 3 does not match");
}

static void test_names_and_shapes(void **state)
{
    (void)state;
    spec sp = base();
    sp.in0 = "w";
    expect_error(&sp, "operator 0 (ARGMAX): input 'w' is not a tensor of block 'main'");
    sp = base();
    sp.t0 = "t1";
    sp.in0 = "t1";
    sp.block_in = "t1";
    expect_error(&sp, "block 'main': duplicate tensor name 't1'");
    sp = base();
    sp.block_in = "nope";
    expect_error(&sp, "'nope' is not a tensor of block 'main'");
    sp = base();
    sp.rank = 9;
    expect_error(&sp, "tensor 't0' has rank 9, more than 8");
    sp = base();
    sp.data_len = 1; /* INT8 [2] needs 2 bytes */
    expect_error(&sp, "tensor 't0' has 1 data bytes, shape [2] of INT8 needs 2");
    sp = base();
    sp.data_len = 16; /* padding beyond the need is fine */
    tosac_error err;
    tosa_graph *g;
    assert_int_equal(read_spec(&sp, &err, &g), TOSAC_OK);
    assert_int_equal(tosa_graph_main_block(g)->tensors[0].data_size, 2);
    tosa_graph_free(g);
}

/* Offset of the n-th occurrence (0-based; -1: the last) of s in buf, or -1. */
static long find_nth(const uint8_t *buf, size_t len, const char *s, int n)
{
    size_t sl = strlen(s);
    long last = -1;
    for (size_t i = 0; i + sl <= len; i++)
        if (memcmp(buf + i, s, sl) == 0) {
            if (n == 0)
                return (long)i;
            n--;
            last = (long)i;
        }
    return n < 0 ? last : -1;
}

/* Control flow that names a missing block, or calls itself. The writer refuses to write such
 * a graph, so a valid file is patched: main's COND_IF names block "xain" (then, else), and the
 * writer puts main's operator strings before the later block's name. */
static void test_control_flow(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_region *r = tosa_graph_add_region(g, "main");
    tosa_block *b = tosa_region_add_block(r, "main");
    tosa_region_add_block(r, "xain");
    b = &r->blocks[0];
    const int64_t one[1] = {1};
    tosa_block_add_tensor(b, "c", TOSAC_DT_BOOL, 1, one, NULL, 0, &err);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    a.then_graph = (char *)"xain";
    a.else_graph = (char *)"xain";
    int in[1] = {0};
    tosa_block_add_op(b, TOSA_OP_COND_IF, &a, in, 1, NULL, 0, &err);
    void *buf;
    size_t len;
    tosa_graph *back;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_OK);
    uint8_t *p = buf;
    assert_true(find_nth(p, len, "xain", 2) >= 0 && find_nth(p, len, "xain", 3) < 0);
    long then_at = find_nth(p, len, "xain", 0), block_at = find_nth(p, len, "xain", -1);
    memcpy(p + then_at, "main", 4); /* then_graph -> main: main calls itself */
    assert_int_equal(tosa_graph_read(buf, len, &back, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "block 'main' calls itself"));
    memcpy(p + then_at, "xain", 4);
    memcpy(p + block_at, "nope", 4); /* the block is renamed: nothing is called xain */
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_read(buf, len, &back, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "then_graph 'xain' is not a block"));
    free(buf);
    tosa_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_base),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_names_and_shapes),
        cmocka_unit_test(test_control_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
