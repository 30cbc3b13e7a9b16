/* The memory planner (src/compile/compile_plan*.c): interval placement on hand-made sets with
 * hand-derived offsets, the overlap invariant on seeded random sets, the interpreter's
 * execution order, a hand-made program with a delegate (aliasing, scratch), and real zoo
 * programs (with scratch for every CPU node) checked by an independent simulation: every
 * step's reads and writes (bodies run inside their node, the copies the runtime makes where a
 * delegate's buffer is not its CPU value's) replayed on a map of the arena (16-byte granules
 * -> the value owning them), so a buffer clobbered while its value is still to be read fails,
 * and the simulation's own liveness peak bounds the planner's lower bound from below. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_plan.h"
#include "compile/program_internal.h" /* builds programs by hand */
#include "interp/interp_state.h"
#include "tosac/compile.h"
#include "tosac/onnx.h"

static tosac_error E;

static void ok(tosac_code rc)
{
    if (rc)
        print_error("tosac error: %s\n", E.msg);
    assert_int_equal(rc, TOSAC_OK);
}

/* ---- plan_place on hand-made sets ---- */

static void test_chain_reuses_first_buffer(void **state)
{
    (void)state;
    /* a -> b -> c: c's lifetime meets only b's, so c takes a's place */
    plan_item v[3] = {{100, 0, 1, -1}, {100, 1, 2, -1}, {100, 2, 3, -1}};
    uint64_t arena = 0, lb = 0;
    ok(plan_place(v, 3, 16, &arena, &lb, &E));
    assert_int_equal(v[0].offset, 0);
    assert_int_equal(v[1].offset, 112);
    assert_int_equal(v[2].offset, 0);
    assert_int_equal(arena, 224);
    assert_int_equal(lb, 224);
    /* sizes decreasing: the larger c is placed before b, at 0 (it meets only b in time) */
    plan_item w[3] = {{64, 0, 1, -1}, {32, 1, 2, -1}, {64, 2, 3, -1}};
    ok(plan_place_order(w, 3, 16, PLAN_BY_SIZE, &arena, &lb, &E));
    assert_int_equal(w[0].offset, 0);
    assert_int_equal(w[1].offset, 64);
    assert_int_equal(w[2].offset, 0);
    assert_int_equal(arena, 96);
    assert_int_equal(lb, 96);
}

static void test_overlapping_equal_intervals(void **state)
{
    (void)state;
    plan_item v[2] = {{48, 0, 5, -1}, {48, 0, 5, -1}};
    uint64_t arena = 0, lb = 0;
    ok(plan_place(v, 2, 16, &arena, &lb, &E));
    assert_int_equal(v[0].offset, 0);
    assert_int_equal(v[1].offset, 48);
    assert_int_equal(arena, 96);
    assert_int_equal(lb, 96);
    /* touching at one step is overlapping: [0,2] and [2,4] */
    plan_item t[2] = {{16, 0, 2, -1}, {16, 2, 4, -1}};
    ok(plan_place(t, 2, 16, &arena, &lb, &E));
    assert_int_equal(t[1].offset, 16);
    assert_int_equal(lb, 32);
}

static void test_alignment(void **state)
{
    (void)state;
    plan_item v[3] = {{1, 0, 0, -1}, {1, 0, 0, -1}, {0, 0, 0, -1}};
    uint64_t arena = 0, lb = 0;
    ok(plan_place(v, 3, 16, &arena, &lb, &E));
    assert_int_equal(v[0].offset, 0);
    assert_int_equal(v[1].offset, 16);
    assert_int_equal(v[2].offset, 0); /* 0 bytes take no room */
    assert_int_equal(arena, 32);
    assert_int_equal(lb, 32);
    ok(plan_place(v, 3, 64, &arena, &lb, &E));
    assert_int_equal(v[1].offset, 64);
    assert_int_equal(arena, 128);
    ok(plan_place(v, 3, 0, &arena, &lb, &E)); /* 0: the default 16 */
    assert_int_equal(arena, 32);
    tosac_error_clear(&E);
    assert_int_equal(plan_place(v, 3, 24, &arena, &lb, &E), TOSAC_ERR_INPUT);
    assert_non_null(strstr(E.msg, "power of two"));
}

/* Size order leaves a hole the first-use order does not: A 48 [0,1], B 32 [1,2], C 32 [2,3],
 * D 48 [3,4]. By size: A 0, D 0, B 48, C 80 (it meets D at 0..48 and B at 48..80): 112.
 * By first use: A 0, B 48, C 0, D 32: 80, the lower bound (A + B at step 1). */
static void test_best_order_kept(void **state)
{
    (void)state;
    plan_item v[4] = {{48, 0, 1, -1}, {32, 1, 2, -1}, {32, 2, 3, -1}, {48, 3, 4, -1}};
    uint64_t arena = 0, lb = 0;
    ok(plan_place_order(v, 4, 16, PLAN_BY_SIZE, &arena, &lb, &E));
    assert_int_equal(arena, 112);
    assert_int_equal(v[2].offset, 80);
    ok(plan_place(v, 4, 16, &arena, &lb, &E));
    assert_int_equal(arena, 80);
    assert_int_equal(lb, 80);
    int64_t want[4] = {0, 48, 0, 32};
    for (int i = 0; i < 4; i++)
        assert_int_equal(v[i].offset, want[i]);
}

