/* The int64 rule per spec (docs/USAGE.md, tosa_spec_keeps_int64): with EXT-INT64 (TOSA 1.1,
 * INT or FP) int64 values stay i64 in the delegates; without it they are narrowed to int32
 * where their range provably fits, stay on the CPU where it is unknown (runtime inputs) or
 * crosses the int32 bounds, and an int64 constant beyond int32 is a compile error.
 *
 * Each case is a small model (x -> Cast(to=INT64) -> Add(., c) or Abs, or a runtime int64 x)
 * compiled under each spec, with values at and beyond the int32 bounds (2^31-1, 2^31,
 * 2^32-1, -2^31-1, 3e9, 2^40). Asserted: the compile status and message, the delegates'
 * operators and element types, the CPU graph's operators (where each Cast went), and the
 * program's outputs (after a write/read round trip) against both the values computed here
 * in C and the CPU executor on the same model, exactly. */
#include "passes_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/compile.h"
#include "tosac/program.h"

#define P31 ((int64_t)1 << 31)
#define P32 ((int64_t)1 << 32)
#define P40 ((int64_t)1 << 40)

/* The specs, with the one each error message names as keeping int64 (NULL: this one does). */
enum { S10, S11, K_INT, K_FP, K_INTFP, F10, N_SPECS };
static const char *const specs[N_SPECS] = {"TOSA-1.0+INT", "TOSA-1.1+INT",
                                           "TOSA-1.1+INT+int64", "TOSA-1.1+FP+int64",
                                           "TOSA-1.1+INT+FP+int64", "TOSA-1.0+FP"};
static const char *const keeper[N_SPECS] = {"TOSA-1.1+INT+int64", "TOSA-1.1+INT+int64", NULL,
                                            NULL, NULL, "TOSA-1.1+FP+int64"};

static const int64_t s4[1] = {4};

typedef struct model_case {
    tosac_dtype xdt;      /* I16 / U16 / BOOL: x -> Cast(to=INT64); I64: x is read directly */
    const char *op;       /* "Add", "Sub", "Mul" (with c) or "Abs" */
    int64_t c[4];
    int64_t x[4];         /* the input (bool: 0/1) */
} model_case;

static ir_model *build(const model_case *mc)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    assert_non_null(m);
    ir_graph *g = m->graph;
    int x = bt_input(g, "x", mc->xdt, 1, s4), a = x;
    if (mc->xdt != TOSAC_DT_I64) {
        a = bt_tensor(g, "a", TOSAC_DT_I64, 1, s4);
        int k = ir_graph_add_node(g, "Cast", NULL, "cast", &x, 1, &a, 1, &err);
        assert_true(k >= 0);
        assert_int_equal(ir_node_set_int(g, k, "to", 7, &err), TOSAC_OK);
    }
    int y = bt_tensor(g, "y", TOSAC_DT_I64, 1, s4);
    bool binary = strcmp(mc->op, "Abs") != 0;
    int in[2] = {a, binary ? bt_const(g, "c", TOSAC_DT_I64, 1, s4, mc->c) : -1};
    assert_true(ir_graph_add_node(g, mc->op, NULL, "op", in, binary ? 2 : 1, &y, 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
    return m;
}

static tosac_tensor input(const model_case *mc, void *buf)
{
    for (int i = 0; i < 4; i++) {
        if (mc->xdt == TOSAC_DT_I16)
            ((int16_t *)buf)[i] = (int16_t)mc->x[i];
        else if (mc->xdt == TOSAC_DT_U16)
            ((uint16_t *)buf)[i] = (uint16_t)mc->x[i];
        else if (mc->xdt == TOSAC_DT_BOOL)
            ((uint8_t *)buf)[i] = (uint8_t)mc->x[i];
        else
            ((int64_t *)buf)[i] = mc->x[i];
    }
    return bt_host(mc->xdt, 1, s4, buf);
}

/* y as ONNX defines it, in plain C int64 arithmetic (no value here leaves int64). */
static void expected(const model_case *mc, int64_t *y)
{
    for (int i = 0; i < 4; i++)
        y[i] = strcmp(mc->op, "Abs") == 0   ? (mc->x[i] < 0 ? -mc->x[i] : mc->x[i])
               : strcmp(mc->op, "Sub") == 0 ? mc->x[i] - mc->c[i]
               : strcmp(mc->op, "Mul") == 0 ? mc->x[i] * mc->c[i]
                                            : mc->x[i] + mc->c[i];
}

typedef struct expect {
    tosac_code rc;
    const char *values;   /* rc != OK: the constant's value range in the message */
    const char *dops;     /* distinct delegate operators, first-use order ("" when none) */
    const char *dtypes;   /* element types of the delegates' tensors, in dtype order */
    const char *cpu;      /* the program's CPU graph operators, in order */
} expect;

static void cat(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? " " : "", word);
}

