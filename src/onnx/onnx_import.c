/* ModelProto -> ir_model. Every field used is checked: the bytes are untrusted. */
#include "onnx_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

typedef struct importer {
    const char *base_dir;
    tosac_error *err;
} importer;

static tosac_code import_graph(importer *im, const Onnx__GraphProto *gp, ir_graph *g);

static tosac_code fail_code(tosac_error *err)
{
    return err && err->code ? err->code : TOSAC_ERR_INPUT;
}

/* ---- types ---- */

/* Merges a declared TypeProto into tensor id; a contradiction with what is known is an error. */
static tosac_code apply_type(ir_graph *g, int id, const Onnx__TypeProto *tp, const char *what,
                             tosac_error *err)
{
    if (!tp)
        return TOSAC_OK;
    ir_tensor *t = &g->tensors[id];
    /* An empty TypeProto says nothing (spox writes one for If branch outputs); a sequence,
     * map or optional type is a field our onnx.proto does not know, kept as unknown. */
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET && tp->base.n_unknown_fields == 0)
        return TOSAC_OK;
    if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s '%s' is not a dense tensor", what,
                          t->name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (tt->has_elem_type && tt->elem_type != 0) {
        tosac_dtype dt = onnx_dtype_to_tosac(tt->elem_type);
        if (dt == TOSAC_DT_UNKNOWN)
            return tosac_fail(err,
                              tt->elem_type > 0 && tt->elem_type <= 23 ? TOSAC_ERR_UNSUPPORTED
                                                                       : TOSAC_ERR_INPUT,
                              "%s '%s': data type %s is not supported", what, t->name,
                              onnx_dtype_name(tt->elem_type));
        if (t->dtype != TOSAC_DT_UNKNOWN && t->dtype != dt)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s '%s' is declared %s but is %s", what,
                              t->name, onnx_dtype_name(tt->elem_type), tosac_dtype_name(t->dtype));
        t->dtype = dt;
    }
    if (!tt->shape)
        return TOSAC_OK;
    const Onnx__TensorShapeProto *sp = tt->shape;
    if (sp->n_dim > TOSAC_MAX_RANK)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s '%s': rank %zu is more than %d", what,
                          t->name, sp->n_dim, TOSAC_MAX_RANK);
    int rank = (int)sp->n_dim;
    if (t->rank >= 0 && t->rank != rank)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "%s '%s': inconsistent shapes (rank %d declared, %d known)", what,
                          t->name, rank, t->rank);
    int64_t shape[TOSAC_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = sp->dim[d];
        int64_t v = -1, known = t->rank >= 0 ? t->shape[d] : -1;
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            v = dim->dim_value;
            if (v < 0 || v > IR_SHAPE_LIMIT)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s '%s': dimension %d is %lld", what,
                                  t->name, d, (long long)v);
        }
        if (known >= 0 && v >= 0 && known != v)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "%s '%s': inconsistent shapes (dimension %d is %lld and %lld)", what,
                              t->name, d, (long long)v, (long long)known);
        shape[d] = known >= 0 ? known : v;
    }
    t->rank = rank;
    for (int d = 0; d < rank; d++) {
        g->tensors[id].shape[d] = shape[d];
        const Onnx__TensorShapeProto__Dimension *dim = sp->dim[d];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
            dim->dim_param && dim->dim_param[0] && !g->tensors[id].dim_param[d] &&
            ir_tensor_set_dim_param(g, id, d, dim->dim_param, err))
            return fail_code(err);
    }
    return TOSAC_OK;
}

/* ---- constants ---- */

static tosac_code add_initializer(ir_graph *g, tosac_tensor *t, const char *name,
                                  tosac_error *err)
{
    if (ir_graph_find_tensor(g, name) >= 0) {
        tosac_tensor_free(t);
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': initializer '%s' appears twice",
                          g->name, name);
    }
    int id = ir_graph_add_const_owned(g, name, t->dtype, t->rank, t->shape, t->data, t->nbytes,
                                      err);
    t->data = NULL;
    t->owns_data = 0;
    return id < 0 ? fail_code(err) : TOSAC_OK;
}