/* The int16 Softmax zoo program's items: by size every 512-byte value alternates between 0
 * and 512, so the last 256-byte one (item 2, meeting items 12 and 13) finds no room below
 * 1024: 1280. Moving it first lets item 13 sit at 256 instead: 1040, the lower bound
 * (items 9, 10, 11 at step 21). */
static void test_rounds_reach_bound(void **state)
{
    (void)state;
    plan_item v[14] = {{512, 0, 0, -1},   {256, 0, 1, -1},   {256, 27, 28, -1},
                       {512, 1, 3, -1},   {16, 2, 3, -1},    {512, 3, 5, -1},
                       {512, 5, 10, -1},  {256, 10, 12, -1}, {512, 12, 17, -1},
                       {512, 17, 21, -1}, {16, 18, 22, -1},  {512, 21, 22, -1},
                       {512, 22, 27, -1}, {512, 28, 28, -1}};
    uint64_t arena = 0, lb = 0;
    ok(plan_place_order(v, 14, 16, PLAN_BY_SIZE, &arena, &lb, &E));
    assert_int_equal(arena, 1280);
    assert_int_equal(v[2].offset, 1024);
    ok(plan_place(v, 14, 16, &arena, &lb, &E));
    assert_int_equal(lb, 1040);
    assert_int_equal(arena, 1040);
    assert_int_equal(plan_check(v, 14, 16, arena), -1);
}

static void test_place_refuses_bad_items(void **state)
{
    (void)state;
    plan_item v[1] = {{16, 3, 2, -1}};
    uint64_t arena;
    tosac_error_clear(&E);
    assert_int_equal(plan_place(v, 1, 16, &arena, NULL, &E), TOSAC_ERR_INPUT);
    assert_non_null(strstr(E.msg, "lifetime [3, 2]"));
    plan_item big[2] = {{(uint64_t)1 << 62, 0, 0, -1}, {(uint64_t)1 << 62, 0, 0, -1}};
    tosac_error_clear(&E);
    assert_int_equal(plan_place(big, 2, 16, &arena, NULL, &E), TOSAC_ERR_INPUT);
    assert_non_null(strstr(E.msg, "2^63"));
    plan_item huge[1] = {{UINT64_MAX - 3, 0, 0, -1}};
    tosac_error_clear(&E);
    assert_int_equal(plan_place(huge, 1, 16, &arena, NULL, &E), TOSAC_ERR_INPUT);
    ok(plan_place(NULL, 0, 16, &arena, NULL, &E));
    assert_int_equal(arena, 0);
}

/* The checker itself: an overlap in memory and time is found, one in memory only is not. */
static void test_check_finds_overlap(void **state)
{
    (void)state;
    plan_item v[2] = {{32, 0, 3, 0}, {32, 2, 5, 16}};
    assert_int_equal(plan_check(v, 2, 16, 64), 1);
    v[1].first_step = 4;
    assert_int_equal(plan_check(v, 2, 16, 64), -1);
    v[1].offset = 8; /* misaligned */
    assert_int_equal(plan_check(v, 2, 16, 64), 1);
    v[1].offset = 48; /* past the arena */
    assert_int_equal(plan_check(v, 2, 16, 64), 1);
}

/* Seeded random sets: no overlap, the arena at least the bound, the best order no worse than
 * each order alone. */
static void test_random_sets(void **state)
{
    (void)state;
    tu_seed(20261201);
    plan_item *v = malloc(400 * sizeof *v);
    assert_non_null(v);
    for (int round = 0; round < 150; round++) {
        int n = 1 + (int)tu_below(400), steps = 1 + (int)tu_below(200);
        for (int i = 0; i < n; i++) {
            int a = (int)tu_below((uint32_t)steps), len = (int)tu_below(round % 3 ? 8 : 60);
            uint64_t bytes = tu_below(8) == 0 ? tu_below(100000) : tu_below(3000);
            v[i] = (plan_item){bytes, a, a + len, -1};
        }
        uint64_t arena, lb, best = UINT64_MAX;
        for (int o = 0; o < PLAN_N_ORDERS; o++) {
            ok(plan_place_order(v, n, 16, (plan_order)o, &arena, &lb, &E));
            assert_int_equal(plan_check(v, n, 16, arena), -1);
            assert_true(arena >= lb);
            best = arena < best ? arena : best;
        }
        ok(plan_place(v, n, 16, &arena, &lb, &E));
        assert_int_equal(plan_check(v, n, 16, arena), -1);
        assert_true(arena <= best); /* the improvement rounds may do better still */
        uint64_t peak;
        ok(plan_live_peak(v, n, 16, &peak, &E));
        assert_int_equal(peak, lb);
    }
    free(v);
}

/* ---- the interpreter's order ---- */

static int add_t(tosa_block *b, const char *name)
{
    int64_t s[1] = {4};
    int t = tosa_block_add_tensor(b, name, TOSAC_DT_F32, 1, s, NULL, 0, &E);
    assert_true(t >= 0);
    return t;
}