static void delegate_summary(const tosac_program *p, char *ops, char *dts, size_t len)
{
    bool seen_op[TOSA_OP_COUNT] = {false}, seen_dt[TOSAC_DT_COUNT] = {false};
    ops[0] = dts[0] = '\0';
    for (int k = 0; k < tosac_program_n_delegates(p); k++) {
        const tosa_block *b = tosa_graph_main_block(tosac_program_delegate(p, k));
        for (int i = 0; i < b->n_ops; i++)
            if (b->ops[i].op != TOSA_OP_CONST && !seen_op[b->ops[i].op]) {
                seen_op[b->ops[i].op] = true;
                cat(ops, len, tosa_op_name(b->ops[i].op));
            }
        for (int t = 0; t < b->n_tensors; t++)
            seen_dt[b->tensors[t].dtype] = true;
    }
    for (int d = 0; d < TOSAC_DT_COUNT; d++)
        if (seen_dt[d])
            cat(dts, len, tosac_dtype_name((tosac_dtype)d));
}

/* Compiles m (consumed) under specs[spec]. */
static tosac_code compile_under(ir_model *m, int spec, tosac_program **p, char **report,
                                tosac_error *err)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = specs[spec];
    return tosac_compile_model(m, &o, p, report, err);
}

static void check(const model_case *mc, int spec, const expect *e)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_program *p = NULL;
    tosac_code rc = compile_under(build(mc), spec, &p, NULL, &err);
    char msg[512] = "";
    if (e->rc)
        snprintf(msg, sizeof msg, "int64 constant 'c' (values %s, read by node 1 (%s 'op')) "
                 "does not fit int32 and %s has no int64 (EXT-INT64: %s keeps it)", e->values,
                 mc->op, specs[spec], keeper[spec]);
    if (rc != e->rc || (rc && strcmp(err.msg, msg)))
        fprintf(stderr, "%s: rc %d: %s\n", specs[spec], rc, err.msg);
    assert_int_equal(rc, e->rc);
    if (rc) {
        assert_string_equal(err.msg, msg);
        return;
    }
    char ops[256], dts[256], cpu[256] = "";
    delegate_summary(p, ops, dts, sizeof ops);
    const ir_graph *g = tosac_program_cpu(p)->graph;
    for (int i = 0; i < g->n_nodes; i++)
        cat(cpu, sizeof cpu, g->nodes[i].op_type);
    if (strcmp(ops, e->dops) || strcmp(dts, e->dtypes) || strcmp(cpu, e->cpu))
        fprintf(stderr, "%s: delegates [%s] types [%s] cpu [%s]\n", specs[spec], ops, dts, cpu);
    assert_string_equal(ops, e->dops);
    assert_string_equal(dts, e->dtypes);
    assert_string_equal(cpu, e->cpu);
    /* what `tosac run` sees: the program as written and read back */
    void *bytes = NULL;
    size_t len = 0;
    tosac_program *q = NULL;
    assert_int_equal(tosac_program_to_bytes(p, &bytes, &len, &err), TOSAC_OK);
    assert_int_equal(tosac_program_from_bytes(bytes, len, &q, &err), TOSAC_OK);
    free(bytes);
    tosac_program_free(p);
    int64_t xbuf[4], want[4];
    tosac_tensor in = input(mc, xbuf), out, ref;
    rc = tosac_program_run(q, &in, 1, &out, 1, &err);
    if (rc)
        fprintf(stderr, "%s: run: %s\n", specs[spec], err.msg);
    assert_int_equal(rc, TOSAC_OK);
    expected(mc, want);
    assert_int_equal(out.dtype, TOSAC_DT_I64);
    assert_int_equal(out.nbytes, sizeof want);
    assert_memory_equal(out.data, want, sizeof want);
    ir_model *m = build(mc);
    pt_cpu(m->graph, &in, 1, &ref, 1);
    assert_memory_equal(out.data, ref.data, sizeof want);
    tosac_tensor_free(&ref);
    ir_model_free(m);
    tosac_tensor_free(&out);
    tosac_program_free(q);
}

