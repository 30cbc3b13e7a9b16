/* The interpreter on corrupted-but-readable graphs: conformance graphs are read, then their
 * attributes, tensor shapes/ranks/dtypes, constant data, operand wiring, operand counts and
 * operator kinds are mutated in memory (seeded, so every run tries the same graphs), and run
 * on random inputs of the declared types. Each run must return OK or an error with a message,
 * never crash or touch memory out of bounds (the ASan+UBSan build runs this): it checks every
 * operator's ERROR_IF coverage.
 *
 * Covered: every operator. WHILE_LOOP is left out (a mutated condition may legitimately loop
 * forever). For exploring, TOSAC_FUZZ_OPS=a,b (folder
 * names), TOSAC_FUZZ_ITERS=n and TOSAC_FUZZ_SEED=n override the defaults; TOSAC_FUZZ_VERBOSE=1
 * prints each case before it runs, to find the one that crashes. */
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosa/tosa_internal.h"
#include "tosac/interp.h"
#include "tosac/npy.h"
#include "util/fileio.h"

/* Conformance folders: every operator but WHILE_LOOP. */
static const char *const default_ops =
    "argmax,avg_pool2d,max_pool2d,matmul,conv2d,conv3d,depthwise_conv2d,transpose_conv2d,"
    "concat,pad,reshape,reverse,slice,tile,transpose,gather,scatter,resize,cast,rescale,const,"
    "const_shape,identity,cond_if,table,clamp,erf,sigmoid,tanh,abs,add,arithmetic_right_shift,"
    "bitwise_and,bitwise_not,bitwise_or,bitwise_xor,ceil,clz,cos,exp,floor,intdiv,log,"
    "logical_and,logical_left_shift,logical_not,logical_or,logical_right_shift,logical_xor,"
    "maximum,minimum,mul,negate,pow,reciprocal,rsqrt,select,sin,sub,equal,greater,"
    "greater_equal,reduce_all,reduce_any,reduce_max,reduce_min,reduce_product,reduce_sum";

/* Operator kinds a mutation may turn an operator into: every 1.0 operator but WHILE_LOOP. */
static tosa_op mut_op(void)
{
    tosa_op op;
    do
        op = (tosa_op)(1 + tu_below(TOSA_OP_LAST_1_0));
    while (op == TOSA_OP_WHILE_LOOP);
    return op;
}

#define TESTS_PER_OP 4

static int verbose;
static uint32_t max_edits = 3; /* mutations per graph: 1..max_edits */

/* Values that sit on the edges of what operators check. */
static int64_t interesting(int64_t old)
{
    static const int64_t v[] = {0, 1, -1, 2, 3, 7, 8, 16, 64, -2, -8, 127, 128, 255, 32767,
                                65535, 2147483647, -2147483647 - 1, (int64_t)1 << 36};
    switch (tu_below(4)) {
    case 0: return old + 1;
    case 1: return old - 1;
    default: return v[tu_below(sizeof v / sizeof v[0])];
    }
}

static tosa_block *pick_block(tosa_graph *g)
{
    tosa_region *r = &g->regions[tu_below((uint32_t)g->n_regions)];
    if (!r->n_blocks)
        return NULL;
    /* mostly the main block: it is the one that always runs */
    return tu_below(3) ? &g->regions[0].blocks[0] : &r->blocks[tu_below((uint32_t)r->n_blocks)];
}

static const char *block_name(tosa_graph *g)
{
    tosa_region *r = &g->regions[tu_below((uint32_t)g->n_regions)];
    return r->n_blocks ? r->blocks[tu_below((uint32_t)r->n_blocks)].name : "main";
}

static void mutate_attr(tosa_graph *g, tosa_operator *o)
{
    int n;
    const tosa_attr_field *fs = tosa_attr_fields(o->op, &n);
    if (!fs || n == 0)
        return;
    const tosa_attr_field *f = &fs[tu_below((uint32_t)n)];
    char *base = (char *)&o->attr;
    switch (f->kind) {
    case TOSA_AK_VEC:
    case TOSA_AK_RAW8: {
        int *cnt = (int *)(base + f->n_off);
        if (tu_below(4) == 0) {
            *cnt = (int)tu_below((uint32_t)f->cap + 1);
        } else if (*cnt > 0) {
            int i = (int)tu_below((uint32_t)*cnt);
            if (f->kind == TOSA_AK_VEC) {
                int32_t *v = (int32_t *)(base + f->off);
                v[i] = (int32_t)interesting(v[i]);
            } else {
                ((uint8_t *)(base + f->off))[i] = (uint8_t)tu_rand();
            }
        }
        return;
    }
    case TOSA_AK_STR: {
        char **s = (char **)(base + f->off);
        free(*s);
        *s = tu_below(4) ? strdup(block_name(g)) : NULL;
        return;
    }
    case TOSA_AK_BYTES: return;
    case TOSA_AK_DTYPE: tosa_attr_set_int(&o->attr, f, tu_below(TOSAC_DT_COUNT)); return;
    case TOSA_AK_BOOL: tosa_attr_set_int(&o->attr, f, !tosa_attr_get_int(&o->attr, f)); return;
    default:
        tosa_attr_set_int(&o->attr, f, tu_below(2) ? (int64_t)tu_below(5)
                                                : interesting(tosa_attr_get_int(&o->attr, f)));
        return;
    }
}

