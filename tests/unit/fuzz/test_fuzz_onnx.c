/* The ONNX importer on structurally mutated models. Byte damage mostly breaks the protobuf
 * wire format (test_onnx_bad covers that); here the model is parsed into its field tree and
 * mutated as protobuf: field values (data types, dims, attribute types and values, opset
 * versions), repeated fields dropped or duplicated, nested messages (attributes, subgraphs,
 * Constant tensors) reordered, then re-encoded with correct lengths. Seeds are small ONNX node
 * tests with If / Loop / Scan subgraphs, Constant nodes and int, float, string, tensor and graph
 * attributes, plus a QDQ model. Every import must give OK or INPUT/UNSUPPORTED with a message, never a crash (ASan);
 * an accepted model must verify, go through shape inference, export, and import again. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/onnx.h"
#include "util/fileio.h"

#define NODE "/usr/share/libonnx-testdata/data/node/"

/* One protobuf field; a length-delimited field that parses as a message keeps its children. */
typedef struct pbf pbf;
struct pbf {
    uint32_t field;
    int wt;              /* 0 varint, 1 fixed64, 2 bytes/message, 5 fixed32 */
    uint64_t v;          /* varint / fixed value */
    uint8_t *bytes;      /* wt 2, not a message: owned copy */
    size_t len;
    pbf *kids;           /* wt 2 message */
    int n_kids;
    bool is_msg;
};

static bool get_varint(const uint8_t *b, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *pos < len; shift += 7) {
        uint8_t c = b[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

static void free_fields(pbf *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].bytes);
        free_fields(f[i].kids, f[i].n_kids);
    }
    free(f);
}

/* Parses b[0..len) as a message; false (nothing allocated) if it is not one. */
static bool parse_msg(const uint8_t *b, size_t len, int depth, pbf **out, int *n_out)
{
    pbf *f = NULL;
    int n = 0, cap = 0;
    size_t pos = 0;
    while (pos < len) {
        uint64_t key, v = 0;
        if (!get_varint(b, len, &pos, &key) || (key >> 3) == 0 || (key >> 3) > 100000)
            goto fail;
        pbf x = {.field = (uint32_t)(key >> 3), .wt = (int)(key & 7)};
        if (x.wt == 0) {
            if (!get_varint(b, len, &pos, &x.v))
                goto fail;
        } else if (x.wt == 1 || x.wt == 5) {
            size_t w = x.wt == 1 ? 8 : 4;
            if (len - pos < w)
                goto fail;
            for (size_t i = 0; i < w; i++)
                x.v |= (uint64_t)b[pos + i] << (8 * i);
            pos += w;
        } else if (x.wt == 2) {
            if (!get_varint(b, len, &pos, &v) || v > len - pos)
                goto fail;
            /* strings that happen to parse as messages are fine: unmutated, they re-encode
             * to the same bytes */
            if (depth < 12 && v > 0 && parse_msg(b + pos, (size_t)v, depth + 1, &x.kids, &x.n_kids)) {
                x.is_msg = true;
            } else {
                x.bytes = tu_memdup(b + pos, (size_t)v);
                x.len = (size_t)v;
            }
            pos += (size_t)v;
        } else {
            goto fail;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            f = realloc(f, (size_t)cap * sizeof *f);
        }
        f[n++] = x;
    }
    *out = f;
    *n_out = n;
    return true;
fail:
    free_fields(f, n);
    return false;
}

typedef struct buf {
    uint8_t *d;
    size_t n, cap;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 64;
        o->d = realloc(o->d, o->cap);
    }
    memcpy(o->d + o->n, p, n);
    o->n += n;
}

static void put_varint(buf *o, uint64_t v)
{
    uint8_t b[10];
    int n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(o, b, (size_t)n);
}