static tosac_code import_initializers(importer *im, const Onnx__GraphProto *gp, ir_graph *g)
{
    char what[300];
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp->name || !tp->name[0])
            return tosac_fail(im->err, TOSAC_ERR_INPUT, "graph '%s': initializer %zu has no name",
                              g->name, i);
        snprintf(what, sizeof what, "initializer '%s'", tp->name);
        tosac_tensor t;
        if (onnx_tensor_from_proto(tp, im->base_dir, what, &t, im->err) ||
            add_initializer(g, &t, tp->name, im->err))
            return fail_code(im->err);
    }
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        const char *name = sp->values ? sp->values->name : NULL;
        if (!name || !name[0])
            return tosac_fail(im->err, TOSAC_ERR_INPUT,
                              "graph '%s': sparse initializer %zu has no name", g->name, i);
        snprintf(what, sizeof what, "sparse initializer '%s'", name);
        tosac_tensor t;
        if (onnx_tensor_from_sparse(sp, im->base_dir, what, &t, im->err) ||
            add_initializer(g, &t, name, im->err))
            return fail_code(im->err);
    }
    return TOSAC_OK;
}

/* ---- attributes ---- */

static char *bytes_to_str(const ProtobufCBinaryData *b)
{
    char *s = malloc(b->len + 1);
    if (s) {
        if (b->len)
            memcpy(s, b->data, b->len);
        s[b->len] = '\0';
    }
    return s;
}

static tosac_code import_subgraph(importer *im, ir_graph *g, const Onnx__GraphProto *gp,
                                  ir_graph **out)
{
    *out = ir_graph_new(gp->name ? gp->name : "", g);
    if (!*out)
        return tosac_fail(im->err, TOSAC_ERR_INTERNAL, "out of memory");
    if (import_graph(im, gp, *out)) {
        ir_graph_free(*out);
        *out = NULL;
        return fail_code(im->err);
    }
    return TOSAC_OK;
}

static tosac_code import_list_attr(importer *im, ir_graph *g, int node,
                                   const Onnx__AttributeProto *ap, const char *where)
{
    tosac_error *err = im->err;
    const char *name = ap->name;
    tosac_code rc = TOSAC_OK;
    switch (ap->type) {
    case IR_ATTR_FLOATS:
        if (ap->n_floats > INT_MAX)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: too many values", where);
        return ir_node_set_floats(g, node, name, ap->floats, (int)ap->n_floats, err);
    case IR_ATTR_INTS:
        if (ap->n_ints > INT_MAX)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: too many values", where);
        return ir_node_set_ints(g, node, name, ap->ints, (int)ap->n_ints, err);
    case IR_ATTR_STRINGS: {
        if (ap->n_strings > INT_MAX)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: too many values", where);
        char **v = calloc(ap->n_strings + 1, sizeof *v);
        if (!v)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        for (size_t i = 0; i < ap->n_strings && !rc; i++)
            if (!(v[i] = bytes_to_str(&ap->strings[i])))
                rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        if (!rc)
            rc = ir_node_set_strings(g, node, name, (const char *const *)v, (int)ap->n_strings,
                                     err);
        for (size_t i = 0; i < ap->n_strings; i++)
            free(v[i]);
        free(v);
        return rc;
    }
    case IR_ATTR_TENSORS: {
        if (ap->n_tensors > INT_MAX)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: too many values", where);
        tosac_tensor *ts = calloc(ap->n_tensors + 1, sizeof *ts);
        if (!ts)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        size_t done = 0;
        for (; done < ap->n_tensors && !rc; done++)
            rc = onnx_tensor_from_proto(ap->tensors[done], im->base_dir, where, &ts[done], err);
        if (!rc)
            rc = ir_node_set_tensors(g, node, name, ts, (int)ap->n_tensors, err);
        else
            for (size_t i = 0; i < done; i++)
                tosac_tensor_free(&ts[i]);
        free(ts);
        return rc;
    }
    case IR_ATTR_GRAPHS: {
        if (ap->n_graphs > INT_MAX)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s: too many values", where);
        ir_graph **subs = calloc(ap->n_graphs + 1, sizeof *subs);
        if (!subs)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        size_t done = 0;
        for (; done < ap->n_graphs && !rc; done++)
            rc = import_subgraph(im, g, ap->graphs[done], &subs[done]);
        if (!rc)
            rc = ir_node_set_graphs(g, node, name, subs, (int)ap->n_graphs, err);
        else
            for (size_t i = 0; i < done; i++)
                ir_graph_free(subs[i]);
        free(subs);
        return rc;
    }
    default:
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "%s: attribute type %d is not supported",
                          where, (int)ap->type);
    }
}