static void test_tosa_order_follows_dependencies(void **state)
{
    (void)state;
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *b = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    int x = add_t(b, "x"), m = add_t(b, "m"), y = add_t(b, "y"), z = add_t(b, "z");
    tosa_attr at;
    memset(&at, 0, sizeof at);
    /* listed: y = NEGATE(m) first, m = ABS(x) second, z = ABS(x) third */
    assert_true(tosa_block_add_op(b, TOSA_OP_NEGATE, &at, &m, 1, &y, 1, &E) >= 0);
    assert_true(tosa_block_add_op(b, TOSA_OP_ABS, &at, &x, 1, &m, 1, &E) >= 0);
    assert_true(tosa_block_add_op(b, TOSA_OP_ABS, &at, &x, 1, &z, 1, &E) >= 0);
    int outs[2] = {y, z};
    ok(tosa_block_set_io(b, &x, 1, outs, 2, &E));
    int order[3];
    ok(plan_tosa_order(b, order, &E));
    /* pass 1 runs operators 1 and 2 (operator 0 waits for m), pass 2 operator 0 */
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 0);
    /* a tensor nobody writes and nothing provides: never ready */
    int w = add_t(b, "w"), v = add_t(b, "v");
    assert_true(tosa_block_add_op(b, TOSA_OP_ABS, &at, &w, 1, &v, 1, &E) >= 0);
    int order4[4];
    tosac_error_clear(&E);
    assert_int_equal(plan_tosa_order(b, order4, &E), TOSAC_ERR_INPUT);
    assert_non_null(strstr(E.msg, "1 operators never get their inputs"));
    tosa_graph_free(g);
}

/* ---- a hand-made program ---- */

/* x -> Relu (CPU) -> a -> delegate [ta -> ABS -> t1 -> NEGATE -> tb] -> b -> Neg (CPU) -> y,
 * every value f32[4] (16 bytes). */
static tosac_program *small_program(void)
{
    tosac_program *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->cpu = ir_model_new();
    ir_graph *g = p->cpu->graph;
    int64_t s[1] = {4};
    int x = ir_graph_add_input(g, "x", TOSAC_DT_F32, 1, s, &E);
    int a = ir_graph_add_tensor(g, "a", TOSAC_DT_F32, 1, s, &E);
    int b = ir_graph_add_tensor(g, "b", TOSAC_DT_F32, 1, s, &E);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 1, s, &E);
    assert_true(ir_graph_add_node(g, "Relu", NULL, "relu", &x, 1, &a, 1, &E) == 0);
    int dn = ir_graph_add_node(g, TOSAC_DELEGATE_OP, IR_DOMAIN_TOSAC, "d0", &a, 1, &b, 1, &E);
    assert_int_equal(dn, 1);
    ok(ir_node_set_int(g, dn, "index", 0, &E));
    assert_true(ir_graph_add_node(g, "Neg", NULL, "neg", &b, 1, &y, 1, &E) == 2);
    ok(ir_graph_mark_output(g, y, &E));
    tosa_graph *tg = tosa_graph_new(1, 0);
    tosa_block *blk = tosa_region_add_block(tosa_graph_add_region(tg, "main"), "main");
    int ta = add_t(blk, "ta"), t1 = add_t(blk, "t1"), tb = add_t(blk, "tb");
    tosa_attr at;
    memset(&at, 0, sizeof at);
    assert_true(tosa_block_add_op(blk, TOSA_OP_ABS, &at, &ta, 1, &t1, 1, &E) >= 0);
    assert_true(tosa_block_add_op(blk, TOSA_OP_NEGATE, &at, &t1, 1, &tb, 1, &E) >= 0);
    ok(tosa_block_set_io(blk, &ta, 1, &tb, 1, &E));
    p->n_delegates = 1;
    p->delegates = malloc(sizeof *p->delegates);
    p->meta = calloc(1, sizeof *p->meta);
    assert_non_null(p->delegates);
    p->delegates[0] = tg;
    return p;
}

