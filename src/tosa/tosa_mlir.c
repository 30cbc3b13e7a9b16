/* TOSA graphs as MLIR text in the `tosa` dialect (TOSA 1.0 form), for mlir-opt and the
 * compilers built on it. Every operator is written in MLIR's generic form
 * ("tosa.conv2d"(%a, ...) <{attributes}> : (operand types) -> result type), which needs no
 * per-operator syntax: the operand order is the specification's (the same as the .tosa
 * file's), attribute names are the specification's, and only the attribute value spellings
 * differ by kind (the one attribute table, attr_schema.c, says which kind each field is).
 * Constants are `tosa.const` / `tosa.const_shape` with their full values (raw little-endian
 * hex for byte-sized integer and float types, decimal lists otherwise). COND_IF / WHILE_LOOP
 * bodies become regions; a sub-block's outer references name the caller's values.
 * Compiler side (libc allocation). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosa/tosa_internal.h"
#include "tosac/tosa.h"
#include "util/fp.h"

typedef struct mbuf {
    char *s;
    size_t len, cap;
    bool oom;
} mbuf;

static void put(mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(mbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->len + (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* The MLIR element type, or NULL when MLIR's tosa dialect has none. */
static const char *elem_type(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_BOOL: return "i1";
    case TOSAC_DT_I4: return "i4";
    case TOSAC_DT_I8: return "i8";
    case TOSAC_DT_I16: return "i16";
    case TOSAC_DT_I32: return "i32";
    case TOSAC_DT_I48: return "i48";
    case TOSAC_DT_I64: return "i64";
    case TOSAC_DT_F16: return "f16";
    case TOSAC_DT_BF16: return "bf16";
    case TOSAC_DT_F32: return "f32";
    case TOSAC_DT_FP8E4M3: return "f8E4M3FN";
    case TOSAC_DT_FP8E5M2: return "f8E5M2";
    default: return NULL;
    }
}

typedef struct mctx {
    mbuf *b;
    const tosa_graph *g;
    tosac_error *err;
    int depth;
} mctx;

static bool type_of(mctx *m, const tosa_tensor *t)
{
    if (t->dtype == TOSAC_DT_SHAPE) {
        put(m->b, "!tosa.shape<%" PRId64 ">", t->rank == 0 ? (int64_t)0 : t->shape[0]);
        return true;
    }
    const char *e = elem_type(t->dtype);
    if (!e) {
        tosac_fail(m->err, TOSAC_ERR_UNSUPPORTED, "tensor '%s': %s has no MLIR tosa type",
                   t->name, tosac_dtype_name(t->dtype));
        return false;
    }
    if (t->is_unranked) {
        put(m->b, "tensor<*x%s>", e);
        return true;
    }
    put(m->b, "tensor<");
    for (int d = 0; d < t->rank; d++) {
        if (t->shape[d] < 0)
            put(m->b, "?x");
        else
            put(m->b, "%" PRId64 "x", t->shape[d]);
    }
    put(m->b, "%s>", e);
    return true;
}

/* A value's SSA name: %b<block depth>_<tensor index>. */
static void value_name(mctx *m, int depth, int t) { put(m->b, "%%v%d_%d", depth, t); }

static int64_t numel(const tosa_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->shape[d] < 0 ? 0 : t->shape[d];
    return n;
}

/* Element i of constant data p as an MLIR literal. */
static void put_elem(mctx *m, tosac_dtype dt, const unsigned char *p, int64_t i)
{
    switch (dt) {
    case TOSAC_DT_BOOL: put(m->b, "%s", p[i] ? "true" : "false"); break;
    case TOSAC_DT_I4:
    case TOSAC_DT_I8: put(m->b, "%d", ((const int8_t *)p)[i]); break;
    case TOSAC_DT_I16: put(m->b, "%d", ((const int16_t *)p)[i]); break;
    case TOSAC_DT_I32: put(m->b, "%" PRId32, ((const int32_t *)p)[i]); break;
    case TOSAC_DT_I48:
    case TOSAC_DT_I64:
    case TOSAC_DT_SHAPE: put(m->b, "%" PRId64, ((const int64_t *)p)[i]); break;
    case TOSAC_DT_F32: {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        put(m->b, "0x%08" PRIX32, u);
        break;
    }
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16: put(m->b, "0x%04X", ((const uint16_t *)p)[i]); break;
    default: put(m->b, "0x%02X", p[i]); break;
    }
}

