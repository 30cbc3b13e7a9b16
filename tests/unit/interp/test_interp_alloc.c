/* The allocation seam end to end on conformance graphs: a .tosa read with TOSA_READ_BORROW
 * into a bump arena keeps its constants in the file buffer, the interpreter prepared from an
 * arena gives the libc path's results bit for bit, interp_execute allocates nothing (WHILE_LOOP
 * included), a too-small arena fails cleanly, and placed main-block tensors use the caller's
 * buffers. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "interp/interp_io.h"
#include "interp/interp_state.h"
#include "tosac/interp.h"
#include "tosac/npy.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/fileio.h"

/* conv2d with constant INT8 weights (borrowed) */
#define CONV "conformance/conv2d/conv2d_1x1_1x9x11x5_i16xi8_acci48_st11_pad1001_dilat21_lclbnd0"
/* four iterations; the condition compares with a constant of the calling block */
/* an INT48 constant (decoded: 6 file bytes per value, int64 in memory) */
#define CONST48 "conformance/const/const_31_i48"
#define LOOP "conformance/while_loop/while_loop_4x4x3x2_i16_iter4"

typedef struct counting {
    const tosac_allocator *inner;
    int allocs, releases;
} counting;

static void *count_alloc(void *user, size_t bytes, size_t align)
{
    counting *c = user;
    c->allocs++;
    return c->inner->alloc(c->inner->user, bytes, align);
}

static void count_release(void *user, void *p)
{
    counting *c = user;
    c->releases++;
    c->inner->release(c->inner->user, p);
}

/* test.tosa of dir in a fresh 16-aligned buffer of exactly its size (rounded up to 16) */
static void *load_tosa(const char *dir, size_t *len)
{
    tosac_error err;
    tosac_error_clear(&err);
    void *data;
    if (tosac_read_file(tu_shared(tu_join(dir, "test.tosa")), &data, len, &err))
        fail_msg("%s", err.msg);
    void *buf = aligned_alloc(16, (*len + 15) / 16 * 16);
    assert_non_null(buf);
    memcpy(buf, data, *len);
    free(data);
    return buf;
}

/* The main block's inputs from dir/<input name>.npy, in the declared dtypes. */
static int load_inputs(const char *dir, const tosa_graph *g, tosac_tensor *in, int cap)
{
    const tosa_block *b = tosa_graph_main_block(g);
    assert_true(b->n_inputs <= cap);
    tosac_error err;
    tosac_error_clear(&err);
    for (int i = 0; i < b->n_inputs; i++) {
        const tosa_tensor *d = &b->tensors[b->inputs[i]];
        char file[128];
        assert_true(strlen(d->name) + 5 < sizeof file);
        strcpy(file, d->name);
        strcat(file, ".npy");
        if (tosac_npy_read(tu_shared(tu_join(dir, file)), &in[i], &err) ||
            interp_adapt_tensor(&in[i], d->dtype, d->name, &err))
            fail_msg("%s", err.msg);
    }
    return b->n_inputs;
}

static void free_tensors(tosac_tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        tosac_tensor_free(&t[i]);
}

/* Reference outputs through the libc path (tosa_graph_read copies, tosa_interp_run). */
static int reference(const void *buf, size_t len, const tosac_tensor *in, int n_in,
                     tosac_tensor *out, int cap)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g;
    if (tosa_graph_read(buf, len, &g, &err))
        fail_msg("%s", err.msg);
    int n_out = tosa_graph_main_block(g)->n_outputs;
    assert_true(n_out <= cap);
    if (tosa_interp_run(g, in, n_in, out, n_out, &err))
        fail_msg("%s", err.msg);
    tosa_graph_free(g);
    return n_out;
}