/* Element i of constant data as an integer to mutate (integer and shape types only). */
static void mutate_data(tosa_tensor *t)
{
    if (!t->data || !t->data_size)
        return;
    size_t es = tosac_dtype_size(t->dtype);
    size_t n = es ? t->data_size / es : 0;
    if (!n)
        return;
    size_t i = tu_below((uint32_t)n);
    uint8_t *p = (uint8_t *)t->data + i * es;
    if (tosac_dtype_is_float(t->dtype) || tu_below(3) == 0) {
        p[tu_below((uint32_t)es)] ^= (uint8_t)(1u << tu_below(8));
        return;
    }
    int64_t v = interesting(0);
    switch (es) {
    case 1: *(int8_t *)p = (int8_t)v; break;
    case 2: *(int16_t *)p = (int16_t)v; break;
    case 4: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = v; break;
    }
    if (t->dtype == TOSAC_DT_BOOL)
        *p &= 1; /* the in-memory bool is 0/1; other values are not a graph's to hold */
    if (t->dtype == TOSAC_DT_I4)
        *(int8_t *)p = (int8_t)((int8_t)(uint8_t)(*p << 4) >> 4);
    if (t->dtype == TOSAC_DT_I48)
        *(int64_t *)p = (int64_t)((uint64_t)*(int64_t *)p << 16) >> 16;
}

static void mutate(tosa_graph *g)
{
    tosa_block *b = pick_block(g);
    if (!b || b->n_tensors == 0)
        return;
    tosa_tensor *t = &b->tensors[tu_below((uint32_t)b->n_tensors)];
    tosa_operator *o = b->n_ops ? &b->ops[tu_below((uint32_t)b->n_ops)] : NULL;
    switch (tu_below(10)) {
    case 0:
    case 1:
        if (o)
            mutate_attr(g, o);
        break;
    case 2:
        if (t->rank > 0) {
            int64_t *d = &t->shape[tu_below((uint32_t)t->rank)];
            *d = interesting(*d);
            if (*d > 64 && *d < ((int64_t)1 << 36))
                *d = 64; /* keep runs small; huge sizes are tested by the 1<<36 value */
        }
        break;
    case 3: {
        int old = t->rank;
        t->rank = (int)tu_below(TOSAC_MAX_RANK + 1);
        for (int i = old; i < t->rank; i++)
            t->shape[i] = 1 + tu_below(2);
        break;
    }
    case 4:
        if (tu_below(8) == 0)
            t->variable = !t->variable;
        else
            t->dtype = (tosac_dtype)(1 + tu_below(TOSAC_DT_COUNT - 1));
        break;
    case 5:
    case 6: mutate_data(t); break;
    case 7:
        if (o && o->n_inputs + o->n_outputs > 0) {
            int k = (int)tu_below((uint32_t)(o->n_inputs + o->n_outputs));
            int *slot = k < o->n_inputs ? &o->inputs[k] : &o->outputs[k - o->n_inputs];
            *slot = (int)tu_below((uint32_t)b->n_tensors);
        }
        break;
    case 8:
        if (o) {
            if (tu_below(2) && o->n_inputs > 0)
                o->n_inputs--;
            else if (o->n_outputs > 0)
                o->n_outputs--;
        }
        break;
    case 9:
        if (o)
            o->op = mut_op();
        break;
    }
}

/* Random contents in the type's in-memory representation (mostly small values, which make
 * valid indices and shapes; sometimes any bits). */