static void test_small_program_aliases_delegate_io(void **state)
{
    (void)state;
    tosac_program *p = small_program();
    tosac_program_plan pl;
    ok(tosac_plan_program(p, NULL, &pl, &E));
    /* steps: Relu, ABS, NEGATE, Neg. Lifetimes: x [0,0], a = ta [0,1], t1 [1,2],
     * b = tb [2,3], y [3,3]; by size (all 16) then first use: x 0, a 16, t1 0, b 16, y 0 */
    assert_int_equal(pl.n_graphs, 1);
    assert_int_equal(pl.n_steps[0], 4);
    int nodes[4] = {0, 1, 1, 2}, ops[4] = {-1, 0, 1, -1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pl.step_node[0][i], nodes[i]);
        assert_int_equal(pl.step_op[0][i], ops[i]);
        assert_int_equal(pl.scratch_offset[0][i], -1);
    }
    int64_t cpu[4] = {0, 16, 16, 0}; /* x, a, b, y */
    for (int t = 0; t < 4; t++)
        assert_int_equal(pl.cpu_offset[0][t], cpu[t]);
    assert_int_equal(pl.n_tosa[0], 3);
    assert_int_equal(pl.tosa_offset[0][0], 16); /* ta is a */
    assert_int_equal(pl.tosa_offset[0][1], 0);
    assert_int_equal(pl.tosa_offset[0][2], 16); /* tb is b */
    assert_int_equal(pl.arena_bytes, 32);
    assert_int_equal(pl.lower_bound_bytes, 32);
    tosac_program_plan_free(&pl);

    /* 100 bytes of scratch for Neg (node 2), at step 3 with b and y: placed first (largest)
     * at 0; b [2,3] meets it and t1, so 112; y meets scratch and b: 128 */
    uint64_t sc[3] = {0, 0, 100};
    const uint64_t *rows[1] = {sc};
    int n_nodes[1] = {3};
    tosac_plan_sizes extra = {1, n_nodes, rows};
    ok(tosac_plan_program(p, &extra, &pl, &E));
    assert_int_equal(pl.scratch_offset[0][3], 0);
    assert_int_equal(pl.scratch_bytes[0][3], 100);
    assert_int_equal(pl.cpu_offset[0][2], 112);
    assert_int_equal(pl.tosa_offset[0][2], 112);
    assert_int_equal(pl.cpu_offset[0][3], 128);
    assert_int_equal(pl.arena_bytes, 144);
    assert_int_equal(pl.lower_bound_bytes, 144);
    tosac_program_plan_free(&pl);

    /* a CPU value of another type than the block's: a separate buffer for ta */
    p->cpu->graph->tensors[1].dtype = TOSAC_DT_I32;
    ok(tosac_plan_program(p, NULL, &pl, &E));
    assert_true(pl.tosa_offset[0][0] >= 0);
    assert_true(pl.tosa_offset[0][0] != pl.cpu_offset[0][1]);
    tosac_program_plan_free(&pl);
    p->cpu->graph->tensors[1].dtype = TOSAC_DT_F32;

    /* a dynamic dim: not planned */
    p->cpu->graph->tensors[3].shape[0] = -1;
    ok(tosac_plan_program(p, NULL, &pl, &E));
    assert_int_equal(pl.cpu_offset[0][3], -1);
    tosac_program_plan_free(&pl);
    p->cpu->graph->tensors[3].shape[0] = 4;

    /* a delegate index beyond the program's delegates */
    p->cpu->graph->nodes[1].attrs[0].i = 5;
    tosac_error_clear(&E);
    assert_int_equal(tosac_plan_program(p, NULL, &pl, &E), TOSAC_ERR_INPUT);
    assert_non_null(strstr(E.msg, "delegate index 5 out of range"));
    p->cpu->graph->nodes[1].attrs[0].i = 0;

    /* the same delegate run by two nodes is refused */
    ir_graph *g = p->cpu->graph;
    int64_t s[1] = {4};
    int a = 1, c = ir_graph_add_tensor(g, "c", TOSAC_DT_F32, 1, s, &E);
    int dn = ir_graph_add_node(g, TOSAC_DELEGATE_OP, IR_DOMAIN_TOSAC, "d1", &a, 1, &c, 1, &E);
    ok(ir_node_set_int(g, dn, "index", 0, &E));
    tosac_error_clear(&E);
    assert_int_equal(tosac_plan_program(p, NULL, &pl, &E), TOSAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(E.msg, "more than one node"));
    assert_null(pl.cpu_offset);
    tosac_program_free(p);
}

/* ---- the simulation over real programs ---- */

typedef struct sim {
    const tosac_program *p;
    const tosac_program_plan *pl;
    const ir_graph **graphs;
    int *parent, *owner, n_graphs;
    int *owner_of;        /* [granule] -> value key + 1, 0: free */
    uint64_t n_gran;
    int **cpu_key, **tosa_key, **scratch_key; /* value keys; scratch: [graph][step] */
    int n_keys;
    uint64_t *key_bytes;  /* aligned */
    int64_t *key_last;    /* last time the value is read (from a dry run) */
    int64_t *key_first;
    int64_t clock;
    int dry;              /* 1: only record first/last times */
    uint64_t live, peak;
    int checked_reads;
} sim;

static uint64_t al16(uint64_t b) { return (b + 15) & ~(uint64_t)15; }

static void sim_event(sim *s, int key, int64_t off, uint64_t bytes, int write)
{
    if (key < 0 || off < 0)
        return;
    if (s->dry) {
        if (s->key_first[key] < 0)
            s->key_first[key] = s->clock;
        s->key_last[key] = s->clock;
        return;
    }
    uint64_t g0 = (uint64_t)off / 16, g1 = g0 + al16(bytes) / 16;
    assert_true(g1 <= s->n_gran);
    if (write) {
        for (uint64_t q = g0; q < g1; q++)
            s->owner_of[q] = key + 1;
    } else {
        for (uint64_t q = g0; q < g1; q++)
            if (s->owner_of[q] != key + 1) {
                print_error("value %d read at time %lld: granule %llu owned by %d\n", key,
                            (long long)s->clock, (unsigned long long)q, s->owner_of[q] - 1);
                fail();
            }
        s->checked_reads++;
    }
}

static int64_t cpu_off(sim *s, int gi, int t) { return s->pl->cpu_offset[gi][t]; }

/* A capture reads the outer value it names. */
static void cpu_read(sim *s, int gi, int t)
{
    const ir_graph *g = s->graphs[gi];
    if (t < 0)
        return;
    if (g->tensors[t].outer_id >= 0 && s->parent[gi] >= 0) {
        cpu_read(s, s->parent[gi], g->tensors[t].outer_id);
        return;
    }
    sim_event(s, s->cpu_key[gi][t], cpu_off(s, gi, t),
              s->key_bytes[s->cpu_key[gi][t]], 0);
}