static void assert_same_outputs(const interp_state *st, const tosac_tensor *ref, int n)
{
    for (int i = 0; i < n; i++) {
        const tosac_tensor *t = interp_main_output(st, i);
        assert_int_equal(t->dtype, ref[i].dtype);
        assert_int_equal(t->nbytes, ref[i].nbytes);
        assert_memory_equal(t->data, ref[i].data, t->nbytes);
    }
}

static bool in_buffer(const void *p, const void *buf, size_t len)
{
    const unsigned char *q = p, *b = buf;
    return q >= b && q < b + len;
}

/* Borrowed constants point into the buffer exactly when their file form is the in-memory
 * form; results equal the libc path bit for bit over repeated runs; zero allocator calls
 * during execute. */
static void check_arena_path(const char *dir, int min_borrowed, int min_decoded)
{
    size_t len;
    void *buf = load_tosa(dir, &len);
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *lg;
    if (tosa_graph_read(buf, len, &lg, &err))
        fail_msg("%s", err.msg);
    tosac_tensor in[8], ref[8];
    int n_in = load_inputs(dir, lg, in, 8);
    tosa_graph_free(lg);
    int n_out = reference(buf, len, in, n_in, ref, 8);

    size_t size = 1 << 22;
    void *mem = aligned_alloc(16, size);
    tosac_arena arena;
    tosac_arena_init(&arena, mem, size);
    tosac_allocator al = tosac_arena_allocator(&arena);
    counting cnt = {&al, 0, 0};
    tosac_allocator counted = {count_alloc, count_release, &cnt};
    tosa_graph *g;
    if (tosa_graph_read_ex(buf, len, &counted, TOSA_READ_BORROW, &g, &err))
        fail_msg("%s", err.msg);
    assert_true(cnt.allocs > 0);
    assert_int_equal((int)arena.n_allocs, cnt.allocs);
    int borrowed = 0, decoded = 0;
    for (int r = 0; r < g->n_regions; r++)
        for (int bi = 0; bi < g->regions[r].n_blocks; bi++)
            for (int t = 0; t < g->regions[r].blocks[bi].n_tensors; t++) {
                const tosa_tensor *d = &g->regions[r].blocks[bi].tensors[t];
                assert_true(in_buffer(d->name, buf, len)); /* names borrowed too */
                if (!d->data)
                    continue;
                bool packed = d->dtype == TOSAC_DT_I4 || d->dtype == TOSAC_DT_I48;
                if (packed) {
                    assert_true(in_buffer(d->data, mem, size));
                    decoded++;
                } else {
                    assert_true(in_buffer(d->data, buf, len));
                    borrowed++;
                }
            }
    assert_true(borrowed >= min_borrowed);
    assert_true(decoded >= min_decoded);

    interp_options o = {&counted, NULL, NULL};
    interp_state *st;
    if (interp_prepare_ex(g, &o, &st, &err))
        fail_msg("%s", err.msg);
    /* constants are used in place: the prepared tensor of a constant is the graph's data */
    const tosa_block *mb = tosa_graph_main_block(g);
    for (int t = 0; t < mb->n_tensors; t++)
        if (mb->tensors[t].data)
            assert_ptr_equal(st->main->tensors[t].data, mb->tensors[t].data);
    int before = cnt.allocs, rel_before = cnt.releases;
    for (int run = 0; run < 3; run++) {
        if (interp_execute(st, in, n_in, &err))
            fail_msg("%s", err.msg);
        assert_same_outputs(st, ref, n_out);
    }
    assert_int_equal(cnt.allocs, before);
    assert_int_equal(cnt.releases, rel_before);
    interp_state_free(st);
    tosa_graph_free(g);
    free_tensors(in, n_in);
    free_tensors(ref, n_out);
    free(mem);
    free(buf);
}

static void test_borrow_conv(void **state)
{
    (void)state;
    check_arena_path(CONV, 1, 0);
}

static void test_decoded_const_i48(void **state)
{
    (void)state;
    check_arena_path(CONST48, 0, 1);
}