/* mc under every spec: narrow32 is what the specs without EXT-INT64 but with PRO-INT give,
 * kept what the two with EXT-INT64 and PRO-INT give, kept_fp TOSA-1.1+FP+int64 (NULL: as
 * kept), fp TOSA-1.0+FP. */
static void check_all(const model_case *mc, const expect *narrow32, const expect *kept,
                      const expect *kept_fp, const expect *fp)
{
    const expect *e[N_SPECS] = {narrow32, narrow32, kept, kept_fp ? kept_fp : kept, kept, fp};
    for (int s = 0; s < N_SPECS; s++)
        check(mc, s, e[s]);
}

/* With EXT-INT64, int16 -> int64 is CAST i16 -> i32 -> i64 (TOSA has no CAST i16 -> i64);
 * without PRO-INT there is no CAST from i16 at all, and the Cast stays on the CPU. */
static const expect kept_i16 = {TOSAC_OK, NULL, "CAST ADD", "i16 i32 i64", "TosaDelegate"};
static const expect kept_i16_fp = {TOSAC_OK, NULL, "ADD", "i64", "Cast TosaDelegate"};

/* Narrowed: int16 -> int64 plus constants inside int32, the sum down to -2^31 exactly.
 * PRO-FP has ADD i32 but no CAST from i16. */
static void test_in_range_constant(void **state)
{
    (void)state;
    model_case mc = {TOSAC_DT_I16, "Add", {7, -7, 100000, -P31 + 32768}, {-32768, -1, 0, -32768}};
    const expect narrowed = {TOSAC_OK, NULL, "CAST ADD", "i16 i32", "TosaDelegate Cast"};
    const expect fp = {TOSAC_OK, NULL, "ADD", "i32", "Cast TosaDelegate Cast"};
    check_all(&mc, &narrowed, &kept_i16, &kept_i16_fp, &fp);
}

/* A constant beyond int32 (each boundary value): refused without EXT-INT64, kept with it. */
static void test_constant_beyond_int32(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        const char *values;
    } big[] = {{P31, "-1..2147483648"},          {P32 - 1, "-1..4294967295"},
               {-P31 - 1, "-2147483649..1"},     {3000000000, "-1..3000000000"},
               {P40, "-1..1099511627776"}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        model_case mc = {TOSAC_DT_I16, "Add", {big[i].v, 0, 1, -1}, {32767, -32768, 5, 0}};
        const expect refused = {TOSAC_ERR_UNSUPPORTED, big[i].values, NULL, NULL, NULL};
        check_all(&mc, &refused, &kept_i16, &kept_i16_fp, &refused);
    }
}

/* Computed ranges crossing the int32 bounds are not narrowed: 2^31-1 plus a 0/1 value
 * (bool -> int64) reaches 2^31, and -2^31 plus an int16 goes below -2^31. CAST bool -> i64
 * needs EXT-INT64 alone: there the first model is one delegate. */
static void test_range_crossing_int32(void **state)
{
    (void)state;
    const int64_t m = P31 - 1;
    model_case plus_one = {TOSAC_DT_BOOL, "Add", {m, m, m, m}, {0, 1, 1, 0}};
    model_case below = {TOSAC_DT_I16, "Add", {-P31, -P31, -P31, -P31}, {-1, -32768, 0, 1}};
    const expect cpu = {TOSAC_OK, NULL, "", "", "Cast Add"};
    const expect kept_bool = {TOSAC_OK, NULL, "CAST ADD", "bool i64", "TosaDelegate"};
    check_all(&plus_one, &cpu, &kept_bool, NULL, &cpu);
    check_all(&below, &cpu, &kept_i16, &kept_i16_fp, &cpu);
}