static void cpu_write(sim *s, int gi, int t)
{
    if (t >= 0)
        sim_event(s, s->cpu_key[gi][t], cpu_off(s, gi, t), s->key_bytes[s->cpu_key[gi][t]], 1);
}

static void tick(sim *s)
{
    s->clock++;
}

static void run_graph(sim *s, int gi);

/* Bodies of node ni of graph gi, each run once in turn (If: both branches; Loop/Scan: one
 * iteration), with the copies the runtime makes: node inputs into body inputs, body outputs
 * into node outputs. */
static void run_bodies(sim *s, int gi, int ni)
{
    const ir_node *n = &s->graphs[gi]->nodes[ni];
    for (int bi = gi + 1; bi < s->n_graphs; bi++) {
        if (s->parent[bi] != gi || s->owner[bi] != ni)
            continue;
        const ir_graph *b = s->graphs[bi];
        for (int i = 0; i < n->n_inputs; i++)
            cpu_read(s, gi, n->inputs[i]);
        tick(s);
        for (int i = 0; i < b->n_inputs; i++)
            cpu_write(s, bi, b->inputs[i]);
        run_graph(s, bi);
        for (int i = 0; i < b->n_outputs; i++)
            cpu_read(s, bi, b->outputs[i]);
        tick(s);
    }
}

/* How many operands (and block outputs) read tensor t of b. */
static int n_readers(const tosa_block *b, int t)
{
    int n = 0;
    for (int i = 0; i < b->n_ops; i++)
        for (int k = 0; k < b->ops[i].n_inputs; k++)
            n += b->ops[i].inputs[k] == t;
    for (int i = 0; i < b->n_outputs; i++)
        n += b->outputs[i] == t;
    return n;
}

static void read_inputs(sim *s, int d, const tosa_operator *o)
{
    const int64_t *to = s->pl->tosa_offset[d];
    for (int k = 0; k < o->n_inputs; k++)
        sim_event(s, s->tosa_key[d][o->inputs[k]], to[o->inputs[k]],
                  s->key_bytes[s->tosa_key[d][o->inputs[k]]], 0);
}

static void run_delegate(sim *s, int gi, int ni, int first_step, int last_step)
{
    const ir_node *n = &s->graphs[gi]->nodes[ni];
    int d = (int)ir_node_attr_int(n, "index", -1);
    const tosa_block *b = tosa_graph_main_block(s->p->delegates[d]);
    const int64_t *to = s->pl->tosa_offset[d];
    /* copies in where the offsets differ */
    for (int i = 0; i < b->n_inputs; i++) {
        int bt = b->inputs[i], x = n->inputs[i];
        if (x >= 0 && to[bt] >= 0 && to[bt] == cpu_off(s, gi, x))
            continue; /* aliased: the same key */
        cpu_read(s, gi, x);
    }
    tick(s);
    for (int i = 0; i < b->n_inputs; i++) {
        int bt = b->inputs[i], x = n->inputs[i];
        if (!(x >= 0 && to[bt] >= 0 && to[bt] == cpu_off(s, gi, x)))
            sim_event(s, s->tosa_key[d][bt], to[bt], s->key_bytes[s->tosa_key[d][bt]], 1);
    }
    /* a convolution / MATMUL and the RESCALE (then CLAMP) that alone read its result run as
     * one fused kernel (the runtime's accelerated blocks): its inputs are read until the
     * tail has written */
    const tosa_operator *grp = NULL;
    int grp_t = -1, grp_n = 0;
    for (int st = first_step; st <= last_step; st++) {
        int op = s->pl->step_op[gi][st];
        if (op < 0)
            continue;
        const tosa_operator *o = &b->ops[op];
        read_inputs(s, d, o);
        tick(s);
        for (int k = 0; k < o->n_outputs; k++)
            sim_event(s, s->tosa_key[d][o->outputs[k]], to[o->outputs[k]],
                      s->key_bytes[s->tosa_key[d][o->outputs[k]]], 1);
        /* what the operator read must be intact after it wrote (no in-place overlap) */
        read_inputs(s, d, o);
        if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE) {
            tick(s);
            continue;
        }
        if (grp && o->op == (grp_n == 0 ? TOSA_OP_RESCALE : TOSA_OP_CLAMP) && o->n_inputs &&
            o->inputs[0] == grp_t && n_readers(b, grp_t) == 1 && o->n_outputs == 1) {
            read_inputs(s, d, grp);
            grp_t = o->outputs[0];
            grp_n++;
        } else {
            grp = NULL;
        }
        if ((o->op == TOSA_OP_CONV2D || o->op == TOSA_OP_DEPTHWISE_CONV2D ||
             o->op == TOSA_OP_TRANSPOSE_CONV2D || o->op == TOSA_OP_MATMUL) && o->n_outputs == 1) {
            grp = o;
            grp_t = o->outputs[0];
            grp_n = 0;
        }
        tick(s);
    }
    for (int i = 0; i < b->n_outputs; i++) {
        int bt = b->outputs[i], y = n->outputs[i];
        if (!(y >= 0 && to[bt] >= 0 && to[bt] == cpu_off(s, gi, y)))
            sim_event(s, s->tosa_key[d][bt], to[bt], s->key_bytes[s->tosa_key[d][bt]], 0);
    }
    tick(s);
    for (int i = 0; i < b->n_outputs; i++) {
        int bt = b->outputs[i], y = n->outputs[i];
        if (!(y >= 0 && to[bt] >= 0 && to[bt] == cpu_off(s, gi, y)))
            cpu_write(s, gi, y);
    }
}

