/* The reader's two name indexes are twins: hashed (tosa_graph_read_indexed with an index
 * allocator, the compiler's host) and sorted (tosa_graph_read_ex, the runtime on a target)
 * read the same graph from every conformance file and from a block of 5,000 tensors (long
 * probe chains), and take the same bytes of the graph's allocator (the runtime's measured
 * state must not depend on the host). */
#include "testutil.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosa/tosa_internal.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/fileio.h"

/* Reads buf both ways (BORROW on, into an arena, as the runtime does; and off, into libc):
 * equal graphs, the same arena bytes used. */
static void read_both(const void *buf, size_t len, const char *what)
{
    static unsigned char mem[2][1 << 22];
    size_t used[2];
    tosa_graph *g[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        tosac_arena ar;
        tosac_arena_init(&ar, mem[k], sizeof mem[k]);
        tosac_allocator a = tosac_arena_allocator(&ar);
        tosac_error err;
        tosac_error_clear(&err);
        if (tosa_graph_read_indexed(buf, len, &a, k ? tosac_libc_allocator() : NULL,
                                    TOSA_READ_BORROW, &g[k], &err))
            fail_msg("%s: %s", what, err.msg);
        used[k] = ar.high;
    }
    assert_true(tosa_graph_equal(g[0], g[1]));
    assert_int_equal(used[0], used[1]);
    tosa_graph *h[2] = {NULL, NULL};
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_read_ex(buf, len, tosac_libc_allocator(), 0, &h[0], &err), 0);
    assert_int_equal(tosa_graph_read(buf, len, &h[1], &err), TOSAC_OK);
    assert_true(tosa_graph_equal(h[0], h[1]));
    assert_true(tosa_graph_equal(h[0], g[0]));
    for (int k = 0; k < 2; k++) {
        tosa_graph_free(g[k]); /* arena graphs: releases are no-ops */
        tosa_graph_free(h[k]);
    }
}

static void test_conformance_files(void **state)
{
    (void)state;
    glob_t gl;
    assert_int_equal(glob(tu_shared("conformance/*/*/test.tosa"), 0, NULL, &gl), 0);
    assert_int_equal(gl.gl_pathc, 1159);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        void *buf;
        size_t len;
        tosac_error err;
        tosac_error_clear(&err);
        assert_int_equal(tosac_read_file(gl.gl_pathv[i], &buf, &len, &err), TOSAC_OK);
        read_both(buf, len, gl.gl_pathv[i]);
        free(buf);
    }
    globfree(&gl);
}

/* A chain x -> NEGATE -> t1 -> ... -> t4999 whose operands name tensors across the block. */
static void test_large_block(void **state)
{
    (void)state;
    enum { N = 5000 };
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t shp[1] = {4};
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, i ? "layer%d/out" : "x", (i * 7919) % N);
        assert_int_equal(tosa_block_add_tensor(b, name, TOSAC_DT_I32, 1, shp, NULL, 0, &err),
                         i);
    }
    for (int i = 1; i < N; i++) {
        int in = i - 1, out = i;
        assert_int_equal(tosa_block_add_op(b, TOSA_OP_NEGATE, NULL, &in, 1, &out, 1, &err),
                         i - 1);
    }
    int in = 0, out = N - 1;
    assert_int_equal(tosa_block_set_io(b, &in, 1, &out, 1, &err), TOSAC_OK);
    void *buf;
    size_t len;
    assert_int_equal(tosa_graph_write(g, &buf, &len, &err), TOSAC_OK);
    read_both(buf, len, "large block");
    tosa_graph *back;
    assert_int_equal(tosa_graph_read(buf, len, &back, &err), TOSAC_OK);
    assert_true(tosa_graph_equal(g, back)); /* and both are the graph written */
    tosa_graph_free(back);
    free(buf);
    tosa_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance_files),
        cmocka_unit_test(test_large_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