/* Computed ranges of Sub and Mul at and across the bounds, where a wrong pairing of the
 * operands' bounds would look narrow: int16 x in [-32768, 32767] minus c in
 * [-2^31 + 32768, 0] reaches 2^31 - 1 exactly (narrowed), minus c in [-2^31 + 32767, 5]
 * reaches 2^31 (x = 32767, c = -2^31 + 32767: not narrowed; a range taken as
 * [a.lo - b.lo, a.hi - b.hi] would fit and the sum would wrap to -2^31); uint16 x in
 * [0, 65535] times c in [-40000, 1] reaches -2621400000 (65535 * -40000) only through the
 * a.hi * b.lo corner. */
static void test_sub_mul_ranges(void **state)
{
    (void)state;
    model_case sub_fits = {TOSAC_DT_I16, "Sub", {-P31 + 32768, 0, 7, -7}, {32767, -32768, 0, 1}};
    model_case sub_over = {TOSAC_DT_I16, "Sub", {-P31 + 32767, 0, 5, -5}, {32767, -32768, 0, 1}};
    model_case mul_over = {TOSAC_DT_U16, "Mul", {-40000, 1, 0, -1}, {65535, 65535, 7, 0}};
    const expect narrowed = {TOSAC_OK, NULL, "CAST SUB", "i16 i32", "TosaDelegate Cast"};
    const expect fp = {TOSAC_OK, NULL, "SUB", "i32", "Cast TosaDelegate Cast"};
    const expect kept_sub = {TOSAC_OK, NULL, "CAST SUB", "i16 i32 i64", "TosaDelegate"};
    const expect kept_sub_fp = {TOSAC_OK, NULL, "SUB", "i64", "Cast TosaDelegate"};
    const expect cpu_sub = {TOSAC_OK, NULL, "", "", "Cast Sub"};
    check_all(&sub_fits, &narrowed, &kept_sub, &kept_sub_fp, &fp);
    check_all(&sub_over, &cpu_sub, &kept_sub, &kept_sub_fp, &cpu_sub);
    const expect cpu_mul = {TOSAC_OK, NULL, "", "", "Cast Mul"};
    const expect kept_mul = {TOSAC_OK, NULL, "MUL", "i8 i64", "Cast TosaDelegate"}; /* i8: MUL's shift */
    check_all(&mul_over, &cpu_mul, &kept_mul, NULL, &cpu_mul);
}

/* A runtime int64 input has no known range: CPU without EXT-INT64 (whatever the constant),
 * an i64 ADD with it. */
static void test_runtime_input(void **state)
{
    (void)state;
    model_case mc = {TOSAC_DT_I64, "Add", {1, -1, P31 - 1, -P31}, {P31, 3000000000, -P31 - 1, P32 - 1}};
    model_case bigc = {TOSAC_DT_I64, "Add", {3000000000, P40, -P31 - 1, P31}, {P31 - 1, -P31, 0, 1}};
    const expect cpu = {TOSAC_OK, NULL, "", "", "Add"};
    const expect kept = {TOSAC_OK, NULL, "ADD", "i64", "TosaDelegate"};
    check_all(&mc, &cpu, &kept, NULL, &cpu);
    check_all(&bigc, &cpu, &kept, NULL, &cpu);
}

/* Issue 8 defect 2: int16 -> Cast(INT64) -> Abs -> y. Under TOSA-1.1+FP+int64 the program
 * failed with "input 'y_i32': expected i32[4], got i64[4]"; under TOSA-1.0+FP (no ABS i32:
 * all on the CPU) the CPU Abs wrote int64 into the int32 twin of y (now refused by the CPU
 * executor). */