static void run_graph(sim *s, int gi)
{
    const ir_graph *g = s->graphs[gi];
    const tosac_program_plan *pl = s->pl;
    int ns = pl->n_steps[gi];
    for (int st = 0; st < ns;) {
        int ni = pl->step_node[gi][st], end = st;
        while (end + 1 < ns && pl->step_node[gi][end + 1] == ni)
            end++;
        const ir_node *n = &g->nodes[ni];
        if (strcmp(n->op_type, TOSAC_DELEGATE_OP) == 0) {
            run_delegate(s, gi, ni, st, end);
            st = end + 1;
            continue;
        }
        for (int i = 0; i < n->n_inputs; i++)
            cpu_read(s, gi, n->inputs[i]);
        const ir_graph *sub;
        for (int k = 0; (sub = ir_node_subgraph(n, k)); k++)
            for (int t = 0; t < sub->n_tensors; t++)
                if (sub->tensors[t].outer_id >= 0)
                    cpu_read(s, gi, sub->tensors[t].outer_id);
        run_bodies(s, gi, ni);
        tick(s);
        int sk = s->scratch_key[gi][st];
        int64_t so = pl->scratch_offset[gi][st];
        sim_event(s, sk, so, s->key_bytes[sk], 1);
        for (int o = 0; o < n->n_outputs; o++)
            cpu_write(s, gi, n->outputs[o]);
        /* inputs, scratch and outputs are all in use while the node runs */
        sim_event(s, sk, so, s->key_bytes[sk], 0);
        for (int i = 0; i < n->n_inputs; i++)
            cpu_read(s, gi, n->inputs[i]);
        tick(s);
        st = end + 1;
    }
}

static void sim_whole(sim *s)
{
    const ir_graph *g = s->graphs[0];
    s->clock = 0;
    for (int i = 0; i < g->n_inputs; i++)
        cpu_write(s, 0, g->inputs[i]);
    tick(s);
    run_graph(s, 0);
    for (int i = 0; i < g->n_outputs; i++)
        cpu_read(s, 0, g->outputs[i]);
    tick(s);
}

typedef struct span {
    int64_t t;
    int kind;
    uint64_t bytes;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->kind - y->kind;
}