static void fill_random(tosac_tensor *t)
{
    size_t es = tosac_dtype_size(t->dtype);
    int64_t n = tosac_tensor_numel(t);
    bool wild = tu_below(4) == 0;
    for (int64_t i = 0; i < n; i++) {
        uint8_t *p = (uint8_t *)t->data + (size_t)i * es;
        int64_t v = wild ? (int64_t)(((uint64_t)tu_rand() << 32) | tu_rand()) : (int64_t)tu_below(5) - 1;
        switch (t->dtype) {
        case TOSAC_DT_BOOL: *p = (uint8_t)(v & 1); break;
        case TOSAC_DT_I4: *(int8_t *)p = (int8_t)((int8_t)(uint8_t)((uint64_t)v << 4) >> 4); break;
        case TOSAC_DT_I48: *(int64_t *)p = (int64_t)((uint64_t)v << 16) >> 16; break;
        case TOSAC_DT_F32:
            if (wild)
                memcpy(p, &v, 4); /* any bits: NaN, infinities, subnormals */
            else
                *(float *)p = (float)v;
            break;
        case TOSAC_DT_F64: *(double *)p = (double)v; break;
        default: memcpy(p, &v, es); break;
        }
    }
}

/* Inputs as the (mutated) block declares them; a declaration that cannot be allocated small
 * gets a 1-element tensor of its type, which the interpreter must refuse. */
static tosac_tensor *make_inputs(const tosa_block *m)
{
    tosac_tensor *ins = calloc((size_t)m->n_inputs + 1, sizeof *ins);
    for (int i = 0; i < m->n_inputs; i++) {
        const tosa_tensor *d = &m->tensors[m->inputs[i]];
        size_t bytes;
        tosac_error err;
        tosac_error_clear(&err);
        int64_t one = 1;
        bool ok = tosac_shape_check(d->dtype, d->rank, d->shape, &bytes, &err) == TOSAC_OK &&
                  bytes <= (1u << 20) && d->dtype != TOSAC_DT_UNKNOWN;
        tosac_dtype dt = d->dtype == TOSAC_DT_UNKNOWN ? TOSAC_DT_I8 : d->dtype;
        tosac_code rc = ok ? tosac_tensor_alloc(&ins[i], dt, d->rank, d->shape, &err)
                           : tosac_tensor_alloc(&ins[i], dt, 1, &one, &err);
        assert_int_equal(rc, TOSAC_OK);
        fill_random(&ins[i]);
    }
    return ins;
}

/* A valid graph may declare tensors of gigabytes (the interpreter allows 16 GiB each); the
 * zeroing alone would make the test slow, so such graphs are not run. */
static bool too_big(const tosa_graph *g)
{
    for (int r = 0; r < g->n_regions; r++)
        for (int b = 0; b < g->regions[r].n_blocks; b++) {
            const tosa_block *blk = &g->regions[r].blocks[b];
            for (int t = 0; t < blk->n_tensors; t++) {
                const tosa_tensor *d = &blk->tensors[t];
                size_t bytes;
                if (tosac_shape_check(d->dtype, d->rank, d->shape, &bytes, NULL) == TOSAC_OK &&
                    bytes > (16u << 20))
                    return true;
            }
        }
    return false;
}

/* Runs g's main block on random inputs of its declared types: OK, or an error with a
 * message that is not an internal one. Returns 1 on OK. Frees g. */
static int run_graph(tosa_graph *g, const char *label, int iter)
{
    if (too_big(g)) {
        tosa_graph_free(g);
        return 0;
    }
    if (verbose) {
        fprintf(stderr, "%s iter %d\n", label, iter);
        fflush(stderr);
    }
    const tosa_block *m = tosa_graph_main_block(g);
    int n_in = m ? m->n_inputs : 0, n_out = m ? m->n_outputs : 0;
    tosac_tensor *ins = m ? make_inputs(m) : calloc(1, sizeof *ins);
    tosac_tensor *outs = calloc((size_t)n_out + 1, sizeof *outs);
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosa_interp_run(g, ins, n_in, outs, n_out, &err);
    if (rc == TOSAC_OK) {
        for (int i = 0; i < n_out; i++)
            tosac_tensor_free(&outs[i]);
    } else if (err.msg[0] == '\0' || rc == TOSAC_ERR_INTERNAL) {
        fail_msg("%s iter %d: code %d without a proper message: '%s'", label, iter, rc, err.msg);
    }
    for (int i = 0; i < n_in; i++)
        tosac_tensor_free(&ins[i]);
    free(ins);
    free(outs);
    tosa_graph_free(g);
    return rc == TOSAC_OK;
}

/* The writer on an odd graph (a dtype the version lacks, data shorter than the shape, ...):
 * OK or an error with a message; what it writes reads back equal. */