static void test_abs_graph_output(void **state)
{
    (void)state;
    model_case mc = {TOSAC_DT_I16, "Abs", {0}, {-32768, -1, 0, 32767}};
    const expect narrowed = {TOSAC_OK, NULL, "CAST ABS", "i16 i32", "TosaDelegate Cast"};
    const expect kept = {TOSAC_OK, NULL, "CAST ABS", "i16 i32 i64", "TosaDelegate"};
    const expect kept_fp = {TOSAC_OK, NULL, "ABS", "i64", "Cast TosaDelegate"};
    const expect fp = {TOSAC_OK, NULL, "", "", "Cast Abs"};
    check_all(&mc, &narrowed, &kept, &kept_fp, &fp);
}

/* One narrowed value with every kind of reader: a is a graph output, read by a delegated Add
 * and by a CumSum (no TOSA lowering: CPU); the constant c is read by that Add and by an Add
 * of a runtime int64 input (CPU without EXT-INT64). Outputs a, a + c, CumSum(a), z + c. */
static ir_model *mixed_model(void)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    const int64_t cv[4] = {1, -2, P31 - 1 - 32767, 4}, zero = 0, s0[1] = {1};
    int x = bt_input(g, "x", TOSAC_DT_I16, 1, s4), z = bt_input(g, "z", TOSAC_DT_I64, 1, s4);
    int a = bt_tensor(g, "a", TOSAC_DT_I64, 1, s4), c = bt_const(g, "c", TOSAC_DT_I64, 1, s4, cv);
    int ax = bt_const(g, "axis", TOSAC_DT_I64, 0, s0, &zero);
    int y[3] = {bt_tensor(g, "ac", TOSAC_DT_I64, 1, s4), bt_tensor(g, "cum", TOSAC_DT_I64, 1, s4),
                bt_tensor(g, "zc", TOSAC_DT_I64, 1, s4)};
    int k = ir_graph_add_node(g, "Cast", NULL, "cast", &x, 1, &a, 1, &err);
    assert_true(k >= 0);
    assert_int_equal(ir_node_set_int(g, k, "to", 7, &err), TOSAC_OK);
    int add1[2] = {a, c}, cum[2] = {a, ax}, add2[2] = {z, c};
    assert_true(ir_graph_add_node(g, "Add", NULL, "add_a", add1, 2, &y[0], 1, &err) >= 0);
    assert_true(ir_graph_add_node(g, "CumSum", NULL, "cumsum", cum, 2, &y[1], 1, &err) >= 0);
    assert_true(ir_graph_add_node(g, "Add", NULL, "add_z", add2, 2, &y[2], 1, &err) >= 0);
    assert_int_equal(ir_graph_mark_output(g, a, &err), TOSAC_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ir_graph_mark_output(g, y[i], &err), TOSAC_OK);
    return m;
}

static void check_mixed(int spec, const char *dops, const char *dtypes)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_program *p = NULL;
    assert_int_equal(compile_under(mixed_model(), spec, &p, NULL, &err), TOSAC_OK);
    char ops[256], dts[256];
    delegate_summary(p, ops, dts, sizeof ops);
    if (strcmp(ops, dops) || strcmp(dts, dtypes))
        fprintf(stderr, "%s: delegates [%s] types [%s]\n", specs[spec], ops, dts);
    assert_string_equal(ops, dops);
    assert_string_equal(dts, dtypes);
    const int16_t xv[4] = {-32768, -1, 32767, 5};
    const int64_t zv[4] = {P31, -P31 - 1, 3000000000, P32 - 1};
    const int64_t cv[4] = {1, -2, P31 - 1 - 32767, 4};
    tosac_tensor in[2] = {bt_host(TOSAC_DT_I16, 1, s4, xv), bt_host(TOSAC_DT_I64, 1, s4, zv)};
    tosac_tensor out[4], ref[4];
    tosac_code rc = tosac_program_run(p, in, 2, out, 4, &err);
    if (rc)
        fprintf(stderr, "%s: run: %s\n", specs[spec], err.msg);
    assert_int_equal(rc, TOSAC_OK);
    int64_t want[4][4], acc = 0;
    for (int i = 0; i < 4; i++) {
        want[0][i] = xv[i];
        want[1][i] = xv[i] + cv[i];
        want[2][i] = acc += xv[i];
        want[3][i] = zv[i] + cv[i];
    }
    ir_model *m = mixed_model();
    pt_cpu(m->graph, in, 2, ref, 4);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(out[k].dtype, TOSAC_DT_I64);
        assert_int_equal(out[k].nbytes, sizeof want[k]);
        assert_memory_equal(out[k].data, want[k], sizeof want[k]);
        assert_memory_equal(out[k].data, ref[k].data, sizeof want[k]);
        tosac_tensor_free(&out[k]);
        tosac_tensor_free(&ref[k]);
    }
    ir_model_free(m);
    tosac_program_free(p);
}