/* dense<...> : type for a constant tensor. */
static bool dense_of(mctx *m, const tosa_tensor *t)
{
    int64_t n = t->dtype == TOSAC_DT_SHAPE ? (t->rank ? t->shape[0] : 0) : numel(t);
    size_t es = tosac_dtype_size(t->dtype);
    if (!t->data || (size_t)n * es > t->data_size)
        return tosac_fail(m->err, TOSAC_ERR_INPUT, "constant '%s' has %zu bytes for %" PRId64
                          " elements", t->name, t->data_size, n), false;
    const unsigned char *p = t->data;
    bool hex = t->dtype == TOSAC_DT_I8 || t->dtype == TOSAC_DT_I16 || t->dtype == TOSAC_DT_I32 ||
               t->dtype == TOSAC_DT_I64 || t->dtype == TOSAC_DT_F16 || t->dtype == TOSAC_DT_BF16 ||
               t->dtype == TOSAC_DT_F32 || t->dtype == TOSAC_DT_FP8E4M3 ||
               t->dtype == TOSAC_DT_FP8E5M2;
    if (n == 0) {
        put(m->b, "dense<>");
    } else if (hex && n > 1) { /* (one element: the splat form below, valid for any shape) */
        put(m->b, "dense<\"0x");
        for (size_t i = 0; i < (size_t)n * es; i++)
            put(m->b, "%02X", p[i]);
        put(m->b, "\">");
    } else if (n == 1) {
        put(m->b, "dense<");
        put_elem(m, t->dtype, p, 0);
        put(m->b, ">");
    } else {
        /* a list nested like the shape ([[a, b], [c, d]]), as MLIR requires */
        int rank = t->dtype == TOSAC_DT_SHAPE ? 1 : t->rank;
        const int64_t *shape = t->dtype == TOSAC_DT_SHAPE ? &n : t->shape;
        int64_t idx[TOSAC_MAX_RANK] = {0};
        put(m->b, "dense<");
        for (int d = 0; d < rank; d++)
            put(m->b, "[");
        for (int64_t i = 0; i < n; i++) {
            put_elem(m, t->dtype, p, i);
            int d = rank - 1, closed = 0;
            while (d >= 0 && ++idx[d] == shape[d]) {
                idx[d--] = 0;
                closed++;
            }
            for (int k = 0; k < closed; k++)
                put(m->b, "]");
            if (i + 1 < n) {
                put(m->b, ", ");
                for (int k = 0; k < closed; k++)
                    put(m->b, "[");
            }
        }
        put(m->b, ">");
    }
    put(m->b, " : ");
    if (t->dtype == TOSAC_DT_SHAPE) {
        put(m->b, "tensor<%" PRId64 "xindex>", n);
        return true;
    }
    return type_of(m, t);
}

static const char *nan_name(uint32_t v) { return v == TOSA_NAN_IGNORE ? "IGNORE" : "PROPAGATE"; }
static const char *round_name(uint32_t v)
{
    return v == TOSA_ROUND_DOUBLE ? "DOUBLE_ROUND" : v == TOSA_ROUND_INEXACT ? "INEXACT_ROUND"
                                                                             : "SINGLE_ROUND";
}