static void check_write_read(const tosa_graph *g, const char *label, int iter)
{
    void *buf;
    size_t len;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosa_graph_write(g, &buf, &len, &err);
    if (rc != TOSAC_OK) {
        if (rc == TOSAC_ERR_INTERNAL || err.msg[0] == '\0')
            fail_msg("%s iter %d: write: code %d '%s'", label, iter, rc, err.msg);
        return;
    }
    tosa_graph *back = NULL;
    if (tosa_graph_read(buf, len, &back, &err) != TOSAC_OK)
        fail_msg("%s iter %d: the writer's output does not read back: %s", label, iter, err.msg);
    if (!tosa_graph_equal(g, back))
        fail_msg("%s iter %d: the graph read back differs from the one written", label, iter);
    tosa_graph_free(back);
    free(buf);
}

static int run_mutated_graph(const uint8_t *file, size_t len, const char *label, int iter)
{
    tosa_graph *g = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_graph_read(file, len, &g, &err), TOSAC_OK);
    int edits = 1 + (int)tu_below(max_edits);
    for (int e = 0; e < edits; e++)
        mutate(g);
    check_write_read(g, label, iter);
    return run_graph(g, label, iter);
}

/* Byte-level damage to the file (as `tosac run` would meet it): whatever the reader accepts
 * is run. Returns 1 if the damaged file was accepted. */
static int run_mutated_file(const uint8_t *file, size_t len, const char *label, int iter)
{
    uint8_t *m = malloc(len);
    memcpy(m, file, len);
    int edits = 1 + (int)tu_below(3);
    for (int e = 0; e < edits; e++) {
        uint32_t pos = tu_below((uint32_t)len);
        if (tu_below(2))
            m[pos] ^= (uint8_t)(1u << tu_below(8));
        else
            m[pos] = (uint8_t)interesting(m[pos]);
    }
    tosa_graph *g = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosa_graph_read(m, len, &g, &err);
    free(m);
    if (rc != TOSAC_OK)
        return 0;
    run_graph(g, label, iter);
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Up to TESTS_PER_OP test folders of one operator, spread over its sorted list. */
static int pick_tests(const char *op, char **out)
{
    char dir[512];
    snprintf(dir, sizeof dir, "conformance/%s", op);
    DIR *d = opendir(tu_shared(dir));
    if (!d)
        fail_msg("no conformance folder %s", op);
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.' && strchr(e->d_name, '_'))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (k < TESTS_PER_OP && i == (int)((long)k * n / TESTS_PER_OP)) {
            char rel[800];
            snprintf(rel, sizeof rel, "conformance/%s/%s/test.tosa", op, names[i]);
            out[k++] = strdup(rel);
        }
        free(names[i]);
    }
    return k;
}

/* Operators without a conformance folder get small hand-built graphs, serialized so they
 * go through the same mutations. */
static uint8_t *serialize(tosa_graph *g, size_t *len)
{
    void *buf;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosa_graph_write(g, &buf, len, &err) != TOSAC_OK)
        fail_msg("write: %s", err.msg);
    tosa_graph_free(g);
    return buf;
}

static int add_tensor(tosa_block *b, const char *name, tosac_dtype dt, int rank, const int64_t *shape,
                      const void *data, size_t size)
{
    tosac_error err;
    tosac_error_clear(&err);
    int t = tosa_block_add_tensor(b, name, dt, rank, shape, data, size, &err);
    assert_true(t >= 0);
    return t;
}

/* FFT2D (f32[1,4,8] re, im -> re, im) and RFFT2D (f32[1,4,8] -> f32[1,4,5] x2). */
static uint8_t *synth_fft(bool real, size_t *len)
{
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *m = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t sin[3] = {1, 4, 8}, sout[3] = {1, 4, real ? 5 : 8};
    int ins[2] = {add_tensor(m, "re", TOSAC_DT_F32, 3, sin, NULL, 0),
                  add_tensor(m, "im", TOSAC_DT_F32, 3, sin, NULL, 0)};
    int outs[2] = {add_tensor(m, "ore", TOSAC_DT_F32, 3, sout, NULL, 0),
                   add_tensor(m, "oim", TOSAC_DT_F32, 3, sout, NULL, 0)};
    tosa_attr a;
    memset(&a, 0, sizeof a);
    tosac_error err;
    tosac_error_clear(&err);
    assert_true(tosa_block_add_op(m, real ? TOSA_OP_RFFT2D : TOSA_OP_FFT2D, &a, ins, real ? 1 : 2,
                                  outs, 2, &err) >= 0);
    assert_int_equal(tosa_block_set_io(m, ins, real ? 1 : 2, outs, 2, &err), TOSAC_OK);
    return serialize(g, len);
}