static void test_mixed_readers(void **state)
{
    (void)state;
    check_mixed(S10, "CAST ADD", "i16 i32");
    check_mixed(S11, "CAST ADD", "i16 i32");
    check_mixed(K_INT, "CAST ADD", "i16 i32 i64");
    check_mixed(K_FP, "ADD", "i64");
    check_mixed(K_INTFP, "CAST ADD", "i16 i32 i64");
    check_mixed(F10, "ADD", "i32");
}

/* *report: the compile report of m (consumed) under spec s (malloc'd). */
static void report_of(ir_model *m, int s, char **report)
{
    tosac_error err;
    tosac_error_clear(&err);
    tosac_program *p = NULL;
    tosac_code rc = compile_under(m, s, &p, report, &err);
    tosac_program_free(p);
    if (rc != TOSAC_OK)
        fail_msg("%s: %s", specs[s], err.msg);
}

static void want_in(const char *report, int s, const char *text)
{
    if (!strstr(report, text))
        fprintf(stderr, "%s: want '%s' in %s\n", specs[s], text, report);
    assert_non_null(strstr(report, text));
}

/* Partitioning follows the same rule, in words of the int64 policy: an int64 node left on
 * the CPU is "int64 not kept" without EXT-INT64, with the spec that keeps it when that one
 * has the form; with EXT-INT64 only an operator without an i64 form stays (REDUCE_PRODUCT
 * has none in any version), a type refusal like any other. */
static void test_reason_category(void **state)
{
    (void)state;
    const int64_t s1[1] = {1};
    for (int s = 0; s < N_SPECS; s++) {
        tosac_error err;
        tosac_error_clear(&err);
        ir_model *m = ir_model_new();
        ir_graph *g = m->graph;
        int x = bt_input(g, "x", TOSAC_DT_I64, 1, s4), y = bt_tensor(g, "y", TOSAC_DT_I64, 1, s1);
        assert_true(ir_graph_add_node(g, "ReduceProd", NULL, "prod", &x, 1, &y, 1, &err) >= 0);
        assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
        char *report = NULL;
        report_of(m, s, &report);
        if (keeper[s]) {
            want_in(report, s, "\"category\": \"int64 not kept\"");
            want_in(report, s, "ReduceProd: its int64 values are not provably within int32, and "
                    "TOSA has no form for them (REDUCE_PRODUCT: no form for in_out_t=i64)");
        } else {
            want_in(report, s, "\"category\": \"type not legal\"");
            want_in(report, s, "ReduceProd: TOSA 1.1 has no such form (REDUCE_PRODUCT: no form "
                    "for in_out_t=i64)");
        }
        free(report);
        if (!keeper[s])
            continue; /* an int64 Add is delegated there (test_runtime_input) */
        model_case mc = {TOSAC_DT_I64, "Add", {1, 1, 1, 1}, {0}};
        report_of(build(&mc), s, &report);
        char reason[256];
        snprintf(reason, sizeof reason, "Add: its int64 values are not provably within int32, "
                 "and %s has no int64 (EXT-INT64: %s keeps it)", specs[s], keeper[s]);
        want_in(report, s, "\"category\": \"int64 not kept\"");
        want_in(report, s, reason);
        free(report);
    }
}

/* An ArgMax of floats left on the CPU writes int64 (its ONNX type), but the reason is the
 * float input, not the int64 output. */
