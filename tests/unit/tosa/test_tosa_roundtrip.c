/* Every conformance graph survives read -> write -> read unchanged, and writing is
 * deterministic (the same graph gives the same bytes, also after a round trip). */
#include "testutil.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/tosa.h"

static void test_conformance_round_trip(void **state)
{
    (void)state;
    glob_t gl;
    assert_int_equal(glob(tu_shared("conformance/*/*/test.tosa"), 0, NULL, &gl), 0);
    assert_int_equal(gl.gl_pathc, 1159);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        tosac_error err;
        tosac_error_clear(&err);
        tosa_graph *a = NULL, *b = NULL;
        void *buf1 = NULL, *buf2 = NULL, *buf3 = NULL;
        size_t len1, len2, len3;
        if (tosa_graph_read_file(gl.gl_pathv[i], &a, &err) ||
            tosa_graph_write(a, &buf1, &len1, &err) ||
            tosa_graph_write(a, &buf2, &len2, &err) ||
            tosa_graph_read(buf1, len1, &b, &err) ||
            tosa_graph_write(b, &buf3, &len3, &err))
            fail_msg("%s: %s", gl.gl_pathv[i], err.msg);
        if (!tosa_graph_equal(a, b))
            fail_msg("%s: graph changed in the round trip", gl.gl_pathv[i]);
        if (len1 != len2 || memcmp(buf1, buf2, len1) != 0)
            fail_msg("%s: two writes differ", gl.gl_pathv[i]);
        if (len1 != len3 || memcmp(buf1, buf3, len1) != 0)
            fail_msg("%s: write after round trip differs", gl.gl_pathv[i]);
        /* The file identifier and a forward root offset. */
        assert_memory_equal((char *)buf1 + 4, "TOSA", 4);
        free(buf1);
        free(buf2);
        free(buf3);
        tosa_graph_free(a);
        tosa_graph_free(b);
    }
    globfree(&gl);
}

/* The round trip also goes through a file (atomic write) and back. */
static void test_file_round_trip(void **state)
{
    (void)state;
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *a, *b;
    assert_int_equal(tosa_graph_read_file(tu_shared("conformance/while_loop/"
                                                    "while_loop_0_i8_iter0/test.tosa"),
                                          &a, &err), TOSAC_OK);
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/g.tosa", dir);
    assert_int_equal(tosa_graph_write_file(a, path, &err), TOSAC_OK);
    assert_int_equal(tosa_graph_read_file(path, &b, &err), TOSAC_OK);
    assert_true(tosa_graph_equal(a, b));
    /* Outer references stay outer: COND_BLOCK still declares only its own 4 tensors. */
    const tosa_block *cond = tosa_graph_find_block(b, "COND_BLOCK");
    int outer = 0;
    for (int i = 0; i < cond->n_tensors; i++)
        outer += cond->tensors[i].outer_ref;
    assert_int_equal(outer, 1);
    assert_int_equal(cond->n_tensors, 5);
    tosa_graph_free(a);
    tosa_graph_free(b);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance_round_trip),
        cmocka_unit_test(test_file_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