static tosac_code import_attr(importer *im, ir_graph *g, int node, const Onnx__AttributeProto *ap)
{
    tosac_error *err = im->err;
    char desc[160], where[400];
    ir_node_desc(g, node, desc, sizeof desc);
    if (!ap->name || !ap->name[0])
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s: attribute without a name", desc);
    snprintf(where, sizeof where, "%s: attribute '%s'", desc, ap->name);
    if (ap->ref_attr_name && ap->ref_attr_name[0])
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "%s refers to a function attribute, which is not supported", where);
    if (ir_node_attr(&g->nodes[node], ap->name))
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s appears twice", where);
    if (!ap->has_type || ap->type == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s has no type", where);
    tosac_code rc;
    switch (ap->type) {
    case IR_ATTR_FLOAT: return ir_node_set_float(g, node, ap->name, ap->f, err);
    case IR_ATTR_INT: return ir_node_set_int(g, node, ap->name, ap->i, err);
    case IR_ATTR_STRING: {
        char *s = bytes_to_str(&ap->s);
        if (!s)
            return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
        rc = ir_node_set_string(g, node, ap->name, s, err);
        free(s);
        return rc;
    }
    case IR_ATTR_TENSOR:
    case 11: { /* SPARSE_TENSOR: densified; a Constant's sparse_value becomes "value" */
        tosac_tensor t;
        const char *name = ap->name;
        if (ap->type == IR_ATTR_TENSOR) {
            if (!ap->t)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s is a tensor without a value", where);
            rc = onnx_tensor_from_proto(ap->t, im->base_dir, where, &t, err);
        } else {
            if (!ap->sparse_tensor)
                return tosac_fail(err, TOSAC_ERR_INPUT, "%s is a sparse tensor without a value",
                                  where);
            rc = onnx_tensor_from_sparse(ap->sparse_tensor, im->base_dir, where, &t, err);
            if (strcmp(name, "sparse_value") == 0 && ir_node_is(&g->nodes[node], "Constant"))
                name = "value";
        }
        if (rc)
            return rc;
        return ir_node_take_tensor(g, node, name, &t, err);
    }
    case IR_ATTR_GRAPH: {
        if (!ap->g)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s is a graph without a value", where);
        ir_graph *sub;
        if (import_subgraph(im, g, ap->g, &sub))
            return fail_code(err);
        return ir_node_set_graph(g, node, ap->name, sub, err);
    }
    case IR_ATTR_FLOATS:
    case IR_ATTR_INTS:
    case IR_ATTR_STRINGS:
    case IR_ATTR_TENSORS:
    case IR_ATTR_GRAPHS: return import_list_attr(im, g, node, ap, where);
    case 12:
    case 13:
    case 14:
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "%s: sparse-tensor lists and type attributes are not supported", where);
    default:
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s has unknown type %d", where, (int)ap->type);
    }
}

/* ---- nodes ---- */

static tosac_code declare_outputs(importer *im, const Onnx__GraphProto *gp, ir_graph *g)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; k < np->n_output; k++) {
            const char *name = np->output[k];
            if (!name || !name[0])
                continue;
            if (ir_graph_find_tensor(g, name) >= 0)
                return tosac_fail(im->err, TOSAC_ERR_INPUT,
                                  "graph '%s': node %zu (%s '%s'): output '%s' is already "
                                  "produced (by another node, an input or an initializer)",
                                  g->name, i, np->op_type ? np->op_type : "?",
                                  np->name ? np->name : "", name);
            if (ir_graph_add_tensor(g, name, TOSAC_DT_UNKNOWN, -1, NULL, im->err) < 0)
                return fail_code(im->err);
        }
    }
    return TOSAC_OK;
}