/* VARIABLE "v" (i32[2], initial {5, 6}); VARIABLE_WRITE x; VARIABLE_READ -> y. */
static uint8_t *synth_variable(size_t *len)
{
    tosa_graph *g = tosa_graph_new(1, 0);
    tosa_block *m = tosa_region_add_block(tosa_graph_add_region(g, "main"), "main");
    const int64_t s2 = 2;
    const int32_t init[2] = {5, 6};
    int v = add_tensor(m, "v", TOSAC_DT_I32, 1, &s2, init, sizeof init);
    m->tensors[v].variable = true;
    int x = add_tensor(m, "x", TOSAC_DT_I32, 1, &s2, NULL, 0);
    int y = add_tensor(m, "y", TOSAC_DT_I32, 1, &s2, NULL, 0);
    tosa_attr a;
    memset(&a, 0, sizeof a);
    tosac_error err;
    tosac_error_clear(&err);
    assert_true(tosa_block_add_op(m, TOSA_OP_VARIABLE, &a, NULL, 0, &v, 1, &err) >= 0);
    assert_true(tosa_block_add_op(m, TOSA_OP_VARIABLE_WRITE, &a, &x, 1, &v, 1, &err) >= 0);
    assert_true(tosa_block_add_op(m, TOSA_OP_VARIABLE_READ, &a, &v, 1, &y, 1, &err) >= 0);
    assert_int_equal(tosa_block_set_io(m, &x, 1, &y, 1, &err), TOSAC_OK);
    return serialize(g, len);
}

typedef int (*fuzz_fn)(const uint8_t *file, size_t len, const char *label, int iter);

/* Runs fn `iters` times on each chosen conformance graph; returns how many returned 1. */
static int fuzz_conformance(fuzz_fn fn, int default_iters, int *ran)
{
    const char *env_ops = getenv("TOSAC_FUZZ_OPS"), *env_iters = getenv("TOSAC_FUZZ_ITERS");
    const char *env_seed = getenv("TOSAC_FUZZ_SEED");
    verbose = getenv("TOSAC_FUZZ_VERBOSE") != NULL;
    if (getenv("TOSAC_FUZZ_EDITS"))
        max_edits = (uint32_t)atoi(getenv("TOSAC_FUZZ_EDITS"));
    int iters = env_iters ? atoi(env_iters) : default_iters;
    char *ops = strdup(env_ops ? env_ops : default_ops);
    int hits = 0;
    *ran = 0;
    for (char *save = NULL, *op = strtok_r(ops, ",", &save); op; op = strtok_r(NULL, ",", &save)) {
        char *tests[TESTS_PER_OP];
        int nt = pick_tests(op, tests);
        for (int t = 0; t < nt; t++) {
            void *file;
            size_t len;
            tosac_error err;
            tosac_error_clear(&err);
            assert_int_equal(tosac_read_file(tu_shared(tests[t]), &file, &len, &err), TOSAC_OK);
            /* one seed per graph: a failing case replays with TOSAC_FUZZ_OPS=<op> alone */
            tu_seed((env_seed ? strtoull(env_seed, NULL, 10) : 0x9e3779b97f4a7c15ull) + (uint64_t)t);
            for (int i = 0; i < iters; i++) {
                hits += fn(file, len, tests[t], i);
                (*ran)++;
            }
            free(file);
            free(tests[t]);
        }
    }
    free(ops);
    if (!env_ops) {
        static const char *const labels[3] = {"synthetic FFT2D", "synthetic RFFT2D",
                                              "synthetic VARIABLE"};
        for (int k = 0; k < 3; k++) {
            size_t len;
            uint8_t *file = k < 2 ? synth_fft(k == 1, &len) : synth_variable(&len);
            tu_seed((env_seed ? strtoull(env_seed, NULL, 10) : 0x9e3779b97f4a7c15ull) + 100u + (uint64_t)k);
            for (int i = 0; i < iters; i++) {
                hits += fn(file, len, labels[k], i);
                (*ran)++;
            }
            free(file);
        }
    }
    return hits;
}

static void test_mutated_graphs(void **state)
{
    (void)state;
    int ran;
    int ok = fuzz_conformance(run_mutated_graph, 150, &ran);
    fprintf(stderr, "mutated graphs: %d runs, %d OK\n", ran, ok);
    /* Some mutations leave a valid graph (e.g. a changed constant value): the runs reach the
     * operators' arithmetic, not only their checks. */
    assert_true(ok > ran / 50);
}

static void test_mutated_files(void **state)
{
    (void)state;
    int ran;
    int accepted = fuzz_conformance(run_mutated_file, 150, &ran);
    fprintf(stderr, "mutated files: %d tried, %d read and run\n", ran, accepted);
    assert_true(accepted > ran / 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_graphs),
        cmocka_unit_test(test_mutated_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