static void test_int64_output_true_reason(void **state)
{
    (void)state;
    for (int s = S10; s <= S11; s++) {
        tosac_error err;
        tosac_error_clear(&err);
        ir_model *m = ir_model_new();
        ir_graph *g = m->graph;
        const int64_t sx[2] = {2, 4}, sy[1] = {2};
        int x = bt_input(g, "x", TOSAC_DT_F32, 2, sx), y = bt_tensor(g, "y", TOSAC_DT_I64, 1, sy);
        int k = ir_graph_add_node(g, "ArgMax", NULL, "am", &x, 1, &y, 1, &err);
        assert_true(k >= 0);
        assert_int_equal(ir_node_set_int(g, k, "axis", 1, &err), TOSAC_OK);
        assert_int_equal(ir_node_set_int(g, k, "keepdims", 0, &err), TOSAC_OK);
        assert_int_equal(ir_graph_mark_output(g, y, &err), TOSAC_OK);
        char *report = NULL;
        report_of(m, s, &report);
        /* 1.1 has ARGMAX f32 -> i64 (PRO-FP & EXT-INT64): either fix delegates it */
        const char *reason = s == S10 ? "ArgMax: float32 operands need +FP (TOSA-1.0+INT+FP)"
                                      : "ArgMax: float32 operands and int64 values need +FP+int64 "
                                        "(TOSA-1.1+INT+FP+int64)";
        want_in(report, s, "\"category\": \"needs a profile or extension\"");
        want_in(report, s, reason);
        free(report);
    }
}

/* The rule read off the spec tables: every integer row with an i64 operand is legal under
 * TOSA-1.1+INT+int64 exactly when it is under TOSA-1.1+FP+int64 (EXT-INT64 goes with both
 * profiles), and under neither without +int64. */
static void test_rule_matches_tables(void **state)
{
    (void)state;
    tosa_spec ki = bt_spec("TOSA-1.1+INT+int64"), kf = bt_spec("TOSA-1.1+FP+int64");
    tosa_spec none = bt_spec("TOSA-1.1+INT+FP");
    assert_true(tosa_spec_keeps_int64(&ki) && tosa_spec_keeps_int64(&kf));
    assert_false(tosa_spec_keeps_int64(&none));
    assert_false(tosa_spec_keeps_int64(&(tosa_spec){.major = 1, .minor = 0, .patch = -1,
                                                     .profiles = TOSA_FEAT_INT}));
    int rows = 0;
    for (int i = 0; i < tosa_spec_op_count(&ki); i++) {
        const tosa_spec_op *op = tosa_spec_op_at(&ki, i);
        for (int r = 0; r < op->n_rows; r++) {
            const tosa_spec_row *row = &op->rows[r];
            bool i64 = false, ints = true;
            for (int t = 0; t < op->n_types; t++) {
                i64 |= row->types[t] == TOSAC_DT_I64;
                ints &= row->types[t] == TOSAC_DT_UNKNOWN || row->types[t] == TOSAC_DT_BOOL ||
                        tosac_dtype_is_int(row->types[t]);
            }
            if (!i64 || !ints)
                continue;
            rows++;
            if (tosa_spec_row_legal(&ki, row) != tosa_spec_row_legal(&kf, row))
                fprintf(stderr, "%s row %d differs\n", op->name, r);
            assert_int_equal(tosa_spec_row_legal(&ki, row), tosa_spec_row_legal(&kf, row));
            assert_false(tosa_spec_row_legal(&none, row));
        }
    }
    assert_true(rows >= 40); /* ADD, SUB, MUL, ..., CAST, CONST, GATHER indices */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_range_constant),
        cmocka_unit_test(test_constant_beyond_int32),
        cmocka_unit_test(test_range_crossing_int32),
        cmocka_unit_test(test_sub_mul_ranges),
        cmocka_unit_test(test_runtime_input),
        cmocka_unit_test(test_abs_graph_output),
        cmocka_unit_test(test_mixed_readers),
        cmocka_unit_test(test_reason_category),
        cmocka_unit_test(test_int64_output_true_reason),
        cmocka_unit_test(test_rule_matches_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