static tosac_code import_node(importer *im, const Onnx__NodeProto *np, size_t index, ir_graph *g)
{
    tosac_error *err = im->err;
    const char *op = np->op_type, *nname = np->name ? np->name : "";
    if (!op || !op[0])
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': node %zu ('%s') has no op_type",
                          g->name, index, nname);
    if (np->n_input > INT_MAX || np->n_output > INT_MAX)
        return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': node %zu has too many inputs",
                          g->name, index);
    int *ids = malloc((np->n_input + np->n_output + 1) * sizeof *ids);
    if (!ids)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (size_t k = 0; k < np->n_input && !rc; k++) {
        const char *name = np->input[k];
        ids[k] = -1;
        if (!name || !name[0])
            continue;
        ids[k] = ir_graph_resolve_tensor(g, name, err);
        if (ids[k] < 0)
            rc = tosac_fail(err, TOSAC_ERR_INPUT,
                            "graph '%s': node %zu (%s '%s'): input '%s' is not defined", g->name,
                            index, op, nname, name);
    }
    int *outs = ids + np->n_input;
    for (size_t k = 0; k < np->n_output && !rc; k++)
        outs[k] = np->output[k] && np->output[k][0] ? ir_graph_find_tensor(g, np->output[k]) : -1;
    int node = -1;
    if (!rc) {
        node = ir_graph_add_node(g, op, np->domain, nname, ids, (int)np->n_input, outs,
                                 (int)np->n_output, err);
        if (node < 0)
            rc = fail_code(err);
    }
    free(ids);
    for (size_t a = 0; a < np->n_attribute && !rc; a++)
        rc = import_attr(im, g, node, np->attribute[a]);
    return rc;
}

/* ---- graphs ---- */

static tosac_code import_inputs(importer *im, const Onnx__GraphProto *gp, ir_graph *g)
{
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !vi->name[0])
            return tosac_fail(im->err, TOSAC_ERR_INPUT, "graph '%s': input %zu has no name",
                              g->name, i);
        int id = ir_graph_find_tensor(g, vi->name);
        if (id >= 0 && g->tensors[id].data) {
            /* An input with an initializer (IR < 4 style): a constant, checked against its type. */
            if (apply_type(g, id, vi->type, "input", im->err))
                return fail_code(im->err);
            continue;
        }
        if (id >= 0)
            return tosac_fail(im->err, TOSAC_ERR_INPUT, "graph '%s': input '%s' is listed twice",
                              g->name, vi->name);
        id = ir_graph_add_input(g, vi->name, TOSAC_DT_UNKNOWN, -1, NULL, im->err);
        if (id < 0 || apply_type(g, id, vi->type, "input", im->err))
            return fail_code(im->err);
    }
    return TOSAC_OK;
}

static tosac_code import_graph(importer *im, const Onnx__GraphProto *gp, ir_graph *g)
{
    tosac_error *err = im->err;
    if (import_initializers(im, gp, g) || import_inputs(im, gp, g) || declare_outputs(im, gp, g))
        return fail_code(err);
    for (size_t i = 0; i < gp->n_value_info; i++) {
        const Onnx__ValueInfoProto *vi = gp->value_info[i];
        int id = vi->name ? ir_graph_find_tensor(g, vi->name) : -1;
        if (id >= 0 && apply_type(g, id, vi->type, "value_info", err))
            return fail_code(err);
    }
    for (size_t i = 0; i < gp->n_node; i++)
        if (import_node(im, gp->node[i], i, g))
            return fail_code(err);
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        if (!vi->name || !vi->name[0])
            return tosac_fail(err, TOSAC_ERR_INPUT, "graph '%s': output %zu has no name",
                              g->name, i);
        int id = ir_graph_resolve_tensor(g, vi->name, err);
        if (id < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "graph '%s': output '%s' is not produced by any node", g->name,
                              vi->name);
        if (apply_type(g, id, vi->type, "output", err) || ir_graph_mark_output(g, id, err))
            return fail_code(err);
    }
    return TOSAC_OK;
}

/* ---- models ---- */

