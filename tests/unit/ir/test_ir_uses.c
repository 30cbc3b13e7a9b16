/* ir_uses (src/ir/ir_uses.c), the one-pass snapshot of producers and readers partitioning
 * uses instead of a node scan per question: for every tensor of a graph with repeated
 * reads, a dead node, an If whose bodies capture outer tensors (one read per node however
 * often its bodies capture it) and a tensor written twice, it answers exactly what
 * ir_graph_producer / ir_graph_consumers answer, and the hand-counted values below. What
 * breaks it: a capture counted per body, dead nodes counted, readers out of node order, the
 * last producer instead of the first. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "tosac/ir.h"

static int tensor(ir_graph *g, const char *name)
{
    tosac_error err;
    int64_t one = 1;
    int t = ir_graph_add_tensor(g, name, TOSAC_DT_F32, 1, &one, &err);
    assert_true(t >= 0);
    return t;
}

static int node(ir_graph *g, const char *op, const int *ins, int n_in, int out)
{
    tosac_error err;
    int k = ir_graph_add_node(g, op, NULL, NULL, ins, n_in, &out, out >= 0 ? 1 : 0, &err);
    assert_true(k >= 0);
    return k;
}

/* A body of g capturing the named outer tensors. */
static ir_graph *body(ir_graph *g, const char *const *names, int n)
{
    tosac_error err;
    ir_graph *b = ir_graph_new("body", g);
    assert_non_null(b);
    for (int i = 0; i < n; i++)
        assert_true(ir_graph_resolve_tensor(b, names[i], &err) >= 0);
    return b;
}

static void test_same_answers_as_the_scans(void **state)
{
    (void)state;
    tosac_error err;
    ir_graph *g = ir_graph_new("main", NULL);
    int x = tensor(g, "x"), y = tensor(g, "y"), z = tensor(g, "z"), w = tensor(g, "w");
    int c = tensor(g, "c"), unused = tensor(g, "unused");
    int xx[2] = {x, x}, xy[2] = {x, y}, yz[2] = {y, z};
    node(g, "Relu", &x, 1, y);         /* 0: y */
    node(g, "Add", xx, 2, z);          /* 1: reads x twice */
    int dead = node(g, "Mul", yz, 2, w); /* 2: dead, writes w */
    node(g, "Sub", xy, 2, w);          /* 3: writes w too */
    int cond = node(g, "If", &c, 1, -1); /* 4: bodies capture x (twice) and z */
    const char *both[] = {"x", "z"}, *justx[] = {"x"};
    assert_int_equal(ir_node_set_graph(g, cond, "then_branch", body(g, both, 2), &err), TOSAC_OK);
    assert_int_equal(ir_node_set_graph(g, cond, "else_branch", body(g, justx, 1), &err), TOSAC_OK);
    node(g, "Neg", &y, 1, w);          /* 5: writes w as well: the first live one is its producer */
    ir_node_kill(g, dead);
    ir_uses u;
    assert_int_equal(ir_uses_build(g, &u, &err), TOSAC_OK);
    for (int t = -1; t <= g->n_tensors; t++) {
        int a[16], b[16];
        int na = ir_graph_consumers(g, t, a, 16), nb = ir_uses_consumers(&u, t, b, 16);
        assert_int_equal(nb, na);
        for (int i = 0; i < na; i++)
            assert_int_equal(b[i], a[i]);
        assert_int_equal(ir_uses_producer(&u, t), ir_graph_producer(g, t));
        bool cap = t >= 0 && t < g->n_tensors && u.captured[t];
        assert_int_equal(cap, t == x || t == z);
    }
    int r[8];
    assert_int_equal(ir_uses_consumers(&u, x, r, 8), 5); /* 0, 1 twice, 3, the If once */
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 1);
    assert_int_equal(r[2], 1);
    assert_int_equal(r[3], 3);
    assert_int_equal(r[4], 4);
    assert_int_equal(ir_uses_consumers(&u, z, r, 8), 1); /* the dead Mul does not count */
    assert_int_equal(r[0], 4);
    assert_int_equal(ir_uses_consumers(&u, y, r, 8), 2); /* 3 and 5 (not the dead 2) */
    assert_int_equal(r[0], 3);
    assert_int_equal(r[1], 5);
    assert_int_equal(ir_uses_consumers(&u, unused, NULL, 0), 0);
    assert_int_equal(ir_uses_producer(&u, w), 3); /* the dead writer is not the producer */
    assert_int_equal(ir_uses_producer(&u, x), -1);
    ir_uses_free(&u);
    ir_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_answers_as_the_scans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
