/* The partition report: every node of the model as it was imported, with where it went.
 *
 * The passes replace nodes (Div -> Reciprocal + Mul, Sum -> Add chain, DQ -> Q -> a requant
 * Identity, int64 Casts around CPU nodes, ...). Every node a pass creates carries the name of
 * the model node it came from (its origin), so a model node's fate is that of the live nodes
 * bearing its name: its own node's placement when it survived, else (decomposed) on the CPU
 * if any of its nodes is, with that node's reason, else in the delegate of the first, else
 * folded away; "parts" lists each pass-made node's placement. Live nodes no model node
 * accounts for are listed after the model's, marked "origin": "pass", so nothing placed is
 * ever invisible. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile_json.h"
#include "tosac/compile.h"
#include "util/hash.h"

static const char *name_of(const ir_node *n)
{
    return n->name ? n->name : "";
}

/* The items (k < n) of each name in increasing order: a hash of names to the first one and a
 * chain to the next (a scan of every node per model node made the report quadratic). The
 * items are the graph's nodes, or the model's QuantizeLinear outputs (write_quantized). */
typedef struct by_name {
    const char *(*name)(const void *items, int k); /* never NULL */
    const void *items;
    int *slot, *next; /* slot: first item + 1, 0 empty */
    size_t cap;
} by_name;

static const char *node_name(const void *g, int k)
{
    return name_of(&((const ir_graph *)g)->nodes[k]);
}

static bool by_name_init(by_name *b, const char *(*name)(const void *, int), const void *items,
                         int n)
{
    b->name = name;
    b->items = items;
    b->cap = 64;
    while (b->cap < (size_t)n * 2 + 2)
        b->cap *= 2;
    b->slot = calloc(b->cap, sizeof *b->slot);
    b->next = malloc(((size_t)n + 1) * sizeof *b->next);
    if (!b->slot || !b->next)
        return false;
    for (int k = n - 1; k >= 0; k--) { /* from the end: each new first is the smallest */
        const char *nm = name(items, k);
        size_t h = tosac_hash_str(nm) & (b->cap - 1);
        while (b->slot[h] && strcmp(name(items, b->slot[h] - 1), nm) != 0)
            h = (h + 1) & (b->cap - 1);
        b->next[k] = b->slot[h] - 1;
        b->slot[h] = k + 1;
    }
    return true;
}

static void by_name_free(by_name *b)
{
    free(b->slot);
    free(b->next);
}

/* The first item named name, -1 if none; then b->next[k] until -1. */
static int by_name_first(const by_name *b, const char *name)
{
    for (size_t h = tosac_hash_str(name) & (b->cap - 1); b->slot[h]; h = (h + 1) & (b->cap - 1))
        if (strcmp(b->name(b->items, b->slot[h] - 1), name) == 0)
            return b->slot[h] - 1;
    return -1;
}

typedef struct fate {
    int shown;      /* the live node whose placement the model node gets, or -1 (folded) */
    bool renamed;   /* some live node of this origin has another op_type */
} fate;

/* The model node's own node (same op_type) decides when it survived; otherwise (decomposed)
 * the first of its nodes on the CPU, else the first delegated one. */
static fate fate_of(const ir_graph *g, const partition_plan *plan, const by_name *bn,
                    const char *name, const char *op_type, unsigned char *claimed)
{
    fate f = {-1, false};
    int self = -1, cpu = -1, dlg = -1;
    for (int k = by_name_first(bn, name); k >= 0; k = bn->next[k]) {
        const ir_node *n = &g->nodes[k];
        if (n->dead)
            continue;
        claimed[k] = 1;
        f.renamed |= n->op_type != op_type;
        if (n->op_type == op_type && self < 0)
            self = k;
        if (plan->part[k] < 0 && cpu < 0)
            cpu = k;
        if (plan->part[k] >= 0 && dlg < 0)
            dlg = k;
    }
    f.shown = self >= 0 ? self : cpu >= 0 ? cpu : dlg;
    return f;
}

/* as_op: the model node's op type, which replaces the leading op type of a reason written
 * for a pass-made part of it ("Reciprocal: float32 ..." of a Div reads "Div: float32 ..."). */
