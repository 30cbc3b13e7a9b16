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

static const char *name_of(const ir_node *n)
{
    return n->name ? n->name : "";
}

typedef struct fate {
    int shown;      /* the live node whose placement the model node gets, or -1 (folded) */
    bool renamed;   /* some live node of this origin has another op_type */
} fate;

/* The model node's own node (same op_type) decides when it survived; otherwise (decomposed)
 * the first of its nodes on the CPU, else the first delegated one. */
static fate fate_of(const ir_graph *g, const partition_plan *plan, const char *name,
                    const char *op_type, unsigned char *claimed)
{
    fate f = {-1, false};
    int self = -1, cpu = -1, dlg = -1;
    for (int k = 0; k < g->n_nodes && k < plan->n_nodes; k++) {
        const ir_node *n = &g->nodes[k];
        if (n->dead || strcmp(name_of(n), name) != 0)
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
                        const char *name)
{
    tosac_json_key(w, "parts");
    tosac_json_begin_array(w);
    for (int k = 0; k < g->n_nodes && k < plan->n_nodes; k++) {
        if (g->nodes[k].dead || strcmp(name_of(&g->nodes[k]), name) != 0)
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
                        const char *name, const char *op_type, const fate *f, bool from_pass)
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
        write_parts(w, g, plan, name);
    tosac_json_end_object(w);
}

char *compile_report(const tosa_spec *spec, const compile_orig_node *orig, int n_orig,
                     const ir_graph *g, const partition_plan *plan, int body_delegates)
{
    tosac_json_writer w;
    tosac_json_writer_init(&w, true);
    char spec_s[128];
    tosa_spec_to_string(spec, spec_s, sizeof spec_s);
    unsigned char *claimed = calloc((size_t)g->n_nodes + 1, 1);
    if (!claimed)
        return NULL;
    tosac_json_begin_object(&w);
    tosac_json_key(&w, "spec");
    tosac_json_write_string(&w, spec_s);
    tosac_json_key(&w, "delegates");
    tosac_json_write_int(&w, plan->n_parts);
    tosac_json_key(&w, "body_delegates");
    tosac_json_write_int(&w, body_delegates);
    tosac_json_key(&w, "nodes");
    tosac_json_begin_array(&w);
    for (int i = 0; i < n_orig; i++) {
        fate f = fate_of(g, plan, orig[i].name, orig[i].op_type, claimed);
        write_entry(&w, g, plan, orig[i].name, orig[i].op_type, &f, false);
    }
    for (int k = 0; k < g->n_nodes && k < plan->n_nodes; k++) {
        if (g->nodes[k].dead || claimed[k])
            continue;
        fate f = {k, false};
        write_entry(&w, g, plan, name_of(&g->nodes[k]), g->nodes[k].op_type, &f, true);
    }
    free(claimed);
    tosac_json_end_array(&w);
    tosac_json_end_object(&w);
    size_t len;
    return tosac_json_writer_take(&w, &len);
}