/* CLAMP bounds: a scalar attribute of the input's element type. */
static void clamp_bound(mctx *m, const char *name, const uint8_t *raw, tosac_dtype dt)
{
    const char *e = elem_type(dt);
    int64_t v = 0;
    switch (dt) {
    case TOSAC_DT_I8: v = (int8_t)raw[0]; break;
    case TOSAC_DT_I16: { int16_t x; memcpy(&x, raw, 2); v = x; break; }
    case TOSAC_DT_I32: { int32_t x; memcpy(&x, raw, 4); v = x; break; }
    case TOSAC_DT_F16:
    case TOSAC_DT_BF16: { uint16_t x; memcpy(&x, raw, 2); put(m->b, "%s = 0x%04X : %s", name, x, e); return; }
    case TOSAC_DT_F32: { uint32_t x; memcpy(&x, raw, 4); put(m->b, "%s = 0x%08" PRIX32 " : %s", name, x, e); return; }
    default: { int64_t x; memcpy(&x, raw, 8); v = x; break; }
    }
    put(m->b, "%s = %" PRId64 " : %s", name, v, e ? e : "i64");
}

static void attributes(mctx *m, const tosa_block *blk, const tosa_operator *o)
{
    int n = 0;
    const tosa_attr_field *f = tosa_attr_fields(o->op, &n);
    const tosa_attr *a = &o->attr;
    int written = 0;
    for (int i = 0; i < n; i++) {
        const char *sep = written ? ", " : "";
        switch (f[i].kind) {
        case TOSA_AK_VEC: {
            const int32_t *v = (const int32_t *)((const char *)a + f[i].off);
            int cnt = *(const int *)((const char *)a + f[i].n_off);
            put(m->b, "%s%s = array<%s", sep, f[i].name,
                o->op == TOSA_OP_TRANSPOSE ? "i32" : "i64");
            for (int k = 0; k < cnt; k++)
                put(m->b, "%s %" PRId32, k ? "," : ":", v[k]);
            put(m->b, ">");
            break;
        }
        case TOSA_AK_I32: put(m->b, "%s%s = %" PRId64 " : i32", sep, f[i].name, tosa_attr_get_int(a, &f[i])); break;
        case TOSA_AK_BOOL: put(m->b, "%s%s = %s", sep, f[i].name, tosa_attr_get_int(a, &f[i]) ? "true" : "false"); break;
        case TOSA_AK_NAN: put(m->b, "%s%s = #tosa.nan_mode<%s>", sep, f[i].name, nan_name(a->nan_mode)); break;
        case TOSA_AK_ROUND: put(m->b, "%s%s = #tosa.rounding_mode<%s>", sep, f[i].name, round_name(a->rounding_mode)); break;
        case TOSA_AK_RESIZE: put(m->b, "%s%s = #tosa.resize_mode<%s>", sep, f[i].name, a->mode == TOSA_RESIZE_BILINEAR ? "BILINEAR" : "NEAREST_NEIGHBOR"); break;
        case TOSA_AK_DTYPE: put(m->b, "%s%s = %s", sep, f[i].name, elem_type(a->acc_type) ? elem_type(a->acc_type) : "i32"); break;
        case TOSA_AK_RAW8: {
            tosac_dtype dt = o->n_inputs > 0 ? blk->tensors[o->inputs[0]].dtype : TOSAC_DT_I8;
            put(m->b, "%s", sep);
            clamp_bound(m, f[i].name, strcmp(f[i].name, "min_val") == 0 ? a->min_val : a->max_val, dt);
            break;
        }
        default: continue; /* block names (regions), CUSTOM strings: not attributes here */
        }
        written++;
    }
}

static bool emit_block(mctx *m, const tosa_block *blk, const tosa_block *caller, int depth,
                       bool is_func, const char *func_name);

/* The operand list "(%a, %b)" with types "(t, t) -> t". */
static bool operands(mctx *m, const tosa_block *blk, int depth, const tosa_operator *o)
{
    put(m->b, "(");
    for (int k = 0; k < o->n_inputs; k++) {
        if (k)
            put(m->b, ", ");
        value_name(m, depth, o->inputs[k]);
    }
    put(m->b, ")");
    (void)blk;
    return true;
}