static void encode(buf *o, const pbf *f, int n)
{
    for (int i = 0; i < n; i++) {
        put_varint(o, ((uint64_t)f[i].field << 3) | (uint64_t)f[i].wt);
        if (f[i].wt == 0) {
            put_varint(o, f[i].v);
        } else if (f[i].wt == 1 || f[i].wt == 5) {
            uint8_t b[8];
            for (int k = 0; k < 8; k++)
                b[k] = (uint8_t)(f[i].v >> (8 * k));
            put(o, b, f[i].wt == 1 ? 8 : 4);
        } else if (f[i].is_msg) {
            buf sub = {0};
            encode(&sub, f[i].kids, f[i].n_kids);
            put_varint(o, sub.n);
            put(o, sub.d ? sub.d : (uint8_t *)"", sub.n);
            free(sub.d);
        } else {
            put_varint(o, f[i].len);
            put(o, f[i].bytes ? f[i].bytes : (uint8_t *)"", f[i].len);
        }
    }
}

/* Every field of the tree, depth first, with the message (array, count) it sits in. */
typedef struct slot {
    pbf **arr;
    int *n;
    int idx;
} slot;

static int collect(pbf **arr, int *n, slot *out, int k, int cap)
{
    for (int i = 0; i < *n && k < cap; i++) {
        out[k++] = (slot){arr, n, i};
        if ((*arr)[i].is_msg)
            k = collect(&(*arr)[i].kids, &(*arr)[i].n_kids, out, k, cap);
    }
    return k;
}

static pbf clone(const pbf *f)
{
    pbf c = *f;
    c.bytes = f->bytes ? tu_memdup(f->bytes, f->len) : NULL;
    c.kids = f->n_kids ? malloc((size_t)f->n_kids * sizeof *c.kids) : NULL;
    for (int i = 0; i < f->n_kids; i++)
        c.kids[i] = clone(&f->kids[i]);
    return c;
}

static uint64_t interesting(uint64_t old)
{
    static const uint64_t v[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 20, 21,
                                 22, 63, 64, 127, 128, 255, 256, 65535, 0x7fffffffu, 0x80000000u,
                                 0xffffffffu, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                 UINT64_MAX, UINT64_MAX - 1};
    switch (tu_below(4)) {
    case 0: return old + 1;
    case 1: return old - 1;
    default: return v[tu_below(sizeof v / sizeof v[0])];
    }
}

#define MAX_SLOTS 100000

static void mutate(pbf **root, int *n_root, slot *slots)
{
    int ns = collect(root, n_root, slots, 0, MAX_SLOTS);
    if (!ns)
        return;
    slot s = slots[tu_below((uint32_t)ns)];
    pbf *f = &(*s.arr)[s.idx];
    switch (tu_below(8)) {
    case 0: /* drop the field */
        free(f->bytes);
        free_fields(f->kids, f->n_kids);
        memmove(f, f + 1, (size_t)(*s.n - s.idx - 1) * sizeof *f);
        (*s.n)--;
        return;
    case 1: { /* repeat it */
        pbf c = clone(f);
        *s.arr = realloc(*s.arr, (size_t)(*s.n + 1) * sizeof **s.arr);
        (*s.arr)[(*s.n)++] = c;
        return;
    }
    case 2: /* swap with another field of the same message (order of repeated fields) */
        if (*s.n > 1) {
            int j = (int)tu_below((uint32_t)*s.n);
            pbf t = (*s.arr)[j];
            (*s.arr)[j] = *f;
            *f = t;
        }
        return;
    case 3: /* another field number: the value lands somewhere it was not meant for */
        f->field = 1 + tu_below(24);
        return;
    default:
        if (f->wt == 0 || f->wt == 1 || f->wt == 5) {
            f->v = f->wt == 0 || tu_below(2) ? interesting(f->v) : f->v ^ (1ull << tu_below(32));
        } else if (!f->is_msg && f->len) {
            uint32_t k = tu_below(3);
            if (k == 0)
                f->bytes[tu_below((uint32_t)f->len)] ^= (uint8_t)(1u << tu_below(8));
            else if (k == 1)
                f->len = tu_below((uint32_t)f->len); /* shorter string / raw data */
            else
                f->bytes[tu_below((uint32_t)f->len)] = (uint8_t)tu_rand();
        }
        return;
    }
}

/* Imports bytes (exactly-sized copy). An accepted model verifies, survives shape inference,
 * exports and re-imports. Returns 1 if accepted. */