/* Checks plan pl of p by simulation; returns the simulation's liveness peak. */
static uint64_t simulate(const tosac_program *p, const tosac_program_plan *pl)
{
    sim s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.pl = pl;
    ok(plan_graph_list(p->cpu->graph, &s.graphs, &s.parent, &s.owner, &s.n_graphs, &E));
    assert_int_equal(s.n_graphs, pl->n_graphs);
    s.cpu_key = calloc((size_t)s.n_graphs, sizeof *s.cpu_key);
    s.tosa_key = calloc((size_t)p->n_delegates + 1, sizeof *s.tosa_key);
    int total = 0;
    for (int gi = 0; gi < s.n_graphs; gi++)
        total += s.graphs[gi]->n_tensors;
    for (int d = 0; d < p->n_delegates; d++)
        total += pl->n_tosa[d];
    for (int gi = 0; gi < s.n_graphs; gi++)
        total += pl->n_steps[gi] + 1;
    s.key_bytes = calloc((size_t)total + 1, sizeof *s.key_bytes);
    s.key_first = malloc(((size_t)total + 1) * sizeof *s.key_first);
    s.key_last = malloc(((size_t)total + 1) * sizeof *s.key_last);
    for (int gi = 0; gi < s.n_graphs; gi++) {
        const ir_graph *g = s.graphs[gi];
        s.cpu_key[gi] = malloc(((size_t)g->n_tensors + 1) * sizeof **s.cpu_key);
        for (int t = 0; t < g->n_tensors; t++) {
            const ir_tensor *x = &g->tensors[t];
            s.cpu_key[gi][t] = s.n_keys;
            uint64_t b = tosac_dtype_size(x->dtype);
            for (int k = 0; k < x->rank; k++)
                b *= x->shape[k] > 0 ? (uint64_t)x->shape[k] : 0;
            s.key_bytes[s.n_keys++] = al16(b);
        }
    }
    for (int d = 0; d < p->n_delegates; d++) {
        const tosa_block *b = tosa_graph_main_block(p->delegates[d]);
        s.tosa_key[d] = malloc(((size_t)pl->n_tosa[d] + 1) * sizeof **s.tosa_key);
        for (int t = 0; t < pl->n_tosa[d]; t++) {
            const tosa_tensor *x = &b->tensors[t];
            s.tosa_key[d][t] = s.n_keys;
            uint64_t n = tosac_dtype_size(x->dtype);
            for (int k = 0; k < x->rank; k++)
                n *= x->shape[k] > 0 ? (uint64_t)x->shape[k] : 0;
            s.key_bytes[s.n_keys++] = al16(n);
        }
    }
    s.scratch_key = calloc((size_t)s.n_graphs, sizeof *s.scratch_key);
    for (int gi = 0; gi < s.n_graphs; gi++) {
        s.scratch_key[gi] = malloc(((size_t)pl->n_steps[gi] + 1) * sizeof **s.scratch_key);
        for (int st = 0; st < pl->n_steps[gi]; st++) {
            s.scratch_key[gi][st] = s.n_keys;
            s.key_bytes[s.n_keys++] = al16(pl->scratch_bytes[gi][st]);
            int64_t o = pl->scratch_offset[gi][st];
            assert_true(o == -1 || (o % 16 == 0 && (uint64_t)o + pl->scratch_bytes[gi][st] <=
                                                       pl->arena_bytes));
            assert_int_equal(o >= 0, pl->scratch_bytes[gi][st] > 0);
        }
    }
    /* aliases: a block input/output at its CPU value's offset is that value */
    for (int gi = 0; gi < s.n_graphs; gi++) {
        const ir_graph *g = s.graphs[gi];
        for (int ni = 0; ni < g->n_nodes; ni++) {
            const ir_node *n = &g->nodes[ni];
            if (strcmp(n->op_type, TOSAC_DELEGATE_OP) != 0)
                continue;
            int d = (int)ir_node_attr_int(n, "index", -1);
            const tosa_block *b = tosa_graph_main_block(p->delegates[d]);
            for (int i = 0; i < b->n_inputs + b->n_outputs; i++) {
                int bt = i < b->n_inputs ? b->inputs[i] : b->outputs[i - b->n_inputs];
                int x = i < b->n_inputs ? n->inputs[i] : n->outputs[i - b->n_inputs];
                if (x >= 0 && pl->tosa_offset[d][bt] >= 0 &&
                    pl->tosa_offset[d][bt] == pl->cpu_offset[gi][x]) {
                    assert_int_equal(s.key_bytes[s.tosa_key[d][bt]], s.key_bytes[s.cpu_key[gi][x]]);
                    s.tosa_key[d][bt] = s.cpu_key[gi][x];
                }
            }
        }
    }
    /* every planned buffer inside the arena and aligned */
    for (int gi = 0; gi < s.n_graphs; gi++)
        for (int t = 0; t < s.graphs[gi]->n_tensors; t++) {
            int64_t o = pl->cpu_offset[gi][t];
            assert_true(o >= -1);
            if (o >= 0)
                assert_true(o % 16 == 0 &&
                            (uint64_t)o + s.key_bytes[s.cpu_key[gi][t]] <= pl->arena_bytes);
        }
    for (int d = 0; d < p->n_delegates; d++)
        for (int t = 0; t < pl->n_tosa[d]; t++) {
            int64_t o = pl->tosa_offset[d][t];
            if (o >= 0)
                assert_true(o % 16 == 0 &&
                            (uint64_t)o + s.key_bytes[s.tosa_key[d][t]] <= pl->arena_bytes);
        }
    /* dry run: lifetimes on the simulation clock; then the checked run */
    for (int k = 0; k < s.n_keys; k++)
        s.key_first[k] = s.key_last[k] = -1;
    s.dry = 1;
    sim_whole(&s);
    s.n_gran = pl->arena_bytes / 16 + 1;
    s.owner_of = calloc(s.n_gran, sizeof *s.owner_of);
    assert_non_null(s.owner_of);
    s.dry = 0;
    sim_whole(&s);
    assert_true(s.checked_reads > 0);
    /* liveness peak of the simulation: a value from its first to its last event */
    span *ev = malloc(((size_t)s.n_keys * 2 + 1) * sizeof *ev);
    int ne = 0;
    for (int k = 0; k < s.n_keys; k++)
        if (s.key_first[k] >= 0) {
            ev[ne++] = (span){s.key_first[k], 0, s.key_bytes[k]};
            ev[ne++] = (span){s.key_last[k], 1, s.key_bytes[k]};
        }
    qsort(ev, (size_t)ne, sizeof *ev, cmp_span);
    uint64_t live = 0, peak = 0;
    for (int i = 0; i < ne; i++) {
        if (ev[i].kind == 0) {
            live += ev[i].bytes;
            peak = live > peak ? live : peak;
        } else {
            live -= ev[i].bytes;
        }
    }
    free(ev);
    for (int gi = 0; gi < s.n_graphs; gi++)
        free(s.cpu_key[gi]);
    for (int d = 0; d < p->n_delegates; d++)
        free(s.tosa_key[d]);
    for (int gi = 0; gi < s.n_graphs; gi++)
        free(s.scratch_key[gi]);
    free(s.scratch_key);
    free(s.cpu_key);
    free(s.tosa_key);
    free(s.key_bytes);
    free(s.key_first);
    free(s.key_last);
    free(s.owner_of);
    free((void *)s.graphs);
    free(s.parent);
    free(s.owner);
    return peak;
}

static tosac_program *compile_zoo(const char *model, const char *spec, const char *const *shapes,
                                  int n_shapes)
{
    char rel[256];
    snprintf(rel, sizeof rel, "models/%s/model.onnx", model);
    ir_model *m = NULL;
    ok(onnx_import_file(tu_shared(rel), &m, &E));
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    o.input_shapes = shapes;
    o.n_input_shapes = n_shapes;
    tosac_program *p = NULL;
    ok(tosac_compile_model(m, &o, &p, NULL, &E));
    return p;
}