static bool signature(mctx *m, const tosa_block *blk, const tosa_operator *o)
{
    put(m->b, " : (");
    for (int k = 0; k < o->n_inputs; k++) {
        if (k)
            put(m->b, ", ");
        if (!type_of(m, &blk->tensors[o->inputs[k]]))
            return false;
    }
    put(m->b, ") -> ");
    if (o->n_outputs != 1)
        put(m->b, "(");
    for (int k = 0; k < o->n_outputs; k++) {
        if (k)
            put(m->b, ", ");
        if (!type_of(m, &blk->tensors[o->outputs[k]]))
            return false;
    }
    if (o->n_outputs != 1)
        put(m->b, ")");
    put(m->b, "\n");
    return true;
}

static void indent(mctx *m, int depth) { put(m->b, "%*s", 4 + 4 * depth, ""); }

static bool emit_region(mctx *m, const tosa_block *caller, int depth, const char *name)
{
    const tosa_block *sub = name ? tosa_graph_find_block(m->g, name) : NULL;
    if (!sub)
        return tosac_fail(m->err, TOSAC_ERR_INPUT, "block '%s' is missing", name ? name : ""), false;
    if (depth + 1 > 64)
        return tosac_fail(m->err, TOSAC_ERR_INPUT, "control flow nested too deeply"), false;
    put(m->b, "{\n");
    if (!emit_block(m, sub, caller, depth + 1, false, NULL))
        return false;
    indent(m, depth);
    put(m->b, "}");
    return true;
}