static int try_import(const uint8_t *b, size_t len)
{
    uint8_t *copy = tu_memdup(b, len);
    ir_model *m = NULL;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = onnx_import_bytes(copy, len, NULL, &m, &err);
    free(copy);
    if (rc != TOSAC_OK) {
        if (rc != TOSAC_ERR_INPUT && rc != TOSAC_ERR_UNSUPPORTED)
            fail_msg("import returned %d: %s", rc, err.msg);
        assert_true(err.msg[0] != '\0');
        assert_null(m);
        return 0;
    }
    if (ir_model_verify(m, &err) != TOSAC_OK)
        fail_msg("an imported model does not verify: %s", err.msg);
    tosac_error_clear(&err);
    rc = ir_model_infer_shapes(m, &err);
    if (rc != TOSAC_OK && (rc == TOSAC_ERR_INTERNAL || err.msg[0] == '\0'))
        fail_msg("shape inference: code %d: %s", rc, err.msg);
    void *out;
    size_t olen;
    tosac_error_clear(&err);
    rc = onnx_export_bytes(m, &out, &olen, &err);
    if (rc == TOSAC_OK) {
        ir_model *back = NULL;
        if (onnx_import_bytes(out, olen, NULL, &back, &err) != TOSAC_OK)
            fail_msg("our export of an accepted model does not import: %s", err.msg);
        ir_model_free(back);
        free(out);
    } else if (rc == TOSAC_ERR_INTERNAL) {
        fail_msg("export: %s", err.msg);
    }
    ir_model_free(m);
    return 1;
}

/* Mutates the model bytes `data` (freed here) iters times. */
static void fuzz_bytes(const char *label, void *data, size_t len, int iters, slot *slots)
{
    assert_int_equal(try_import(data, len), 1);
    pbf *root = NULL;
    int n_root = 0;
    assert_true(parse_msg(data, len, 0, &root, &n_root));
    buf same = {0};
    encode(&same, root, n_root);
    assert_int_equal(same.n, len); /* the tree re-encodes the model exactly */
    assert_memory_equal(same.d, data, len);
    free(same.d);
    int accepted = 0;
    for (int i = 0; i < iters; i++) {
        pbf wrapper = {.is_msg = true};
        pbf *copy = malloc((size_t)(n_root ? n_root : 1) * sizeof *copy);
        for (int k = 0; k < n_root; k++)
            copy[k] = clone(&root[k]);
        wrapper.kids = copy;
        wrapper.n_kids = n_root;
        for (int e = 1 + (int)tu_below(3); e > 0; e--)
            mutate(&wrapper.kids, &wrapper.n_kids, slots);
        buf o = {0};
        encode(&o, wrapper.kids, wrapper.n_kids);
        accepted += try_import(o.d ? o.d : (uint8_t *)"", o.n);
        free(o.d);
        free_fields(wrapper.kids, wrapper.n_kids);
    }
    fprintf(stderr, "%s: %d of %d mutations imported\n", label, accepted, iters);
    free_fields(root, n_root);
    free(data);
}

static void fuzz_model(const char *path, int iters, slot *slots)
{
    void *data;
    size_t len;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_read_file(path, &data, &len, &err))
        fail_msg("%s", err.msg);
    fuzz_bytes(path, data, len, iters, slots);
}

/* Built with the IR and exported: cond = Constant(true) feeding an If whose branches read an
 * outer tensor (the import folds it), and a node carrying every attribute kind. */