static void write_placement(tosac_json_writer *w, const ir_graph *g, const partition_plan *plan,
                            int k, const char *as_op)
{
    tosac_json_key(w, "placement");
    if (plan->part[k] >= 0) {
        tosac_json_write_string(w, "delegate");
        tosac_json_key(w, "delegate");
        tosac_json_write_int(w, plan->part[k]);
        return;
    }
    tosac_json_write_string(w, "cpu");
    tosac_json_key(w, "category");
    tosac_json_write_string(w, plan->category[k] ? plan->category[k] : PARTITION_RULE);
    tosac_json_key(w, "reason");
    const char *why = plan->reason[k] ? plan->reason[k] : "";
    size_t n = strlen(g->nodes[k].op_type);
    if (as_op && strcmp(as_op, g->nodes[k].op_type) != 0 &&
        strncmp(why, g->nodes[k].op_type, n) == 0 && why[n] == ':') {
        char buf[640];
        snprintf(buf, sizeof buf, "%s%s", as_op, why + n);
        tosac_json_write_string(w, buf);
    } else {
        tosac_json_write_string(w, why);
    }
}

/* What the passes made of a model node, each with its own placement
 * ("parts": [{"op_type": "Reciprocal", "placement": "cpu", ...}, {"op_type": "Mul", ...}]). */
static void write_parts(tosac_json_writer *w, const ir_graph *g, const partition_plan *plan,
                        const by_name *bn, const char *name)
{
    tosac_json_key(w, "parts");
    tosac_json_begin_array(w);
    for (int k = by_name_first(bn, name); k >= 0; k = bn->next[k]) {
        if (g->nodes[k].dead)
            continue;
        tosac_json_begin_object(w);
        tosac_json_key(w, "op_type");
        tosac_json_write_string(w, g->nodes[k].op_type);
        write_placement(w, g, plan, k, NULL);
        tosac_json_end_object(w);
    }
    tosac_json_end_array(w);
}

static void write_entry(tosac_json_writer *w, const ir_graph *g, const partition_plan *plan,
                        const by_name *bn, const char *name, const char *op_type, const fate *f,
                        bool from_pass)
{
    tosac_json_begin_object(w);
    tosac_json_key(w, "name");
    tosac_json_write_string(w, name);
    tosac_json_key(w, "op_type");
    tosac_json_write_string(w, op_type);
    if (from_pass) {
        tosac_json_key(w, "origin");
        tosac_json_write_string(w, "pass");
    }
    if (f->shown >= 0) {
        write_placement(w, g, plan, f->shown, op_type);
    } else {
        tosac_json_key(w, "placement");
        tosac_json_write_string(w, "folded");
        tosac_json_key(w, "reason");
        tosac_json_write_string(w, "removed by the passes (folded into constants or "
                                   "quantization parameters)");
    }
    if (f->renamed)
        write_parts(w, g, plan, bn, name);
    tosac_json_end_object(w);
}

static void write_quant_entry(tosac_json_writer *w, const ir_tensor *t, const char *name,
                              const char *fname, bool alias)
{
    const ir_quant *q = t->quant;
    tosac_json_begin_object(w);
    tosac_json_key(w, "name");
    tosac_json_write_string(w, name);
    tosac_json_key(w, "float");
    tosac_json_write_string(w, fname);
    if (alias) {
        tosac_json_key(w, "alias");
        tosac_json_write_bool(w, true);
    }
    tosac_json_key(w, "scale");
    tosac_json_write_double(w, q->scale[0]);
    tosac_json_key(w, "zero_point");
    tosac_json_write_int(w, q->zero_point[0]);
    tosac_json_key(w, "shape"); /* the ONNX layout (a delegate may hold it transposed) */
    tosac_json_begin_array(w);
    for (int d = 0; d < t->rank; d++)
        tosac_json_write_int(w, t->shape[d]);
    tosac_json_end_array(w);
    tosac_json_end_object(w);
}

static bool per_tensor_int(const ir_tensor *t)
{
    return t->quant && t->quant->axis < 0 && t->quant->n == 1 && tosac_dtype_is_int(t->dtype);
}