static tosac_code import_opsets(const Onnx__ModelProto *mp, ir_model *m, tosac_error *err)
{
    for (int i = 0; i < m->n_opsets; i++)
        free(m->opsets[i].domain);
    m->n_opsets = 0;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = mp->opset_import[i];
        const char *domain = op->domain ? op->domain : "";
        if (!op->has_version)
            return tosac_fail(err, TOSAC_ERR_INPUT, "opset import '%s' has no version", domain);
        if (ir_model_set_opset(m, domain, op->version, err))
            return fail_code(err);
    }
    int64_t v = ir_model_opset(m, "");
    if (v == 0)
        return tosac_fail(err, TOSAC_ERR_INPUT, "the model imports no ai.onnx opset");
    if (v < ONNX_MIN_LEGACY_OPSET || v > ONNX_MAX_OPSET)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "ai.onnx opset %lld is not supported (supported: %d..%d)", (long long)v,
                          ONNX_MIN_OPSET, ONNX_MAX_OPSET);
    return TOSAC_OK;
}

static tosac_code set_str(char **dst, const char *src, tosac_error *err)
{
    if (!src || !src[0])
        return TOSAC_OK;
    free(*dst);
    *dst = malloc(strlen(src) + 1);
    if (!*dst)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    memcpy(*dst, src, strlen(src) + 1);
    return TOSAC_OK;
}

/* owned: buf is the caller's view of the file (a mapping or a copy), released as soon as it
 * is decoded (the weights are then in memory twice at most, not three times). */
static tosac_code import_bytes(const void *buf, size_t len, tosac_file_view *owned,
                               const char *base_dir, ir_model **out, tosac_error *err)
{
    *out = NULL;
    tosac_error wire;
    tosac_error_clear(&wire);
    if (len == 0) {
        tosac_view_release(owned);
        return tosac_fail(err, TOSAC_ERR_INPUT, "empty ONNX model");
    }
    if (onnx_wire_check(buf, len, &onnx__model_proto__descriptor, &wire)) {
        tosac_view_release(owned);
        return tosac_fail(err, TOSAC_ERR_INPUT, "truncated or corrupt ONNX model (%s)", wire.msg);
    }
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
    tosac_view_release(owned);
    if (!mp)
        return tosac_fail(err, TOSAC_ERR_INPUT, "truncated or corrupt ONNX model (protobuf "
                          "decoding failed: wrong field types)");
    importer im = {base_dir, err};
    tosac_code rc = TOSAC_OK;
    ir_model *m = ir_model_new();
    if (!m)
        rc = tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    else if (!mp->graph)
        rc = tosac_fail(err, TOSAC_ERR_INPUT, "the ONNX model has no graph");
    if (!rc) {
        m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
        rc = import_opsets(mp, m, err);
    }
    if (!rc)
        rc = set_str(&m->producer_name, mp->producer_name, err);
    if (!rc)
        rc = set_str(&m->producer_version, mp->producer_version, err);
    if (!rc)
        rc = set_str(&m->graph->name, mp->graph->name, err);
    if (!rc)
        rc = import_graph(&im, mp->graph, m->graph);
    onnx__model_proto__free_unpacked(mp, NULL);
    if (!rc)
        rc = onnx_check_legacy_ops(m, err);
    if (!rc)
        rc = ir_model_verify(m, err);
    if (!rc)
        rc = onnx_fold_constant_if(m->graph, err);
    if (!rc)
        rc = onnx_record_quant(m->graph, err);
    if (rc) {
        ir_model_free(m);
        return rc;
    }
    *out = m;
    return TOSAC_OK;
}

tosac_code onnx_import_bytes(const void *buf, size_t len, const char *base_dir, ir_model **out,
                             tosac_error *err)
{
    return import_bytes(buf, len, NULL, base_dir, out, err);
}

tosac_code onnx_import_file(const char *path, ir_model **out, tosac_error *err)
{
    tosac_file_view v;
    *out = NULL;
    if (tosac_view_file(path, &v, err))
        return fail_code(err);
    /* External data lives next to the model. */
    char *dir = malloc(strlen(path) + 2);
    if (!dir) {
        tosac_view_release(&v);
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    tosac_error local;
    tosac_error_clear(&local);
    tosac_code rc = import_bytes(v.data, v.len, &v, dir, out, &local); /* releases v */
    free(dir);
    if (rc) { /* every problem of the model names its file */
        char mp[TOSAC_MSG_PATH];
        return tosac_fail(err, rc, "'%s': %s", tosac_msg_path(path, mp), local.msg);
    }
    return rc;
}