/* Our order of every delegate's main block is the interpreter's own (interp_prepare). */
static void check_orders(const tosac_program *p)
{
    for (int d = 0; d < p->n_delegates; d++) {
        const tosa_block *b = tosa_graph_main_block(p->delegates[d]);
        int *order = malloc(((size_t)b->n_ops + 1) * sizeof *order);
        ok(plan_tosa_order(b, order, &E));
        interp_state *st = NULL;
        ok(interp_prepare(p->delegates[d], &st, &E));
        for (int i = 0; i < b->n_ops; i++)
            assert_int_equal(order[i], st->main->order[i]);
        interp_state_free(st);
        free(order);
    }
}

static void zoo_case(const char *model, const char *spec, const char *const *shapes,
                     int n_shapes, int has_bodies)
{
    tosac_error_clear(&E);
    tosac_program *p = compile_zoo(model, spec, shapes, n_shapes);
    check_orders(p);
    /* scratch for every CPU node, of sizes that differ per node (the CPU executor will give
     * real ones; these exercise the placement of scratch among values and body regions) */
    const ir_graph **graphs = NULL;
    int ng = 0;
    ok(plan_graph_list(p->cpu->graph, &graphs, NULL, NULL, &ng, &E));
    uint64_t **rows = calloc((size_t)ng, sizeof *rows);
    int *n_nodes = calloc((size_t)ng, sizeof *n_nodes);
    for (int gi = 0; gi < ng; gi++) {
        n_nodes[gi] = graphs[gi]->n_nodes;
        rows[gi] = calloc((size_t)n_nodes[gi] + 1, sizeof **rows);
        for (int ni = 0; ni < n_nodes[gi]; ni++)
            rows[gi][ni] = strcmp(graphs[gi]->nodes[ni].op_type, TOSAC_DELEGATE_OP) == 0
                               ? 0
                               : 100 + 37 * (uint64_t)((ni * 7 + gi) % 13);
    }
    tosac_plan_sizes extra = {ng, n_nodes, (const uint64_t *const *)rows};
    tosac_program_plan pl;
    ok(tosac_plan_program(p, &extra, &pl, &E));
    uint64_t peak = simulate(p, &pl);
    double ratio = (double)pl.arena_bytes / (double)pl.lower_bound_bytes;
    print_message("%s: arena %llu, lower bound %llu (simulated %llu), ratio %.4f, graphs %d\n",
                  model, (unsigned long long)pl.arena_bytes,
                  (unsigned long long)pl.lower_bound_bytes, (unsigned long long)peak, ratio,
                  pl.n_graphs);
    assert_true(peak <= pl.lower_bound_bytes);
    if (!has_bodies)
        assert_int_equal(peak, pl.lower_bound_bytes); /* same liveness, counted apart */
    assert_true(pl.arena_bytes >= pl.lower_bound_bytes);
    assert_true(pl.arena_bytes * 100 <= pl.lower_bound_bytes * 110);
    assert_int_equal(pl.n_graphs > 1, has_bodies);
    tosac_program_plan_free(&pl);
    for (int gi = 0; gi < ng; gi++)
        free(rows[gi]);
    free(rows);
    free(n_nodes);
    free((void *)graphs);
    tosac_program_free(p);
}

static void test_zoo_mobilenet_v2_qdq(void **state)
{
    (void)state;
    zoo_case("mobilenet_v2_qdq_u8s8_op13", "TOSA-1.0+INT", NULL, 0, 0);
}

static void test_zoo_resnet18_qdq(void **state)
{
    (void)state;
    zoo_case("resnet18_qdq_u8s8_op13", "TOSA-1.0+INT", NULL, 0, 0);
}

static void test_zoo_s16_split_matmul(void **state)
{
    (void)state;
    zoo_case("synth_qdq_s16_op21_split_matmul", "TOSA-1.0+INT+int16", NULL, 0, 0);
}

/* A float CNN under FP: size order alone left 5% above the bound (509952 vs 485376) */
static void test_zoo_ppocr_fp(void **state)
{
    (void)state;
    const char *shapes[1] = {"x=1,3,48,192"};
    zoo_case("ppocr_mobile_v2_cls", "TOSA-1.0+FP", shapes, 1, 0);
}

/* Silero: every delegate inside the two branches of an If (bodies planned into regions). */
static void test_zoo_silero_bodies(void **state)
{
    (void)state;
    const char *shapes[2] = {"input=1,576", "state=2,1,128"};
    zoo_case("silero_vad_op18_ifless", "TOSA-1.0+FP", shapes, 2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_reuses_first_buffer),
        cmocka_unit_test(test_overlapping_equal_intervals),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_best_order_kept),
        cmocka_unit_test(test_rounds_reach_bound),
        cmocka_unit_test(test_place_refuses_bad_items),
        cmocka_unit_test(test_check_finds_overlap),
        cmocka_unit_test(test_random_sets),
        cmocka_unit_test(test_tosa_order_follows_dependencies),
        cmocka_unit_test(test_small_program_aliases_delegate_io),
        cmocka_unit_test(test_zoo_mobilenet_v2_qdq),
        cmocka_unit_test(test_zoo_resnet18_qdq),
        cmocka_unit_test(test_zoo_s16_split_matmul),
        cmocka_unit_test(test_zoo_ppocr_fp),
        cmocka_unit_test(test_zoo_silero_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