static void *built_model(size_t *len)
{
    tosac_error err;
    tosac_error_clear(&err);
    ir_model *m = ir_model_new();
    ir_graph *g = m->graph;
    ir_graph_add_input(g, "x", TOSAC_DT_F32, 4, (int64_t[]){1, 1, 3, 3}, &err);
    int c = ir_graph_add_tensor(g, "c", TOSAC_DT_UNKNOWN, -1, NULL, &err);
    int y = ir_graph_add_tensor(g, "y", TOSAC_DT_F32, 4, (int64_t[]){1, 1, 3, 3}, &err);
    int z = ir_graph_add_tensor(g, "z", TOSAC_DT_F32, -1, NULL, &err);
    int k = ir_graph_add_node(g, "Constant", NULL, "k", NULL, 0, &c, 1, &err);
    tosac_tensor t;
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_BOOL, 0, NULL, &err), TOSAC_OK);
    ((uint8_t *)t.data)[0] = 1;
    ir_node_set_tensor(g, k, "value", &t, &err);
    tosac_tensor_free(&t);
    int n = ir_graph_add_node(g, "If", NULL, "if0", &c, 1, &y, 1, &err);
    for (int branch = 0; branch < 2; branch++) {
        ir_graph *b = ir_graph_new(branch ? "else" : "then", NULL);
        ir_node_set_graph(g, n, branch ? "else_branch" : "then_branch", b, &err);
        int cap = ir_graph_resolve_tensor(b, "x", &err);
        int r = ir_graph_add_tensor(b, "r", TOSAC_DT_F32, -1, NULL, &err);
        ir_graph_add_node(b, branch ? "Neg" : "Relu", NULL, "", &cap, 1, &r, 1, &err);
        ir_graph_mark_output(b, r, &err);
    }
    n = ir_graph_add_node(g, "MaxPool", NULL, "pool", &y, 1, &z, 1, &err);
    ir_node_set_float(g, n, "f", 1.5f, &err);
    ir_node_set_int(g, n, "i", -7, &err);
    ir_node_set_string(g, n, "auto_pad", "NOTSET", &err);
    ir_node_set_floats(g, n, "fs", (float[]){1, 2}, 2, &err);
    ir_node_set_ints(g, n, "kernel_shape", (int64_t[]){2, 2}, 2, &err);
    ir_node_set_strings(g, n, "ss", (const char *[]){"a", ""}, 2, &err);
    ir_graph_mark_output(g, z, &err);
    assert_int_equal(err.code, TOSAC_OK);
    void *buf;
    assert_int_equal(onnx_export_bytes(m, &buf, len, &err), TOSAC_OK);
    ir_model_free(m);
    return buf;
}

static void test_mutated_models(void **state)
{
    (void)state;
    static const char *const seeds[] = {
        NODE "test_if/model.onnx",
        NODE "test_loop11/model.onnx",
        NODE "test_scan9_sum/model.onnx",
        NODE "test_constant/model.onnx",
        NODE "test_constant_pad/model.onnx",
        NODE "test_averagepool_2d_pads/model.onnx",
        NODE "test_resize_downsample_scales_linear/model.onnx",
        NODE "test_eyelike_with_dtype/model.onnx",
        NODE "test_constantofshape_int_zeros/model.onnx",
        /* shape arithmetic from attributes and constant operands */
        NODE "test_maxpool_2d_pads/model.onnx",
        NODE "test_slice_neg_steps/model.onnx",
        NODE "test_reshape_negative_dim/model.onnx",
        NODE "test_range_int32_type_negative_delta/model.onnx",
        NODE "test_tile/model.onnx",
        NODE "test_split_equal_parts_1d/model.onnx",
        NODE "test_top_k/model.onnx",
    };
    slot *slots = malloc(MAX_SLOTS * sizeof *slots);
    const char *env_iters = getenv("TOSAC_FUZZ_ITERS"), *env_seed = getenv("TOSAC_FUZZ_SEED");
    uint64_t seed = env_seed ? strtoull(env_seed, NULL, 10) : 41;
    int iters = env_iters ? atoi(env_iters) : 1500;
    /* TOSAC_FUZZ_MODELS=a.onnx,b.onnx explores other models instead */
    const char *env_models = getenv("TOSAC_FUZZ_MODELS");
    if (env_models) {
        char *list = strdup(env_models), *save = NULL;
        int i = 0;
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            tu_seed(seed + (uint64_t)i++);
            fuzz_model(p, iters, slots);
        }
        free(list);
        free(slots);
        return;
    }
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        tu_seed(seed + i);
        fuzz_model(seeds[i], iters, slots);
    }
    tu_seed(seed - 1);
    fuzz_model(tu_shared("models/synth_qdq_s8_op13_conv/model.onnx"), iters / 3, slots);
    size_t len;
    void *built = built_model(&len);
    tu_seed(seed - 2);
    fuzz_bytes("constant If and every attribute kind", built, len, iters, slots);
    free(slots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutated_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