static void test_borrow_while_loop(void **state)
{
    (void)state;
    check_arena_path(LOOP, 0, 0);
}

/* interp_execute of the libc-prepared state allocates nothing either (WHILE_LOOP: four
 * iterations of cond and body per run). */
static void test_execute_allocates_nothing(void **state)
{
    (void)state;
    size_t len;
    void *buf = load_tosa(LOOP, &len);
    tosac_error err;
    tosac_error_clear(&err);
    counting cnt = {tosac_libc_allocator(), 0, 0};
    tosac_allocator counted = {count_alloc, count_release, &cnt};
    tosa_graph *g;
    if (tosa_graph_read_ex(buf, len, &counted, 0, &g, &err))
        fail_msg("%s", err.msg);
    tosac_tensor in[8], ref[8];
    int n_in = load_inputs(LOOP, g, in, 8);
    int n_out = reference(buf, len, in, n_in, ref, 8);
    interp_options o = {&counted, NULL, NULL};
    interp_state *st;
    if (interp_prepare_ex(g, &o, &st, &err))
        fail_msg("%s", err.msg);
    int before = cnt.allocs;
    for (int run = 0; run < 4; run++) {
        if (interp_execute(st, in, n_in, &err))
            fail_msg("%s", err.msg);
        assert_same_outputs(st, ref, n_out);
    }
    assert_int_equal(cnt.allocs, before);
    interp_state_free(st);
    tosa_graph_free(g);
    /* every allocation of reading and preparing was released through the allocator */
    assert_int_equal(cnt.releases, cnt.allocs);
    free_tensors(in, n_in);
    free_tensors(ref, n_out);
    free(buf);
}

/* TOSA_READ_BORROW under the libc allocator: tosa_graph_free releases exactly what was
 * allocated and never a pointer into the buffer (ASan would report a bad free). */
static void test_borrow_libc_free(void **state)
{
    (void)state;
    size_t len;
    void *buf = load_tosa(CONV, &len);
    tosac_error err;
    tosac_error_clear(&err);
    counting cnt = {tosac_libc_allocator(), 0, 0};
    tosac_allocator counted = {count_alloc, count_release, &cnt};
    tosa_graph *g;
    if (tosa_graph_read_ex(buf, len, &counted, TOSA_READ_BORROW, &g, &err))
        fail_msg("%s", err.msg);
    const tosa_block *mb = tosa_graph_main_block(g);
    assert_true(in_buffer(mb->name, buf, len));
    tosa_graph_free(g);
    assert_int_equal(cnt.releases, cnt.allocs);
    free(buf);
}

/* Every arena smaller than what reading needs fails with an out-of-memory message and no
 * graph; each attempt's arena is a heap block of exactly its size (ASan sees any overrun). */