static bool emit_op(mctx *m, const tosa_block *blk, int depth, const tosa_operator *o)
{
    char lower[48];
    const char *nm = tosa_op_name(o->op);
    if (!nm || o->op > TOSA_OP_LAST_1_0 || o->op == TOSA_OP_CUSTOM || o->op == TOSA_OP_VARIABLE ||
        o->op == TOSA_OP_VARIABLE_READ || o->op == TOSA_OP_VARIABLE_WRITE)
        return tosac_fail(m->err, TOSAC_ERR_UNSUPPORTED, "%s is not written as MLIR (TOSA 1.0 "
                          "operators without state only)", nm ? nm : "an unknown operator"), false;
    size_t i = 0;
    for (; nm[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)(nm[i] >= 'A' && nm[i] <= 'Z' ? nm[i] - 'A' + 'a' : nm[i]);
    lower[i] = 0;
    indent(m, depth);
    if (o->n_outputs == 1) {
        value_name(m, depth, o->outputs[0]);
        put(m->b, " = ");
    } else if (o->n_outputs > 1) {
        put(m->b, "%%r%d_%d:%d = ", depth, o->outputs[0], o->n_outputs);
    }
    if (o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE) {
        const tosa_tensor *t = &blk->tensors[o->outputs[0]];
        put(m->b, "\"tosa.%s\"() <{values = ", lower);
        if (!dense_of(m, t))
            return false;
        put(m->b, "}> : () -> ");
        if (!type_of(m, t))
            return false;
        put(m->b, "\n");
        return true;
    }
    put(m->b, "\"tosa.%s\"", lower);
    operands(m, blk, depth, o);
    int n_attr = 0;
    tosa_attr_fields(o->op, &n_attr);
    bool has_attr = false;
    for (int k = 0; k < n_attr; k++) {
        tosa_attr_kind kd = tosa_attr_fields(o->op, &n_attr)[k].kind;
        has_attr = has_attr || (kd != TOSA_AK_STR && kd != TOSA_AK_BYTES && kd != TOSA_AK_BLOCK);
    }
    if (has_attr) {
        put(m->b, " <{");
        attributes(m, blk, o);
        put(m->b, "}>");
    }
    if (o->op == TOSA_OP_COND_IF || o->op == TOSA_OP_WHILE_LOOP) {
        bool cond = o->op == TOSA_OP_COND_IF;
        put(m->b, " (");
        if (!emit_region(m, blk, depth, cond ? o->attr.then_graph : o->attr.cond_graph))
            return false;
        put(m->b, ", ");
        if (!emit_region(m, blk, depth, cond ? o->attr.else_graph : o->attr.body_graph))
            return false;
        put(m->b, ")");
    }
    if (!signature(m, blk, o))
        return false;
    if (o->n_outputs > 1) /* name each result as its tensor */
        for (int k = 0; k < o->n_outputs; k++) {
            indent(m, depth);
            value_name(m, depth, o->outputs[k]);
            put(m->b, " = \"tosa.identity\"(%%r%d_%d#%d) : (", depth, o->outputs[0], k);
            type_of(m, &blk->tensors[o->outputs[k]]);
            put(m->b, ") -> ");
            type_of(m, &blk->tensors[o->outputs[k]]);
            put(m->b, "\n");
        }
    return true;
}

/* "%v_a: type, %v_b: type": the block's inputs as arguments (of a func or a region). */
static bool block_args(mctx *m, const tosa_block *blk, int depth)
{
    for (int i = 0; i < blk->n_inputs; i++) {
        if (i)
            put(m->b, ", ");
        value_name(m, depth, blk->inputs[i]);
        put(m->b, ": ");
        if (!type_of(m, &blk->tensors[blk->inputs[i]]))
            return false;
    }
    return true;
}

/* A block: a func (the main block) or a region body; outer references become the caller's
 * values, which MLIR regions may use directly. */
static bool emit_block(mctx *m, const tosa_block *blk, const tosa_block *caller, int depth,
                       bool is_func, const char *func_name)
{
    /* outer references: alias the caller's value (identity, so the name is local) */
    if (is_func) {
        put(m->b, "  func.func @%s(", func_name);
        if (!block_args(m, blk, depth))
            return false;
        put(m->b, ") -> (");
        for (int i = 0; i < blk->n_outputs; i++) {
            if (i)
                put(m->b, ", ");
            if (!type_of(m, &blk->tensors[blk->outputs[i]]))
                return false;
        }
        put(m->b, ") {\n");
    } else {
        indent(m, depth - 1);
        put(m->b, "^bb0(");
        if (!block_args(m, blk, depth))
            return false;
        put(m->b, "):\n");
        for (int t = 0; t < blk->n_tensors; t++) {
            if (!blk->tensors[t].outer_ref)
                continue;
            int ct = caller ? tosa_block_find_tensor(caller, blk->tensors[t].name) : -1;
            if (ct < 0)
                return tosac_fail(m->err, TOSAC_ERR_INPUT, "block '%s': '%s' is not a tensor of "
                                  "its caller", blk->name, blk->tensors[t].name), false;
            indent(m, depth);
            value_name(m, depth, t);
            put(m->b, " = \"tosa.identity\"(");
            value_name(m, depth - 1, ct);
            put(m->b, ") : (");
            type_of(m, &blk->tensors[t]);
            put(m->b, ") -> ");
            type_of(m, &blk->tensors[t]);
            put(m->b, "\n");
        }
    }
    /* constants that no CONST operator produces (declared with data) */
    for (int t = 0; t < blk->n_tensors; t++) {
        const tosa_tensor *tt = &blk->tensors[t];
        if (!tt->data || tt->outer_ref || tt->variable)
            continue;
        bool produced = false;
        for (int i = 0; i < blk->n_ops && !produced; i++)
            for (int k = 0; k < blk->ops[i].n_outputs; k++)
                produced = produced || blk->ops[i].outputs[k] == t;
        bool input = false;
        for (int i = 0; i < blk->n_inputs; i++)
            input = input || blk->inputs[i] == t;
        if (produced || input)
            continue;
        indent(m, depth);
        value_name(m, depth, t);
        put(m->b, " = \"tosa.%s\"() <{values = ", tt->dtype == TOSAC_DT_SHAPE ? "const_shape" : "const");
        if (!dense_of(m, tt))
            return false;
        put(m->b, "}> : () -> ");
        if (!type_of(m, tt))
            return false;
        put(m->b, "\n");
    }
    /* MLIR needs every value defined before its use; a .tosa block may list a CONST after its
     * reader. Constants first, then the operators in file order as their inputs are ready. */
    unsigned char *ready = calloc((size_t)blk->n_tensors + 1, 1);
    unsigned char *done = calloc((size_t)blk->n_ops + 1, 1);
    if (!ready || !done) {
        free(ready);
        free(done);
        return tosac_fail(m->err, TOSAC_ERR_INTERNAL, "out of memory writing MLIR"), false;
    }
    for (int t = 0; t < blk->n_tensors; t++)
        ready[t] = blk->tensors[t].outer_ref || blk->tensors[t].data != NULL;
    for (int i = 0; i < blk->n_inputs; i++)
        ready[blk->inputs[i]] = 1;
    bool ok = true;
    for (int pass = 0, left = blk->n_ops; ok && left > 0; pass++) {
        int before = left;
        for (int i = 0; ok && i < blk->n_ops; i++) {
            const tosa_operator *o = &blk->ops[i];
            bool konst = o->op == TOSA_OP_CONST || o->op == TOSA_OP_CONST_SHAPE;
            if (done[i] || (pass == 0 && !konst))
                continue;
            bool go = true;
            for (int k = 0; k < o->n_inputs && go; k++)
                go = ready[o->inputs[k]];
            if (!go)
                continue;
            ok = emit_op(m, blk, depth, o);
            done[i] = 1;
            left--;
            for (int k = 0; k < o->n_outputs; k++)
                ready[o->outputs[k]] = 1;
        }
        if (ok && pass > 0 && left == before) {
            tosac_fail(m->err, TOSAC_ERR_INPUT, "block '%s': an operator reads a tensor "
                       "nothing produces (or the operators form a cycle)", blk->name);
            ok = false;
        }
    }
    free(ready);
    free(done);
    if (!ok)
        return false;
    indent(m, depth);
    put(m->b, is_func ? "func.return" : "\"tosa.yield\"");
    if (!is_func)
        put(m->b, "(");
    for (int i = 0; i < blk->n_outputs; i++) {
        put(m->b, "%s", i ? ", " : is_func ? " " : "");
        value_name(m, depth, blk->outputs[i]);
    }
    if (!is_func)
        put(m->b, ")");
    if (blk->n_outputs || !is_func)
        put(m->b, " : %s", is_func ? "" : "(");
    for (int i = 0; i < blk->n_outputs; i++) {
        if (i)
            put(m->b, ", ");
        if (!type_of(m, &blk->tensors[blk->outputs[i]]))
            return false;
    }
    if (!is_func)
        put(m->b, ") -> ()");
    put(m->b, "\n");
    if (is_func)
        put(m->b, "  }\n");
    return true;
}

tosac_code tosa_graphs_to_mlir(const tosa_graph *const *graphs, const char *const *names, int n,
                               char **text, size_t *len, tosac_error *err)
{
    mbuf b = {0};
    *text = NULL;
    put(&b, "module {\n");
    for (int i = 0; i < n; i++) {
        mctx m = {&b, graphs[i], err, 0};
        const tosa_block *main = tosa_graph_main_block(graphs[i]);
        if (!main) {
            free(b.s);
            return tosac_fail(err, TOSAC_ERR_INPUT, "graph %d has no main block", i);
        }
        if (!emit_block(&m, main, NULL, 0, true, names[i])) {
            free(b.s);
            return err && err->code ? err->code : TOSAC_ERR_INTERNAL;
        }
    }
    put(&b, "}\n");
    if (b.oom) {
        free(b.s);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory writing MLIR");
    }
    *text = b.s;
    if (len)
        *len = b.len;
    return TOSAC_OK;
}