/* The model's quantized activations: what `tosac run --dump-intermediates` dequantizes. A
 * Relu/Clip folded after an op (pass_fold_qdq) leaves the op's result quantized at the
 * activation's parameters: listed as an alias of the activation's value, which it equals when
 * the lowering drops the CLAMP as a no-op (its bounds the whole integer range). */
static const char *q_int_name(const void *orig, int i)
{
    const char *q = ((const compile_orig_node *)orig)[i].q_int;
    return q ? q : "";
}

/* false when out of memory */
static bool write_quantized(tosac_json_writer *w, const compile_orig_node *orig, int n_orig,
                            const ir_graph *g)
{
    by_name bq = {0};
    if (!by_name_init(&bq, q_int_name, orig, n_orig)) {
        by_name_free(&bq);
        return false;
    }
    tosac_json_key(w, "quantized_tensors");
    tosac_json_begin_array(w);
    for (int i = 0; i < n_orig; i++) {
        int t = orig[i].q_int ? ir_graph_find_tensor(g, orig[i].q_int) : -1;
        if (t >= 0 && per_tensor_int(&g->tensors[t]))
            write_quant_entry(w, &g->tensors[t], orig[i].q_int, orig[i].q_float, false);
    }
    for (int k = 0; k < g->n_nodes; k++) {
        const ir_node *n = &g->nodes[k];
        if (n->dead || !(ir_node_is(n, "Relu") || ir_node_is(n, "Clip")) || n->n_inputs < 1 ||
            n->n_outputs < 1 || n->inputs[0] < 0 || n->outputs[0] < 0)
            continue;
        const ir_tensor *x = &g->tensors[n->inputs[0]], *y = &g->tensors[n->outputs[0]];
        if (!per_tensor_int(x) || !per_tensor_int(y))
            continue;
        for (int i = by_name_first(&bq, y->name); i >= 0; i = bq.next[i])
            if (orig[i].q_int)
                write_quant_entry(w, x, x->name, orig[i].q_float, true);
    }
    tosac_json_end_array(w);
    by_name_free(&bq);
    return true;
}

char *compile_report(const tosa_spec *spec, const compile_orig_node *orig, int n_orig,
                     const ir_graph *g, const partition_plan *plan, int body_delegates)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    char spec_s[128];
    tosa_spec_to_string(spec, spec_s, sizeof spec_s);
    unsigned char *claimed = calloc((size_t)g->n_nodes + 1, 1);
    by_name bn = {0};
    if (!claimed || !by_name_init(&bn, node_name, g, g->n_nodes < plan->n_nodes ? g->n_nodes
                                                                       : plan->n_nodes)) {
        free(claimed);
        by_name_free(&bn);
        return NULL;
    }
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "schema_version"); /* docs/REPORT.md */
    tosac_json_write_int(&w, TOSAC_REPORT_SCHEMA_VERSION);
    tosac_json_key(&w, "spec");
    tosac_json_write_string(&w, spec_s);
    tosac_json_key(&w, "n_delegates");
    tosac_json_write_int(&w, plan->n_parts);
    tosac_json_key(&w, "body_delegates");
    tosac_json_write_int(&w, body_delegates);
    tosac_json_key(&w, "nodes");
    tosac_json_begin_array(&w);
    for (int i = 0; i < n_orig; i++) {
        fate f = fate_of(g, plan, &bn, orig[i].name, orig[i].op_type, claimed);
        write_entry(&w, g, plan, &bn, orig[i].name, orig[i].op_type, &f, false);
    }
    for (int k = 0; k < g->n_nodes && k < plan->n_nodes; k++) {
        if (g->nodes[k].dead || claimed[k])
            continue;
        fate f = {k, false};
        write_entry(&w, g, plan, &bn, name_of(&g->nodes[k]), g->nodes[k].op_type, &f, true);
    }
    free(claimed);
    by_name_free(&bn);
    tosac_json_end_array(&w);
    bool ok = write_quantized(&w, orig, n_orig, g);
    tosac_json_end_object(&w);
    size_t len;
    char *json = tosac_json_writer_take(&w, &len);
    if (!ok) {
        free(json);
        return NULL;
    }
    return json;
}