static void test_arena_too_small(void **state)
{
    (void)state;
    size_t len;
    void *buf = load_tosa(LOOP, &len);
    tosac_error err;
    tosac_error_clear(&err);
    size_t big = 1 << 20;
    void *mem = malloc(big);
    tosac_arena arena;
    tosac_arena_init(&arena, mem, big);
    tosac_allocator al = tosac_arena_allocator(&arena);
    tosa_graph *g;
    if (tosa_graph_read_ex(buf, len, &al, TOSA_READ_BORROW, &g, &err))
        fail_msg("%s", err.msg);
    size_t need = arena.used;
    tosa_graph_free(g);
    free(mem);
    assert_true(need > 64);
    for (size_t size = 0; size < need; size += size < 64 ? 1 : 13) {
        void *m = malloc(size ? size : 1);
        tosac_arena_init(&arena, m, size);
        al = tosac_arena_allocator(&arena);
        tosac_error_clear(&err);
        g = (tosa_graph *)buf; /* must be reset to NULL */
        assert_int_equal(tosa_graph_read_ex(buf, len, &al, TOSA_READ_BORROW, &g, &err),
                         TOSAC_ERR_INTERNAL);
        assert_null(g);
        if (strncmp(err.msg, "out of memory", 13) != 0)
            fail_msg("arena of %zu bytes: %s", size, err.msg);
        assert_true(arena.used <= size);
        free(m);
    }
    /* exactly the measured size is enough (reading is deterministic) */
    void *m = malloc(need);
    tosac_arena_init(&arena, m, need);
    al = tosac_arena_allocator(&arena);
    tosac_error_clear(&err);
    if (tosa_graph_read_ex(buf, len, &al, TOSA_READ_BORROW, &g, &err))
        fail_msg("%s", err.msg);
    /* preparing into what is left fails the same way */
    tosac_arena rest;
    unsigned char small[256];
    tosac_arena_init(&rest, small, sizeof small);
    tosac_allocator ral = tosac_arena_allocator(&rest);
    interp_options o = {&ral, NULL, NULL};
    interp_state *st = (interp_state *)buf;
    assert_int_equal(interp_prepare_ex(g, &o, &st, &err), TOSAC_ERR_INTERNAL);
    assert_null(st);
    assert_non_null(strstr(err.msg, "out of memory"));
    tosa_graph_free(g);
    free(m);
    free(buf);
}

typedef struct placer {
    unsigned char *pool;
    size_t used, size;
    int n;
    int tensor[64];
    void *ptr[64];
} placer;

static void *place(void *user, const tosa_block *b, int tensor, size_t bytes)
{
    placer *p = user;
    assert_null(b->tensors[tensor].data); /* constants are never placed */
    if (p->n == 64 || p->used + bytes > p->size)
        return NULL;
    void *r = p->pool + p->used;
    p->used = (p->used + bytes + 15) / 16 * 16;
    p->tensor[p->n] = tensor;
    p->ptr[p->n++] = r;
    return r;
}

/* The placement callback: main-block tensors live in the caller's buffers, results unchanged. */
static void test_placement(void **state)
{
    (void)state;
    size_t len;
    void *buf = load_tosa(CONV, &len);
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g;
    if (tosa_graph_read(buf, len, &g, &err))
        fail_msg("%s", err.msg);
    tosac_tensor in[8], ref[8];
    int n_in = load_inputs(CONV, g, in, 8);
    int n_out = reference(buf, len, in, n_in, ref, 8);
    placer p = {aligned_alloc(16, 1 << 16), 0, 1 << 16, 0, {0}, {0}};
    interp_options o = {tosac_libc_allocator(), place, &p};
    interp_state *st;
    if (interp_prepare_ex(g, &o, &st, &err))
        fail_msg("%s", err.msg);
    const tosa_block *mb = tosa_graph_main_block(g);
    int n_plain = 0;
    for (int t = 0; t < mb->n_tensors; t++)
        n_plain += !mb->tensors[t].data;
    assert_int_equal(p.n, n_plain); /* asked once for every non-constant tensor */
    assert_true(p.n >= 2);
    for (int i = 0; i < p.n; i++)
        assert_ptr_equal(st->main->tensors[p.tensor[i]].data, p.ptr[i]);
    if (interp_execute(st, in, n_in, &err))
        fail_msg("%s", err.msg);
    assert_same_outputs(st, ref, n_out);
    for (int i = 0; i < n_out; i++) /* the output is in the caller's pool */
        assert_true(in_buffer(interp_main_output(st, i)->data, p.pool, p.size));
    interp_state_free(st);
    tosa_graph_free(g);
    free_tensors(in, n_in);
    free_tensors(ref, n_out);
    free(p.pool);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_borrow_conv),
        cmocka_unit_test(test_decoded_const_i48),
        cmocka_unit_test(test_borrow_while_loop),
        cmocka_unit_test(test_execute_allocates_nothing),
        cmocka_unit_test(test_borrow_libc_free),
        cmocka_unit_test(test_arena_too_small),
        cmocka_unit_test(test_placement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
