/* The rows of the backend matrix (backend_matrix.h): one operator each, with the constant
 * inputs and attributes its model needs. Float rows run in the a8w8 / a16w8 / FP columns,
 * int64 rows in the two int64 columns. Models are built at opset 13 (21 for a16w8), so the
 * helpers below give axes the way each opset reads them. */
#include "backend_matrix.h"

#include <string.h>

static bool opset18(lc_b *b)
{
    return lc_mode_of(b) == LC_A16W8; /* opset 21; the other columns build opset 13 */
}

/* ---- constant inputs ---- */
static float w_conv[8 * 2 * 3 * 3], w_dw[2 * 1 * 3 * 3], w_gemm[6 * 8], w_mm[8 * 5], bias8[8];
static float ln_scale[4] = {1.0f, 0.5f, -1.5f, 2.0f}, ln_bias[4] = {0.1f, -0.2f, 0.3f, 0.0f};

static void init_weights(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    lc_fill(w_conv, 144, 101, 0.5f);
    lc_fill(w_dw, 18, 102, 0.5f);
    lc_fill(w_gemm, 48, 103, 0.5f);
    lc_fill(w_mm, 40, 104, 0.5f);
    lc_fill(bias8, 8, 105, 0.5f);
}

static int conv_w(lc_b *b, int *ins, int n)
{
    init_weights();
    const int64_t ws[4] = {8, 2, 3, 3};
    ins[n] = lc_weight(b, "w", 4, ws, w_conv, 0);
    ins[n + 1] = lc_bias(b, "b", 8, bias8, ins[0], ins[n]);
    return n + 2;
}

static int dw_w(lc_b *b, int *ins, int n)
{
    init_weights();
    const int64_t ws[4] = {2, 1, 3, 3};
    ins[n] = lc_weight(b, "w", 4, ws, w_dw, 0);
    ins[n + 1] = lc_bias(b, "b", 2, bias8, ins[0], ins[n]);
    return n + 2;
}

static int gemm_w(lc_b *b, int *ins, int n)
{
    init_weights();
    const int64_t ws[2] = {6, 8};
    ins[n] = lc_weight(b, "w", 2, ws, w_gemm, 0);
    ins[n + 1] = lc_bias(b, "b", 6, bias8, ins[0], ins[n]);
    return n + 2;
}

static int mm_w(lc_b *b, int *ins, int n)
{
    init_weights();
    const int64_t ws[2] = {8, 5};
    ins[n] = lc_weight(b, "w", 2, ws, w_mm, 1);
    return n + 1;
}

static int ln_w(lc_b *b, int *ins, int n)
{
    const int64_t s[1] = {4};
    ins[n] = lc_weight(b, "scale", 1, s, ln_scale, -1);
    ins[n + 1] = lc_weight(b, "bias", 1, s, ln_bias, -1);
    return n + 2;
}

static int in_w(lc_b *b, int *ins, int n)
{
    const int64_t s[1] = {2};
    ins[n] = lc_weight(b, "scale", 1, s, ln_scale, -1);
    ins[n + 1] = lc_weight(b, "bias", 1, s, ln_bias, -1);
    return n + 2;
}

static int bn_w(lc_b *b, int *ins, int n)
{
    static const float mean[2] = {0.25f, -0.5f}, var[2] = {1.5f, 0.5f};
    const int64_t s[1] = {2};
    ins[n] = lc_weight(b, "scale", 1, s, ln_scale, -1);
    ins[n + 1] = lc_weight(b, "bias", 1, s, ln_bias, -1);
    ins[n + 2] = lc_weight(b, "mean", 1, s, mean, -1);
    ins[n + 3] = lc_weight(b, "var", 1, s, var, -1);
    return n + 4;
}

static int divisor(lc_b *b, int *ins, int n)
{
    static const float d[1] = {2.5f};
    const int64_t s[1] = {1};
    ins[n] = lc_weight(b, "d", 1, s, d, -1);
    return n + 1;
}

static int slope(lc_b *b, int *ins, int n)
{
    static const float s[1] = {0.25f};
    const int64_t sh[1] = {1};
    ins[n] = lc_weight(b, "slope", 1, sh, s, -1);
    return n + 1;
}

static int float_const(lc_b *b, const char *name, int rank, int64_t n, const float *v);

static int clip_bounds(lc_b *b, int *ins, int n)
{
    static const float lo[1] = {-0.5f}, hi[1] = {1.0f};
    ins[n] = float_const(b, "min", 0, 1, lo);
    ins[n + 1] = float_const(b, "max", 0, 1, hi);
    return n + 2;
}

static int ints1(lc_b *b, int *ins, int n, const char *name, int64_t v)
{
    ins[n] = lc_ints(b, name, 1, &v);
    return n + 1;
}

static int axis1(lc_b *b, int *ins, int n) { return ints1(b, ins, n, "axes", 1); }

/* ReduceSum reads axes as an input from opset 13, the other reductions from opset 18. */
static int axes_if18(lc_b *b, int *ins, int n) { return opset18(b) ? axis1(b, ins, n) : n; }

static void axes_attr_if13(lc_b *b, int node)
{
    const int64_t axes[1] = {1};
    if (!opset18(b))
        ir_node_set_ints(lc_graph(b), node, "axes", axes, 1, NULL);
}

static int reshape_to(lc_b *b, int *ins, int n)
{
    const int64_t s[2] = {4, 8};
    ins[n] = lc_ints(b, "shape", 2, s);
    return n + 1;
}

static int reshape_to6(lc_b *b, int *ins, int n)
{
    const int64_t s[2] = {4, 6};
    ins[n] = lc_ints(b, "shape", 2, s);
    return n + 1;
}

static int split_sizes(lc_b *b, int *ins, int n)
{
    const int64_t s[2] = {1, 3};
    ins[n] = lc_ints(b, "split", 2, s);
    return n + 1;
}

static int slice_args(lc_b *b, int *ins, int n)
{
    const int64_t st[2] = {1, 0}, en[2] = {3, 4}, ax[2] = {1, 2};
    ins[n] = lc_ints(b, "starts", 2, st);
    ins[n + 1] = lc_ints(b, "ends", 2, en);
    ins[n + 2] = lc_ints(b, "axes", 2, ax);
    return n + 3;
}

static int pads4(lc_b *b, int *ins, int n)
{
    const int64_t p[6] = {0, 1, 0, 0, 2, 1};
    ins[n] = lc_ints(b, "pads", 6, p);
    return n + 1;
}

static int tile_reps(lc_b *b, int *ins, int n)
{
    const int64_t r[3] = {1, 2, 1};
    ins[n] = lc_ints(b, "repeats", 3, r);
    return n + 1;
}

static int expand_to(lc_b *b, int *ins, int n)
{
    const int64_t s[3] = {2, 4, 4};
    ins[n] = lc_ints(b, "shape", 3, s);
    return n + 1;
}

/* Resize scales and Clip bounds are float constants, never quantized values. */
static int float_const(lc_b *b, const char *name, int rank, int64_t n, const float *v)
{
    return ir_graph_add_const(lc_graph(b), name, TOSAC_DT_F32, rank, &n, v, (size_t)n * 4, NULL);
}

static int resize_scales(lc_b *b, int *ins, int n)
{
    static const float sc[4] = {1, 1, 2, 2};
    ins[n] = -1; /* roi omitted */
    ins[n + 1] = float_const(b, "scales", 1, 4, sc);
    return n + 2;
}

static int gather_idx(lc_b *b, int *ins, int n)
{
    const int64_t idx[3] = {2, 0, 2};
    ins[n] = lc_ints(b, "indices", 3, idx);
    return n + 1;
}

static int gather_el_idx(lc_b *b, int *ins, int n)
{
    static int64_t idx[2 * 2 * 4];
    int64_t s[3] = {2, 2, 4};
    for (int i = 0; i < 16; i++)
        idx[i] = (i * 5) % 3;
    ins[n] = ir_graph_add_const(lc_graph(b), "indices", TOSAC_DT_I64, 3, s, idx, sizeof idx, NULL);
    return n + 1;
}

static int where_cond(lc_b *b, int *ins, int n)
{
    static bool cond[2 * 3 * 4];
    const int64_t s[3] = {2, 3, 4};
    for (int i = 0; i < 24; i++)
        cond[i] = (i * 7) % 3 == 0;
    /* Where(cond, x, x2): the condition first */
    int c = lc_input_typed(b, "cond", TOSAC_DT_BOOL, 3, s, cond);
    ins[n] = ins[1];
    ins[1] = ins[0];
    ins[0] = c;
    return n + 1;
}

/* ---- attributes ---- */
static void set_int(lc_b *b, int node, const char *name, int64_t v)
{
    ir_node_set_int(lc_graph(b), node, name, v, NULL);
}
static void set_ints(lc_b *b, int node, const char *name, const int64_t *v, int n)
{
    ir_node_set_ints(lc_graph(b), node, name, v, n, NULL);
}

static void a_pads1(lc_b *b, int node)
{
    const int64_t p[4] = {1, 1, 1, 1};
    set_ints(b, node, "pads", p, 4);
}
static void a_dw(lc_b *b, int node)
{
    a_pads1(b, node);
    set_int(b, node, "group", 2);
}
static void a_transb(lc_b *b, int node) { set_int(b, node, "transB", 1); }
static void a_pool(lc_b *b, int node)
{
    const int64_t k[2] = {2, 2}, s[2] = {2, 2};
    set_ints(b, node, "kernel_shape", k, 2);
    set_ints(b, node, "strides", s, 2);
}
static void a_axis1(lc_b *b, int node) { set_int(b, node, "axis", 1); }
static void a_axis_last(lc_b *b, int node) { set_int(b, node, "axis", -1); }
static void a_perm(lc_b *b, int node)
{
    const int64_t p[3] = {2, 0, 1};
    set_ints(b, node, "perm", p, 3);
}
static void a_block2(lc_b *b, int node) { set_int(b, node, "blocksize", 2); }
static void a_alpha(lc_b *b, int node) { ir_node_set_float(lc_graph(b), node, "alpha", 0.2f, NULL); }
static void a_keep0(lc_b *b, int node)
{
    axes_attr_if13(b, node);
    set_int(b, node, "keepdims", 0);
}
static void a_argmax(lc_b *b, int node)
{
    set_int(b, node, "axis", 2);
    set_int(b, node, "keepdims", 0);
}


/* ---- op-quant: operands the quantizer used to leave in float (issue 15, section 1) ---- */
static int pad_value(lc_b *b, int *ins, int n)
{
    static const float v[1] = {0.75f};
    n = pads4(b, ins, n);
    ins[n] = float_const(b, "value", 0, 1, v);
    return n + 1;
}

static int slope4(lc_b *b, int *ins, int n)
{
    static const float v[4] = {0.25f, -0.5f, 1.5f, 0.0f};
    ins[n] = float_const(b, "slope", 1, 4, v);
    return n + 1;
}

static int where_fill(lc_b *b, int *ins, int n)
{
    static const float v[1] = {-1.5f};
    n = where_cond(b, ins, n); /* Where(cond, x, fill) */
    ins[n] = float_const(b, "fill", 0, 1, v);
    return n + 1;
}

static int max_const(lc_b *b, int *ins, int n)
{
    static const float v[4] = {-0.5f, 0.25f, 1.0f, 0.0f};
    ins[n] = float_const(b, "c", 1, 4, v);
    return n + 1;
}

/* Clip with tensor bounds (torch.clamp with a tensor): a runtime lower bound, a constant
 * upper one */
static int clip_tensor(lc_b *b, int *ins, int n)
{
    static const float lo[1] = {-0.75f}, hi[1] = {1.25f};
    static const int64_t scalar_shape[1] = {1}; /* rank 0: not read */
    ins[n] = lc_input(b, "min", 0, scalar_shape, lo);
    ins[n + 1] = float_const(b, "max", 0, 1, hi);
    return n + 2;
}

/* a second node in front of the row's operator: op(first(x, ...)) */
static int before(lc_b *b, int *ins, int n, const char *op)
{
    int k = lc_node(b, op, "first", ins, n, 1);
    ins[0] = lc_out(b, k, 0);
    return 1;
}
static int sqrt_first(lc_b *b, int *ins, int n) { return before(b, ins, n, "Sqrt"); }
static int div_first(lc_b *b, int *ins, int n) { return before(b, ins, n, "Div"); }

/* Gather on a constant table (an embedding) with runtime indices: ArgMax(x) */
static int embedding(lc_b *b, int *ins, int n)
{
    static float table[4 * 5];
    const int64_t s[2] = {4, 5};
    (void)n;
    lc_fill(table, 20, 106, 1.5f);
    int k = lc_node(b, "ArgMax", "first", ins, 1, 1);
    set_int(b, k, "axis", 2);
    set_int(b, k, "keepdims", 0);
    ins[1] = lc_out(b, k, 0);
    ins[0] = ir_graph_add_const(lc_graph(b), "table", TOSAC_DT_F32, 2, s, table, sizeof table,
                                NULL);
    return 2;
}

/* ---- the rows ---- */
/* ---- op-shape (issue 15, sections 3-5): helpers of the rows at the end ---- */
static float w_conv1d[8 * 2 * 3], w_group[6 * 2 * 3 * 3], w_conv3d[4 * 2 * 27];

static int conv1d_w(lc_b *b, int *ins, int n)
{
    lc_fill(w_conv1d, 48, 106, 0.5f);
    const int64_t ws[3] = {8, 2, 3};
    ins[n] = lc_weight(b, "w", 3, ws, w_conv1d, 0);
    ins[n + 1] = lc_bias(b, "b", 8, bias8, ins[0], ins[n]);
    return n + 2;
}

static int group_w(lc_b *b, int *ins, int n)
{
    lc_fill(w_group, 108, 107, 0.5f);
    const int64_t ws[4] = {6, 2, 3, 3};
    ins[n] = lc_weight(b, "w", 4, ws, w_group, 0);
    ins[n + 1] = lc_bias(b, "b", 6, bias8, ins[0], ins[n]);
    return n + 2;
}

static int conv3d_w(lc_b *b, int *ins, int n)
{
    lc_fill(w_conv3d, 216, 108, 0.5f);
    const int64_t ws[5] = {4, 2, 3, 3, 3};
    ins[n] = lc_weight(b, "w", 5, ws, w_conv3d, 0);
    ins[n + 1] = lc_bias(b, "b", 4, bias8, ins[0], ins[n]);
    return n + 2;
}

static void a_pads1_3d(lc_b *b, int node)
{
    const int64_t p[6] = {1, 1, 1, 1, 1, 1};
    set_ints(b, node, "pads", p, 6);
}

static int gemm_c(lc_b *b, int *ins, int n)
{
    init_weights();
    ins[n] = lc_bias(b, "c", 5, bias8, ins[0], ins[1]);
    return n + 1;
}

static void a_pads1_1d(lc_b *b, int node)
{
    const int64_t p[2] = {1, 1};
    set_ints(b, node, "pads", p, 2);
}

static void a_group2(lc_b *b, int node)
{
    a_pads1(b, node);
    set_int(b, node, "group", 2);
}

static void a_pool1d(lc_b *b, int node)
{
    const int64_t k = 3, st = 2;
    set_ints(b, node, "kernel_shape", &k, 1);
    set_ints(b, node, "strides", &st, 1);
    a_pads1_1d(b, node);
}

#define X4 4, {1, 2, 4, 4}
#define X3 3, {2, 3, 4}
#define X2 2, {4, 8}
#define F MX_FLOATS
#define I MX_INT64
#define QTOL(q, why) .qtol = q, .why_qtol = why
#define TABLE16 QTOL(2, "the int16 TABLE's entries are rounded and displaced by half their " \
                        "segment's midpoint error (lower_table_values_i16): up to 1.5 steps " \
                        "from the float value, so 2 from its rounding")
/* the quantized forms these rules refuse (their reason names the case) */
#define QCPU .cpu_cols = MX_INTS, .cpu_category = "case not handled by the lowering"
/* ... only in hand-made QDQ models: tosac's quantizer decomposes the operator (n nodes) */
#define QDQCPU(n) .cpu_cols = MX_QUANT, .cpu_category = "case not handled by the lowering", \
                  .nodes_q = n
#define NORM16 QTOL_Q16(2, "its Sqrt and Reciprocal int16 TABLEs (TABLE16) before the last " \
                           "products")
#define QTOL_Q16(q, why) .qtol_q16 = q, .why_qtol_q16 = why
#define TABLE16Q QTOL_Q16(2, "the int16 TABLE (see TABLE16) at the quantizer's ranges")
/* discontinuous: exact int8 tables, but an int16 table interpolates across the jumps */
#define STEPS .cpu_cols = MX_COL(MX_I16) | MX_COL(MX_Q16), \
              .cpu_category = "case not handled by the lowering"

/* ---- op-lower (issue 15, section 2): ConvTranspose, trig, Celu, Pow, Mod, CumSum, Trilu,
 * ScatterND ---- */
static float w_tconv[2 * 3 * 3 * 3];

/* W [IC 2, OC 3, 3, 3] quantized per output channel (axis 1), bias [3] */
static int tconv_w(lc_b *b, int *ins, int n)
{
    init_weights();
    lc_fill(w_tconv, 54, 106, 0.5f);
    const int64_t ws[4] = {2, 3, 3, 3};
    ins[n] = lc_weight(b, "w", 4, ws, w_tconv, 1);
    ins[n + 1] = lc_bias(b, "b", 3, bias8, ins[0], ins[n]);
    return n + 2;
}
static void a_tconv(lc_b *b, int node)
{
    const int64_t s[2] = {2, 2}, op[2] = {1, 1};
    a_pads1(b, node);
    set_ints(b, node, "strides", s, 2);
    set_ints(b, node, "output_padding", op, 2);
}
static int tconv_dw_w(lc_b *b, int *ins, int n)
{
    init_weights();
    const int64_t ws[4] = {2, 1, 3, 3};
    ins[n] = lc_weight(b, "w", 4, ws, w_dw, 1);
    ins[n + 1] = lc_bias(b, "b", 2, bias8, ins[0], ins[n]);
    return n + 2;
}
static void a_tconv_dw(lc_b *b, int node)
{
    a_tconv(b, node);
    set_int(b, node, "group", 2);
}
static int exponent2(lc_b *b, int *ins, int n)
{
    static const float e[1] = {2.0f};
    const int64_t s[1] = {1};
    ins[n] = lc_weight(b, "e", 1, s, e, -1);
    return n + 1;
}
static void a_fmod1(lc_b *b, int node) { set_int(b, node, "fmod", 1); }
static int axis2(lc_b *b, int *ins, int n) { return ints1(b, ins, n, "axis", 2); }
static void a_exclusive(lc_b *b, int node) { set_int(b, node, "exclusive", 1); }
static int trilu_k(lc_b *b, int *ins, int n) { return ints1(b, ins, n, "k", 1); }
/* rows data[1] and data[0, 2]... of x [2,3,4]: indices [[1, 0], [0, 2]], updates [2, 4] */
static int scatter_args(lc_b *b, int *ins, int n)
{
    static const int64_t idx[4] = {1, 0, 0, 2};
    static float upd[8];
    lc_fill(upd, 8, 107, 1.5f);
    const int64_t is[2] = {2, 2}, us[2] = {2, 4};
    ins[n] = ir_graph_add_const(lc_graph(b), "indices", TOSAC_DT_I64, 2, is, idx, sizeof idx,
                                NULL);
    ins[n + 1] = lc_weight(b, "updates", 2, us, upd, -1);
    return n + 2;
}


/* ---- peer rows: models mirroring ExecuTorch Arm backend test files that had no row
 * (backend_matrix_peer.c maps each file to its rows); chains are the ONNX forms torch's
 * exporter writes, so they run in the --quantize and FP columns ---- */
static int fconst(lc_b *b, const char *name, float v) { return float_const(b, name, 0, 1, &v); }

/* a node reading ins[0..n) (and constants already appended): returns its output */
static int node1(lc_b *b, const char *op, const char *name, const int *ins, int n)
{
    return lc_out(b, lc_node(b, op, name, ins, n, 1), 0);
}

/* full / ones / zeros / fill_ / scalar_tensor: x + ConstantOfShape(shape of x, value) */
static int const_of_shape(lc_b *b, int *ins, int n)
{
    const int64_t s[2] = {4, 8};
    int sh = lc_ints(b, "shape", 2, s);
    int k = lc_node(b, "ConstantOfShape", "full", &sh, 1, 1);
    tosac_tensor v = {.dtype = TOSAC_DT_F32, .rank = 1, .shape = {1}};
    static float val = 1.5f;
    v.data = &val;
    v.nbytes = 4;
    ir_node_set_tensor(lc_graph(b), k, "value", &v, NULL);
    ins[n] = lc_out(b, k, 0);
    return n + 1;
}

/* arange: x + Range(0, 8, 1) */
static int range_operand(lc_b *b, int *ins, int n)
{
    int r[3] = {fconst(b, "start", 0.0f), fconst(b, "limit", 8.0f), fconst(b, "delta", 1.0f)};
    ins[n] = node1(b, "Range", "arange", r, 3);
    return n + 1;
}

/* eye: x + EyeLike(zeros [4, 8]) */
static int eye_operand(lc_b *b, int *ins, int n)
{
    static const float z[32];
    const int64_t s[2] = {4, 8};
    int c = ir_graph_add_const(lc_graph(b), "zeros", TOSAC_DT_F32, 2, s, z, sizeof z, NULL);
    ins[n] = node1(b, "EyeLike", "eye", &c, 1);
    return n + 1;
}

/* flip: Slice with step -1 along axis 2 */
static int flip_args(lc_b *b, int *ins, int n)
{
    const int64_t st = -1, en = INT64_MIN, ax = 2, sp = -1;
    ins[n] = lc_ints(b, "starts", 1, &st);
    ins[n + 1] = lc_ints(b, "ends", 1, &en);
    ins[n + 2] = lc_ints(b, "axes", 1, &ax);
    ins[n + 3] = lc_ints(b, "steps", 1, &sp);
    return n + 4;
}

/* gelu (the exporter's Erf form below opset 20): (x * 0.5) * (1 + Erf(x / sqrt 2)) */
static int gelu_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    int x = ins[0];
    int a[2] = {x, fconst(b, "sqrt2", 1.41421356f)};
    int e = node1(b, "Erf", "erf", (int[]){node1(b, "Div", "div", a, 2)}, 1);
    int p[2] = {e, fconst(b, "one", 1.0f)};
    int h[2] = {x, fconst(b, "half", 0.5f)};
    ins[0] = node1(b, "Mul", "half_x", h, 2);
    ins[1] = node1(b, "Add", "add", p, 2);
    return 2;
}

/* glu: Split(x, 2 along the last axis) -> a * Sigmoid(b) */
static int glu_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    int k = lc_node(b, "Split", "split", ins, 1, 2);
    set_int(b, k, "axis", -1);
    ins[0] = lc_out(b, k, 0);
    ins[1] = node1(b, "Sigmoid", "sig", (int[]){lc_out(b, k, 1)}, 1);
    return 2;
}

/* silu: x * Sigmoid(x) */
static int silu_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    ins[1] = node1(b, "Sigmoid", "sig", ins, 1);
    return 2;
}

/* logit: Log(x / (1 - x)) */
static int logit_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    int s[2] = {fconst(b, "one", 1.0f), ins[0]};
    int d[2] = {ins[0], node1(b, "Sub", "one_minus", s, 2)};
    ins[0] = node1(b, "Div", "ratio", d, 2);
    return 1;
}

/* ne: Not(Equal(x, x2)) */
static int equal_first(lc_b *b, int *ins, int n) { return before(b, ins, n, "Equal"); }

/* logical_*: op(Greater(x, x2), mask) */
static int logical_args(lc_b *b, int *ins, int n)
{
    static bool mask[24];
    const int64_t s[3] = {2, 3, 4};
    (void)n;
    for (int i = 0; i < 24; i++)
        mask[i] = (i * 5) % 3 != 0;
    ins[0] = node1(b, "Greater", "gt", ins, 2);
    ins[1] = lc_input_typed(b, "mask", TOSAC_DT_BOOL, 3, s, mask);
    return 2;
}
static int greater_first(lc_b *b, int *ins, int n) { return before(b, ins, n, "Greater"); }

/* remainder (torch, the exporter's form): x - Floor(x / y) * y */
static int remainder_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    int x = ins[0], y = ins[1];
    int f = node1(b, "Floor", "floor", (int[]){node1(b, "Div", "div", ins, 2)}, 1);
    ins[1] = node1(b, "Mul", "mul", (int[]){f, y}, 2);
    ins[0] = x;
    return 2;
}

/* expm1: Exp(x) - 1; log10: Log(x) / ln 10; log1p: Log(x + 1) */
static int exp_minus1(lc_b *b, int *ins, int n)
{
    (void)n;
    ins[0] = node1(b, "Exp", "exp", ins, 1);
    ins[1] = fconst(b, "one", 1.0f);
    return 2;
}
static int log_over_ln10(lc_b *b, int *ins, int n)
{
    (void)n;
    ins[0] = node1(b, "Log", "log", ins, 1);
    ins[1] = fconst(b, "ln10", 2.30258509f);
    return 2;
}
static int plus1(lc_b *b, int *ins, int n)
{
    (void)n;
    int a[2] = {ins[0], fconst(b, "one", 1.0f)};
    ins[0] = node1(b, "Add", "add", a, 2);
    return 1;
}

/* var: ReduceMean((x - ReduceMean(x, keepdims)) ^ 2) over axis 2 (opset 13 attributes) */
static void a_axes2(lc_b *b, int node)
{
    const int64_t ax = 2;
    set_ints(b, node, "axes", &ax, 1);
}
static int var_chain(lc_b *b, int *ins, int n)
{
    (void)n;
    int x = ins[0];
    int km = lc_node(b, "ReduceMean", "mean", &x, 1, 1);
    a_axes2(b, km);
    int d = node1(b, "Sub", "centred", (int[]){x, lc_out(b, km, 0)}, 2);
    ins[0] = node1(b, "Mul", "square", (int[]){d, d}, 2);
    return 1;
}

/* sdpa / multihead attention core: Softmax(x @ x2 * 0.5) @ x3 */
static int attention_chain(lc_b *b, int *ins, int n)
{
    static float v[2 * 3 * 4];
    const int64_t s[3] = {2, 3, 4};
    (void)n;
    lc_fill(v, 24, 109, 1.0f);
    int sc = node1(b, "MatMul", "scores", ins, 2);
    int m = node1(b, "Mul", "scaled", (int[]){sc, fconst(b, "scale", 0.5f)}, 2);
    int k = lc_node(b, "Softmax", "softmax", &m, 1, 1);
    set_int(b, k, "axis", -1);
    ins[0] = lc_out(b, k, 0);
    ins[1] = lc_input(b, "x3", 3, s, v);
    return 2;
}

/* stack: Concat(Unsqueeze(x, 1), Unsqueeze(x2, 1)) along axis 1 */
static int unsqueeze_both(lc_b *b, int *ins, int n)
{
    for (int i = 0; i < 2; i++) {
        int u[2] = {ins[i], lc_ints(b, i ? "axes2" : "axes1", 1, (int64_t[]){1})};
        ins[i] = node1(b, "Unsqueeze", i ? "u2" : "u1", u, 2);
    }
    return n;
}

/* select: Gather with a scalar index (the dimension goes) */
static int gather_scalar(lc_b *b, int *ins, int n)
{
    static const int64_t idx = 2;
    ins[n] = ir_graph_add_const(lc_graph(b), "index", TOSAC_DT_I64, 0, NULL, &idx, 8, NULL);
    return n + 1;
}

/* any: Cast(ReduceMax(Cast(mask, int32)), bool) -- the bool reduction's integer form */
static int any_chain(lc_b *b, int *ins, int n)
{
    static bool mask[24];
    const int64_t s[3] = {2, 3, 4};
    (void)n;
    for (int i = 0; i < 24; i++)
        mask[i] = i % 7 == 3;
    int m = lc_input_typed(b, "mask", TOSAC_DT_BOOL, 3, s, mask);
    int c = lc_node(b, "Cast", "to_int", &m, 1, 1);
    set_int(b, c, "to", 6); /* INT32 */
    int r = lc_node(b, "ReduceMax", "any", (int[]){lc_out(b, c, 0)}, 1, 1);
    a_axes2(b, r);
    ins[0] = lc_out(b, r, 0);
    return 1;
}
static void a_to_bool(lc_b *b, int node) { set_int(b, node, "to", 9); }
static void a_to_i32(lc_b *b, int node) { set_int(b, node, "to", 6); }
static void a_to_f32(lc_b *b, int node) { set_int(b, node, "to", 1); }

/* to_copy: float -> int32 -> float (a cast pair, as dtype round trips are exported) */
static int cast_first_i32(lc_b *b, int *ins, int n)
{
    (void)n;
    int c = lc_node(b, "Cast", "to_int", ins, 1, 1);
    a_to_i32(b, c);
    ins[0] = lc_out(b, c, 0);
    return 1;
}

/* any, float form: Greater(ReduceMax(Where(mask, 1, 0)), 0.5) */
static int any_float_chain(lc_b *b, int *ins, int n)
{
    static bool mask[24];
    const int64_t s[3] = {2, 3, 4};
    (void)n;
    for (int i = 0; i < 24; i++)
        mask[i] = i % 7 == 3;
    int w[3] = {lc_input_typed(b, "mask", TOSAC_DT_BOOL, 3, s, mask), fconst(b, "one", 1.0f),
                fconst(b, "zero", 0.0f)};
    int r = lc_node(b, "ReduceMax", "any", (int[]){node1(b, "Where", "as_float", w, 3)}, 1, 1);
    a_axes2(b, r);
    ins[0] = lc_out(b, r, 0);
    ins[1] = fconst(b, "half", 0.5f);
    return 2;
}

/* lshift / rshift by a constant amount (2) */
static int shift2(lc_b *b, int *ins, int n)
{
    static const int32_t two = 2;
    ins[n] = ir_graph_add_const(lc_graph(b), "amount", TOSAC_DT_I32, 0, NULL, &two, 4, NULL);
    return n + 1;
}
static void a_to_i8(lc_b *b, int node) { set_int(b, node, "to", 3); }

/* ---- control flow (+cf): If as COND_IF, Loop as WHILE_LOOP ---- */
/* cond = Greater(ReduceMin(x), 0): true exactly when every element is positive */
static int if_cond(lc_b *b, int *ins, int n)
{
    (void)n;
    ir_graph *g = lc_graph(b);
    static const int32_t izero = 0;
    int zero = g->tensors[ins[0]].dtype == TOSAC_DT_I32
                   ? ir_graph_add_const(g, "zero", TOSAC_DT_I32, 0, NULL, &izero, 4, NULL)
                   : fconst(b, "zero", 0.0f);
    int r = lc_node(b, "ReduceMin", "min", ins, 1, 1);
    set_int(b, r, "keepdims", 0);
    ins[0] = node1(b, "Greater", "positive", (int[]){lc_out(b, r, 0), zero}, 2);
    return 1;
}

/* A body graph of node: one op (op_name) on the outer x (a capture) as its output. */
static ir_graph *x_body(lc_b *b, const char *name, const char *op_name, int twice)
{
    ir_graph *g = lc_graph(b);
    const ir_tensor *x = &g->tensors[ir_graph_find_tensor(g, "x")];
    ir_graph *sub = ir_graph_new(name, g);
    int cx = ir_graph_resolve_tensor(sub, "x", NULL);
    int o = ir_graph_add_tensor(sub, "o", x->dtype, x->rank, x->shape, NULL);
    int in2[2] = {cx, cx};
    ir_graph_add_node(sub, op_name, NULL, op_name, in2, twice ? 2 : 1, &o, 1, NULL);
    ir_graph_mark_output(sub, o, NULL);
    return sub;
}

/* then: x + x (float) or Abs(x) (int32); else: Neg(x) */
static void a_if_branches(lc_b *b, int node)
{
    ir_graph *g = lc_graph(b);
    bool f = g->tensors[ir_graph_find_tensor(g, "x")].dtype == TOSAC_DT_F32;
    ir_node_set_graph(g, node, "then_branch", x_body(b, "then_branch", f ? "Add" : "Abs", f),
                      NULL);
    ir_node_set_graph(g, node, "else_branch", x_body(b, "else_branch", "Neg", 0), NULL);
}

/* Loop(M = 3, no cond, a0 = x) */
static int loop_ins(lc_b *b, int *ins, int n)
{
    (void)n;
    static const int64_t three = 3;
    ins[1] = ins[0];
    ins[0] = ir_graph_add_const(lc_graph(b), "M", TOSAC_DT_I64, 0, NULL, &three, 8, NULL);
    ins[2] = ins[1];
    ins[1] = -1;
    return 3;
}

/* body (i, c_in, a) -> (c_in, a + x) with x captured (float), or (c_in, a ^ 0x0F0F0F0F)
 * (int32: sums of arbitrary int32 values would overflow) */
static void a_loop_body(lc_b *b, int node)
{
    ir_graph *g = lc_graph(b);
    const ir_tensor *x = &g->tensors[ir_graph_find_tensor(g, "x")];
    bool f = x->dtype == TOSAC_DT_F32;
    ir_graph *body = ir_graph_new("body", g);
    ir_graph_add_input(body, "i", TOSAC_DT_I64, 0, NULL, NULL);
    int bc = ir_graph_add_input(body, "c_in", TOSAC_DT_BOOL, 0, NULL, NULL);
    int ba = ir_graph_add_input(body, "a_in", x->dtype, x->rank, x->shape, NULL);
    static const int32_t mask = 0x0F0F0F0F;
    int other = f ? ir_graph_resolve_tensor(body, "x", NULL)
                  : ir_graph_add_const(body, "mask", TOSAC_DT_I32, 0, NULL, &mask, 4, NULL);
    int co = ir_graph_add_tensor(body, "c_out", TOSAC_DT_BOOL, 0, NULL, NULL);
    int ao = ir_graph_add_tensor(body, "a_out", x->dtype, x->rank, x->shape, NULL);
    ir_graph_add_node(body, "Identity", NULL, "keep", &bc, 1, &co, 1, NULL);
    ir_graph_add_node(body, f ? "Add" : "BitwiseXor", NULL, "step", (int[]){ba, other}, 2, &ao,
                      1, NULL);
    ir_graph_mark_output(body, co, NULL);
    ir_graph_mark_output(body, ao, NULL);
    ir_node_set_graph(g, node, "body", body, NULL);
    /* Loop has no shape rule: its output is declared, the type of the carried value */
    ir_tensor *y = &g->tensors[g->nodes[node].outputs[0]];
    x = &g->tensors[ir_graph_find_tensor(g, "x")];
    y->dtype = x->dtype;
    y->rank = x->rank;
    memcpy(y->shape, x->shape, sizeof y->shape);
}

/* DFT (opset 17): onesided real along axis 2 of [2, 4, 8, 1], then (rfft2's second
 * transform) complex along axis 1 */
static void a_onesided(lc_b *b, int node)
{
    set_int(b, node, "onesided", 1);
    set_int(b, node, "axis", 2);
}
static void a_inverse(lc_b *b, int node) { set_int(b, node, "inverse", 1); }
static int dft_first(lc_b *b, int *ins, int n)
{
    int k = lc_node(b, "DFT", "rfft_w", ins, n, 1);
    a_onesided(b, k);
    ins[0] = lc_out(b, k, 0);
    return 1;
}

static void a_linear(lc_b *b, int node) { ir_node_set_string(lc_graph(b), node, "mode", "linear", NULL); }
static void a_left(lc_b *b, int node) { ir_node_set_string(lc_graph(b), node, "direction", "LEFT", NULL); }
static void a_right(lc_b *b, int node) { ir_node_set_string(lc_graph(b), node, "direction", "RIGHT", NULL); }
static void a_gs_border_align(lc_b *b, int node)
{
    ir_node_set_string(lc_graph(b), node, "padding_mode", "border", NULL);
    set_int(b, node, "align_corners", 1);
}
static void a_gs_nearest(lc_b *b, int node)
{
    ir_node_set_string(lc_graph(b), node, "mode", "nearest", NULL);
}
static void a_gs_reflection(lc_b *b, int node)
{
    ir_node_set_string(lc_graph(b), node, "padding_mode", "reflection", NULL);
}
static void a_gs_cubic(lc_b *b, int node)
{
    ir_node_set_string(lc_graph(b), node, "mode", "cubic", NULL);
}
static void a_keep0_axes2(lc_b *b, int node)
{
    a_axes2(b, node);
}

const mx_case mx_cases[] = {
    /* elementwise binary */
    {"Add", "Add", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .tosa_op = "ADD", .cols = F},
    {"Sub", "Sub", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .tosa_op = "SUB", .cols = F},
    {"Mul", "Mul", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .tosa_op = "MUL", .cols = F},
    {"Div (constant divisor)", "Div", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = divisor,
     .tosa_op = "MUL", .cols = F},
    {"Max", "Max", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .tosa_op = "MAXIMUM", .cols = F},
    {"Min", "Min", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .tosa_op = "MINIMUM", .cols = F},
    {"PRelu", "PRelu", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = slope,
     .tosa_op = "MUL", .tosa_qop = "TABLE", .cols = F},
    /* unary math */
    {"Abs", "Abs", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "ABS", .tosa_qop = "TABLE",
     .cols = F},
    {"Neg", "Neg", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "NEGATE", .cols = F},
    {"Floor", "Floor", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "FLOOR",
     .tosa_qop = "TABLE", .cols = F, STEPS},
    {"Ceil", "Ceil", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "CEIL",
     .tosa_qop = "TABLE", .cols = F, STEPS},
    {"Round", "Round", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "CAST",
     .tosa_qop = "TABLE", .cols = F, STEPS},
    {"Sign", "Sign", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "GREATER",
     .tosa_qop = "TABLE", .cols = F, STEPS},
    {"Reciprocal", "Reciprocal", .rank = X3, .n_x = 1, .lo = 0.5f, .hi = 2,
     .tosa_op = "RECIPROCAL", .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Exp", "Exp", .rank = X3, .n_x = 1, .lo = -2, .hi = 1, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F},
    {"Log", "Log", .rank = X3, .n_x = 1, .lo = 0.25f, .hi = 4, .tosa_op = "LOG",
     .tosa_qop = "TABLE", .cols = F, TABLE16Q},
    {"Sqrt", "Sqrt", .rank = X3, .n_x = 1, .lo = 0.1f, .hi = 4, .tosa_op = "RSQRT",
     .tosa_qop = "TABLE", .cols = F, TABLE16Q},
    {"Sin", "Sin", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "SIN",
     .tosa_qop = "TABLE", .cols = F},
    {"Cos", "Cos", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "COS",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Erf", "Erf", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "ERF",
     .tosa_qop = "TABLE", .cols = F},
    /* activations */
    {"Relu", "Relu", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "CLAMP",
     .tosa_qop = "CLAMP|RESCALE", .cols = F},
    {"Clip", "Clip", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = clip_bounds,
     .tosa_op = "CLAMP", .tosa_qop = "CLAMP|RESCALE", .cols = F},
    {"Sigmoid", "Sigmoid", .rank = X3, .n_x = 1, .lo = -4, .hi = 4, .tosa_op = "SIGMOID",
     .tosa_qop = "TABLE", .cols = F, TABLE16Q},
    {"Tanh", "Tanh", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "TANH",
     .tosa_qop = "TABLE", .cols = F},
    {"Elu", "Elu", .rank = X3, .n_x = 1, .lo = -3, .hi = 2, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F, TABLE16Q},
    {"LeakyRelu", "LeakyRelu", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_alpha,
     .tosa_op = "MUL", .tosa_qop = "TABLE", .cols = F},
    {"HardSigmoid", "HardSigmoid", .rank = X3, .n_x = 1, .lo = -4, .hi = 4, .tosa_op = "CLAMP",
     .tosa_qop = "TABLE", .cols = F},
    {"HardSwish", "HardSwish", .rank = X3, .n_x = 1, .lo = -4, .hi = 4, .tosa_op = "CLAMP",
     .tosa_qop = "TABLE", .cols = F},
    {"Mish", "Mish", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "TANH",
     .tosa_qop = "TABLE", .cols = F},
    {"Selu", "Selu", .rank = X3, .n_x = 1, .lo = -3, .hi = 2, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Softplus", "Softplus", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "LOG",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    /* normalisation */
    {"Softmax", "Softmax", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .attrs = a_axis_last,
     .tosa_op = "EXP", .tosa_qop = "TABLE", .cols = F},
    {"LogSoftmax", "LogSoftmax", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .attrs = a_axis_last,
     .tosa_op = "LOG", .tosa_qop = "CLZ", .cols = F},
    {"LayerNormalization", "LayerNormalization", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = ln_w, .attrs = a_axis_last, .tosa_op = "RSQRT", .cols = F, .tosa_qop = "TABLE",
     QDQCPU(10), NORM16},
    {"InstanceNormalization", "InstanceNormalization", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .more = in_w, .tosa_op = "RSQRT", .cols = F, .tosa_qop = "TABLE", QDQCPU(10), NORM16},
    {"BatchNormalization", "BatchNormalization", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .more = bn_w, .tosa_op = "MUL", .cols = F, QDQCPU(2)},
    /* convolution and matrix products */
    {"Conv", "Conv", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .more = conv_w,
     .attrs = a_pads1, .tosa_op = "CONV2D", .cols = F, .acc48 = true},
    {"Conv (depthwise)", "Conv", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .more = dw_w,
     .attrs = a_dw, .tosa_op = "DEPTHWISE_CONV2D", .cols = F, .acc48 = true},
    {"Gemm", "Gemm", .rank = X2, .n_x = 1, .lo = -2, .hi = 2, .more = gemm_w,
     .attrs = a_transb, .tosa_op = "CONV2D", .cols = F, .acc48 = true},
    {"MatMul (constant weights)", "MatMul", .rank = X2, .n_x = 1, .lo = -2, .hi = 2,
     .more = mm_w, .tosa_op = "CONV2D", .cols = F, .acc48 = true},
    {"MatMul (two activations)", "MatMul", .rank = 3, {2, 3, 4}, .n_x = 2, .rank2 = 3,
     .shape2 = {2, 4, 5}, .lo = -2, .hi = 2, .tosa_op = "MATMUL", .cols = F, .acc48 = true},
    /* pooling */
    {"MaxPool", "MaxPool", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_pool,
     .tosa_op = "MAX_POOL2D", .cols = F},
    {"AveragePool", "AveragePool", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_pool,
     /* quantized, the output scale differs: window sums rounded once (lower_pool.c) */
     .tosa_op = "AVG_POOL2D", .tosa_qop = "DEPTHWISE_CONV2D|AVG_POOL2D", .cols = F},
    {"GlobalAveragePool", "GlobalAveragePool", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .tosa_op = "AVG_POOL2D", .tosa_qop = "REDUCE_SUM|AVG_POOL2D", .cols = F},
    {"GlobalMaxPool", "GlobalMaxPool", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .tosa_op = "MAX_POOL2D", .cols = F},
    /* data layout */
    {"Reshape", "Reshape", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .more = reshape_to,
     .tosa_op = "RESHAPE", .cols = F},
    {"Flatten", "Flatten", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_axis1,
     .tosa_op = "RESHAPE", .cols = F},
    {"Squeeze", "Squeeze", .rank = 4, {2, 1, 3, 4}, .n_x = 1, .lo = -2, .hi = 2,
     .more = axis1, .tosa_op = "RESHAPE", .cols = F},
    {"Unsqueeze", "Unsqueeze", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axis1,
     .tosa_op = "RESHAPE", .cols = F},
    {"Transpose", "Transpose", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_perm,
     .tosa_op = "TRANSPOSE", .cols = F},
    {"Concat", "Concat", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .lo2 = -4, .hi2 = 1,
     .attrs = a_axis1, .tosa_op = "CONCAT", .cols = F},
    {"Split", "Split", .rank = 3, {2, 4, 3}, .n_x = 1, .lo = -2, .hi = 2, .more = split_sizes,
     .attrs = a_axis1, .n_out = 2, .tosa_op = "SLICE", .cols = F},
    {"Slice", "Slice", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = slice_args,
     .tosa_op = "SLICE", .cols = F},
    {"Pad", "Pad", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = pads4, .tosa_op = "PAD",
     .cols = F},
    {"Tile", "Tile", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = tile_reps,
     .tosa_op = "TILE", .cols = F},
    {"Expand", "Expand", .rank = 3, {2, 1, 4}, .n_x = 1, .lo = -2, .hi = 2, .more = expand_to,
     .tosa_op = "TILE", .cols = F},
    {"DepthToSpace", "DepthToSpace", .rank = 4, {1, 8, 2, 2}, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_block2, .tosa_op = "TRANSPOSE", .cols = F},
    {"SpaceToDepth", "SpaceToDepth", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_block2, .tosa_op = "TRANSPOSE", .cols = F},
    {"Resize (nearest, x2)", "Resize", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .more = resize_scales, .tosa_op = "RESIZE", .cols = F},
    /* reductions */
    {"ReduceSum", "ReduceSum", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axis1,
     .tosa_op = "REDUCE_SUM", .cols = F},
    {"ReduceMean", "ReduceMean", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axes_if18,
     .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .cols = F},
    {"ReduceMax", "ReduceMax", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axes_if18,
     .attrs = axes_attr_if13, .tosa_op = "REDUCE_MAX", .cols = F},
    {"ReduceMin", "ReduceMin", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axes_if18,
     .attrs = a_keep0, .tosa_op = "REDUCE_MIN", .cols = F},
    {"ReduceSumSquare", "ReduceSumSquare", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = axes_if18, .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .cols = F},
    {"ArgMax", "ArgMax", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .attrs = a_argmax,
     .plain = true, .tosa_op = "ARGMAX", .cols = F},
    /* comparison and selection */
    {"Equal", "Equal", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .plain = true,
     .tosa_op = "EQUAL", .cols = F},
    {"Greater", "Greater", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .plain = true,
     .tosa_op = "GREATER", .cols = F},
    {"Less", "Less", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .plain = true,
     .tosa_op = "GREATER", .cols = F},
    {"LessOrEqual", "LessOrEqual", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .plain = true,
     .tosa_op = "GREATER_EQUAL", .cols = F},
    {"Where", "Where", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .lo2 = -1, .hi2 = 3,
     .more = where_cond, .tosa_op = "SELECT", .cols = F},
    /* gathers and copies */
    {"Gather", "Gather", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = gather_idx,
     .attrs = a_axis1, .tosa_op = "GATHER", .cols = F},
    {"GatherElements", "GatherElements", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = gather_el_idx, .attrs = a_axis1, .tosa_op = "GATHER", .cols = F},
    {"Identity", "Identity", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "IDENTITY",
     .cols = MX_COL(MX_FP)},

    /* op-quant: operands the quantizer used to leave in float, and the operators it now
     * decomposes (issue 15, section 1); the --quantize columns are the ones that matter */
#define TQ (MX_TQUANT | MX_COL(MX_FP))
    {"PRelu (per-channel slope)", "PRelu", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = slope4, .tosa_op = "MUL", .cols = TQ, .nodes_q = 4},
    {"Pad (value 0.75)", "Pad", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = pad_value,
     .tosa_op = "PAD", .cols = TQ},
    {"Where (constant fill)", "Where", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = where_fill, .tosa_op = "SELECT", .cols = TQ},
    {"Max (constant operand)", "Max", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = max_const, .tosa_op = "MAXIMUM", .cols = TQ},
    {"Min (constant operand)", "Min", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = max_const, .tosa_op = "MINIMUM", .cols = TQ},
    {"Clip (tensor bounds)", "Clip", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = clip_tensor, .tosa_op = "MAXIMUM", .cols = MX_TQUANT, .nodes_q = 2},
    {"Reciprocal(Sqrt)", "Reciprocal", .rank = X3, .n_x = 1, .lo = 0.25f, .hi = 4,
     .more = sqrt_first, .tosa_op = "RSQRT|RECIPROCAL", .tosa_qop = "TABLE", .cols = TQ,
     .nodes = 2, QTOL_Q16(3, "two int16 TABLEs in a row: the first one's 1.5 steps (TABLE16) "
                          "pass through the second's slope")},
    {"Div (two activations)", "Div", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .lo2 = 0.5f,
     .hi2 = 2, .tosa_op = "RECIPROCAL", .tosa_qop = "TABLE", .cols = TQ, .nodes_q = 2,
     TABLE16Q},
    {"Floor(Div) (floor_div)", "Floor", .rank = X3, .n_x = 2, .lo = -3, .hi = 3, .lo2 = 0.5f,
     .hi2 = 2, .more = div_first, .tosa_op = "FLOOR", .tosa_qop = "TABLE",
     .cols = MX_COL(MX_Q8) | MX_COL(MX_FP), .nodes = 2, .nodes_q = 3},
    {"Gather (constant table)", "Gather", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = embedding, .tosa_op = "GATHER", .cols = MX_TQUANT | MX_COL(MX_FP), .nodes = 2},
#undef TQ

    /* int64: values beyond int32 kept under TOSA-1.1+INT+int64; under TOSA-1.0+INT a runtime
     * int64 input cannot be narrowed, so the operator stays on the CPU */
#define I64(row, op, n, tosa, ...)                                                             \
    {row " (int64)", op, .dt = TOSAC_DT_I64, .rank = X3, .n_x = n, .tosa_op = tosa, .cols = I, \
     .cpu_cols = MX_COL(MX_I64_10), .cpu_category = "int64 not kept", __VA_ARGS__}
    I64("Add", "Add", 2, "ADD"),
    I64("Sub", "Sub", 2, "SUB"),
    I64("Mul", "Mul", 2, "MUL"),
    I64("Div", "Div", 2, "INTDIV"),
    I64("Max", "Max", 2, "MAXIMUM"),
    I64("Min", "Min", 2, "MINIMUM"),
    I64("Neg", "Neg", 1, "NEGATE"),
    I64("Abs", "Abs", 1, "ABS"),
    I64("Equal", "Equal", 2, "EQUAL"),
    I64("Greater", "Greater", 2, "GREATER"),
    I64("ReduceSum", "ReduceSum", 1, "REDUCE_SUM", .more = axis1),
    I64("ReduceMax", "ReduceMax", 1, "REDUCE_MAX", .attrs = axes_attr_if13),
    I64("Concat", "Concat", 2, "CONCAT", .attrs = a_axis1),
    I64("Transpose", "Transpose", 1, "TRANSPOSE", .attrs = a_perm),
    I64("Reshape", "Reshape", 1, "RESHAPE", .more = reshape_to6),
    I64("Slice", "Slice", 1, "SLICE", .more = slice_args),
    I64("Tile", "Tile", 1, "TILE", .more = tile_reps),
    I64("Gather", "Gather", 1, "GATHER", .more = gather_idx, .attrs = a_axis1),
    I64("ArgMax", "ArgMax", 1, "ARGMAX", .attrs = a_argmax),
    I64("Identity", "Identity", 1, "IDENTITY"),
    I64("BitwiseAnd", "BitwiseAnd", 2, "BITWISE_AND"),
    I64("BitwiseOr", "BitwiseOr", 2, "BITWISE_OR"),
    I64("BitwiseXor", "BitwiseXor", 2, "BITWISE_XOR"),
    I64("BitwiseNot", "BitwiseNot", 1, "BITWISE_NOT"),

    /* ---- op-lower (issue 15, section 2) ---- */
    {"ConvTranspose", "ConvTranspose", .rank = X4, .n_x = 1, .lo = -2, .hi = 2, .more = tconv_w,
     .attrs = a_tconv, .tosa_op = "TRANSPOSE_CONV2D", .cols = F, .acc48 = true},
    {"ConvTranspose (depthwise)", "ConvTranspose", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .more = tconv_dw_w, .attrs = a_tconv_dw, .tosa_op = "TRANSPOSE_CONV2D", .cols = F,
     .acc48 = true},
    {"Acos", "Acos", .rank = X3, .n_x = 1, .lo = -0.9f, .hi = 0.9f, .tosa_op = "RSQRT",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Acosh", "Acosh", .rank = X3, .n_x = 1, .lo = 1.2f, .hi = 4, .tosa_op = "LOG",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Asin", "Asin", .rank = X3, .n_x = 1, .lo = -0.9f, .hi = 0.9f, .tosa_op = "RSQRT",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Asinh", "Asinh", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .tosa_op = "LOG",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Atan", "Atan", .rank = X3, .n_x = 1, .lo = -4, .hi = 4, .tosa_op = "RECIPROCAL",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Atanh", "Atanh", .rank = X3, .n_x = 1, .lo = -0.9f, .hi = 0.9f, .tosa_op = "LOG",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Cosh", "Cosh", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Sinh", "Sinh", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Tan", "Tan", .rank = X3, .n_x = 1, .lo = -1, .hi = 1, .tosa_op = "SIN",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Celu", "Celu", .rank = X3, .n_x = 1, .lo = -3, .hi = 2, .tosa_op = "EXP",
     .tosa_qop = "TABLE", .cols = F, TABLE16},
    {"Pow (constant exponent 2)", "Pow", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = exponent2, .tosa_op = "MUL", .tosa_qop = "TABLE", .cols = F, TABLE16},
    /* FP only: the peer tests tensor ** tensor under FP alone (backend_matrix_peer.c) */
    {"Pow (runtime exponent)", "Pow", .rank = X3, .n_x = 2, .lo = 0.5f, .hi = 2, .lo2 = -1,
     .hi2 = 2, .tosa_op = "POW", .cols = MX_COL(MX_FP)},
    {"Mod (fmod=1)", "Mod", .rank = X3, .n_x = 2, .lo = -3, .hi = 3, .lo2 = 0.5f, .hi2 = 2,
     .attrs = a_fmod1, .tosa_op = "FLOOR", .cols = F, QCPU},
    {"CumSum", "CumSum", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axis2,
     .attrs = a_exclusive, .tosa_op = "MATMUL", .cols = F},
    {"Trilu", "Trilu", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = trilu_k,
     .tosa_op = "SELECT", .cols = F},
    {"ScatterND", "ScatterND", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = scatter_args,
     .tosa_op = "SCATTER", .cols = F},

    /* ---- op-shape (issue 15, sections 3-5) ---- */
    {"Conv (1-D)", "Conv", .rank = 3, {1, 2, 10}, .n_x = 1, .lo = -2, .hi = 2, .more = conv1d_w,
     .attrs = a_pads1_1d, .tosa_op = "CONV2D", .cols = F, .acc48 = true},
    {"Conv (3-D)", "Conv", .rank = 5, {1, 2, 3, 4, 4}, .n_x = 1, .lo = -2, .hi = 2,
     .more = conv3d_w, .attrs = a_pads1_3d, .tosa_op = "CONV3D", .cols = F, .acc48 = true},
    {"Conv (grouped)", "Conv", .rank = 4, {1, 4, 5, 5}, .n_x = 1, .lo = -2, .hi = 2,
     .more = group_w, .attrs = a_group2, .tosa_op = "CONV2D", .cols = F, .acc48 = true},
    {"Gemm (runtime B and C)", "Gemm", .rank = 2, {3, 8}, .n_x = 2, .rank2 = 2,
     .shape2 = {5, 8}, .lo = -2, .hi = 2, .more = gemm_c, .attrs = a_transb,
     .tosa_op = "MATMUL", .cols = F, .acc48 = true},
    {"MaxPool (1-D)", "MaxPool", .rank = 3, {1, 2, 10}, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_pool1d, .tosa_op = "MAX_POOL2D", .cols = F},
    {"AveragePool (1-D)", "AveragePool", .rank = 3, {1, 2, 10}, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_pool1d, .tosa_op = "AVG_POOL2D", .tosa_qop = "DEPTHWISE_CONV2D|AVG_POOL2D",
     .cols = F},
    {"Softmax (axis 1 of 3)", "Softmax", .rank = X3, .n_x = 1, .lo = -3, .hi = 3,
     .attrs = a_axis1, .tosa_op = "EXP", .tosa_qop = "TABLE", .cols = F},
    {"ReduceL1", "ReduceL1", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axes_if18,
     .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .cols = F},
    {"ReduceL2", "ReduceL2", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = axes_if18,
     .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .tosa_qop = "INTDIV", .cols = F},
    /* ---- peer rows (backend_matrix_peer.c) ---- */
#define TQ (MX_TQUANT | MX_COL(MX_FP))
/* TOSA-1.0 has these only in PRO-INT: under TOSA-1.0+FP the node stays on the CPU */
#define INT_ONLY .cpu_cols = MX_COL(MX_FP), .cpu_category = "needs a profile or extension"
#define I32R(row, op, n, tosa, ...)                                                            \
    {row, op, .dt = TOSAC_DT_I32, .rank = X3, .n_x = n, .plain = true, .tosa_op = tosa,        \
     .cols = MX_COL(MX_I8) | MX_COL(MX_FP), __VA_ARGS__}
    {"Identity (--quantize)", "Identity", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .tosa_op = "IDENTITY", .cols = MX_TQUANT},
    {"Add (ConstantOfShape operand)", "Add", .rank = X2, .n_x = 1, .lo = -2, .hi = 2,
     .more = const_of_shape, .tosa_op = "ADD", .cols = TQ},
    {"Add (Range operand)", "Add", .rank = X2, .n_x = 1, .lo = -2, .hi = 2,
     .more = range_operand, .tosa_op = "ADD", .cols = TQ},
    {"Add (EyeLike operand)", "Add", .rank = X2, .n_x = 1, .lo = -2, .hi = 2,
     .more = eye_operand, .tosa_op = "ADD", .cols = TQ},
    {"GreaterOrEqual", "GreaterOrEqual", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .plain = true,
     .tosa_op = "GREATER_EQUAL", .cols = F},
    {"Slice (step -1)", "Slice", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = flip_args,
     .tosa_op = "REVERSE", .cols = F},
    {"Resize (linear, x2)", "Resize", .rank = X4, .n_x = 1, .lo = -2, .hi = 2,
     .more = resize_scales, .attrs = a_linear, .tosa_op = "RESIZE", .cols = F},
    {"Gather (scalar index)", "Gather", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = gather_scalar, .attrs = a_axis1, .tosa_op = "GATHER", .cols = F},
    {"Gelu (Erf form)", "Mul", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .more = gelu_chain,
     .tosa_op = "ERF", .tosa_qop = "TABLE", .cols = TQ, .nodes = 5},
    {"GLU (Split, Sigmoid, Mul)", "Mul", .rank = 3, {2, 3, 8}, .n_x = 1, .lo = -3, .hi = 3,
     .more = glu_chain, .tosa_op = "SIGMOID", .tosa_qop = "TABLE", .cols = TQ, .nodes = 3,
     QTOL_Q16(2, "an int16 TABLE (TABLE16) inside the chain")},
    {"SiLU (Sigmoid, Mul)", "Mul", .rank = X3, .n_x = 1, .lo = -3, .hi = 3, .more = silu_chain,
     .tosa_op = "SIGMOID", .tosa_qop = "TABLE", .cols = TQ, .nodes = 2},
    {"Logit (Sub, Div, Log)", "Log", .rank = X3, .n_x = 1, .lo = 0.1f, .hi = 0.9f,
     .more = logit_chain, .tosa_op = "LOG", .tosa_qop = "TABLE",
     .cols = MX_COL(MX_Q8) | MX_COL(MX_FP), .nodes = 3,
     .nodes_q = 4},
    {"Not(Equal)", "Not", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .more = equal_first,
     .plain = true, .tosa_op = "LOGICAL_NOT", .cols = TQ, .nodes = 2},
    {"And", "And", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .more = logical_args,
     .plain = true, .tosa_op = "LOGICAL_AND", .cols = TQ, .nodes = 2},
    {"Or", "Or", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .more = logical_args,
     .plain = true, .tosa_op = "LOGICAL_OR", .cols = TQ, .nodes = 2},
    {"Xor", "Xor", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .more = logical_args,
     .plain = true, .tosa_op = "LOGICAL_XOR", .cols = TQ, .nodes = 2},
    {"Not", "Not", .rank = X3, .n_x = 2, .lo = -2, .hi = 2, .more = greater_first,
     .plain = true, .tosa_op = "LOGICAL_NOT", .cols = TQ, .nodes = 2},
    {"Remainder (Div, Floor, Mul, Sub)", "Sub", .rank = X3, .n_x = 2, .lo = -3, .hi = 3,
     .lo2 = 0.5f, .hi2 = 2, .more = remainder_chain, .tosa_op = "FLOOR", .tosa_qop = "TABLE",
     .cols = MX_COL(MX_Q8) | MX_COL(MX_FP), .nodes = 4, .nodes_q = 5},
    {"Expm1 (Exp, Sub)", "Sub", .rank = X3, .n_x = 1, .lo = -2, .hi = 1, .more = exp_minus1,
     .tosa_op = "EXP", .tosa_qop = "TABLE", .cols = TQ, .nodes = 2,
     QTOL_Q16(3, "the Exp TABLE's 1.5 steps (TABLE16) at its own scale are 1.6 output steps "
                 "each (expm1's range is smaller), plus the Sub's rounding")},
    {"Log10 (Log, Div)", "Div", .rank = X3, .n_x = 1, .lo = 0.25f, .hi = 4,
     .more = log_over_ln10, .tosa_op = "LOG", .tosa_qop = "TABLE", .cols = TQ, .nodes = 2,
     TABLE16Q},
    {"Log1p (Add, Log)", "Log", .rank = X3, .n_x = 1, .lo = 0, .hi = 3, .more = plus1,
     .tosa_op = "LOG", .tosa_qop = "TABLE", .cols = TQ, .nodes = 2, TABLE16Q},
    {"Var (ReduceMean, Sub, Mul, ReduceMean)", "ReduceMean", .rank = X3, .n_x = 1, .lo = -2,
     .hi = 2, .more = var_chain, .attrs = a_keep0_axes2, .tosa_op = "REDUCE_SUM", .cols = TQ,
     .nodes = 4},
    {"Attention (MatMul, Mul, Softmax, MatMul)", "MatMul", .rank = 3, {2, 3, 4}, .n_x = 2,
     .rank2 = 3, .shape2 = {2, 4, 3}, .lo = -2, .hi = 2, .more = attention_chain,
     .tosa_op = "MATMUL", .cols = TQ, .nodes = 4,
     QTOL_Q16(3, "the Softmax's int16 TABLEs, then a MatMul summing three of its outputs")},
    {"Stack (Unsqueeze, Concat)", "Concat", .rank = X3, .n_x = 2, .lo = -2, .hi = 2,
     .more = unsqueeze_both, .attrs = a_axis1, .tosa_op = "CONCAT", .cols = TQ, .nodes = 3},
    {"Cast (float to int32 to float)", "Cast", .rank = X3, .n_x = 1, .lo = -20, .hi = 20,
     .more = cast_first_i32, .attrs = a_to_f32, .tosa_op = "CAST", .cols = MX_COL(MX_FP),
     .nodes = 2},
    {"ReduceMax (int32 mask: any)", "Cast", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = any_chain, .attrs = a_to_bool, .plain = true, .int_model = true,
     .tosa_op = "REDUCE_MAX", .cols = MX_COL(MX_I8) | MX_COL(MX_Q8), .nodes = 3},
    {"ReduceMax (float mask: any)", "Greater", .rank = X3, .n_x = 1, .lo = -2, .hi = 2,
     .more = any_float_chain, .plain = true, .tosa_op = "REDUCE_MAX", .cols = MX_COL(MX_FP),
     .nodes = 3},
    I32R("BitwiseAnd (int32)", "BitwiseAnd", 2, "BITWISE_AND", INT_ONLY),
    I32R("BitwiseOr (int32)", "BitwiseOr", 2, "BITWISE_OR", INT_ONLY),
    I32R("BitwiseXor (int32)", "BitwiseXor", 2, "BITWISE_XOR", INT_ONLY),
    I32R("BitwiseNot (int32)", "BitwiseNot", 1, "BITWISE_NOT", INT_ONLY),
    I32R("BitShift (left by 2, int32)", "BitShift", 1, "LOGICAL_LEFT_SHIFT", .more = shift2,
         .attrs = a_left),
    I32R("BitShift (right by 2, int32)", "BitShift", 1, "LOGICAL_RIGHT_SHIFT", .more = shift2,
         .attrs = a_right),
    I32R("Cast (int32 to int8)", "Cast", 1, "CAST", .attrs = a_to_i8, INT_ONLY),
    {"DFT (real, onesided, +fft)", "DFT", .rank = 4, {2, 4, 8, 1}, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_onesided, .tosa_op = "RFFT2D", .cols = MX_COL(MX_FP), .opset = 17,
     .spec_ext = "+fft"},
    {"DFT (complex, inverse, +fft)", "DFT", .rank = 3, {2, 8, 2}, .n_x = 1, .lo = -2, .hi = 2,
     .attrs = a_inverse, .tosa_op = "FFT2D", .cols = MX_COL(MX_FP), .opset = 17,
     .spec_ext = "+fft"},
    {"DFT x2 (rfft2: real onesided on W, complex on H, +fft)", "DFT", .rank = 4, {2, 4, 8, 1},
     .n_x = 1, .lo = -2, .hi = 2, .more = dft_first, .tosa_op = "FFT2D",
     .cols = MX_COL(MX_FP), .opset = 17, .spec_ext = "+fft", .nodes = 2},
    {"If (then branch, +cf)", "If", .rank = X3, .n_x = 1, .lo = 0.25, .hi = 2, .more = if_cond,
     .attrs = a_if_branches, .tosa_op = "COND_IF", .cols = MX_COL(MX_FP) | MX_TQUANT, .nodes = 3,
     .spec_ext = "+cf"},
    {"If (else branch, +cf)", "If", .rank = X3, .n_x = 1, .lo = -2, .hi = -0.25,
     .more = if_cond, .attrs = a_if_branches, .tosa_op = "COND_IF",
     .cols = MX_COL(MX_FP) | MX_TQUANT,
     .nodes = 3, .spec_ext = "+cf"},
    {"If (int32, +cf)", "If", .dt = TOSAC_DT_I32, .rank = X3, .n_x = 1, .plain = true,
     .more = if_cond, .attrs = a_if_branches, .tosa_op = "COND_IF", .cols = MX_COL(MX_I8),
     .nodes = 3, .spec_ext = "+cf"},
    {"Loop (M = 3, +cf)", "Loop", .rank = X3, .n_x = 1, .lo = -2, .hi = 2, .more = loop_ins,
     .attrs = a_loop_body, .tosa_op = "WHILE_LOOP", .cols = MX_COL(MX_FP) | MX_TQUANT,
     .spec_ext = "+cf"},
    {"Loop (int32, M = 3, +cf)", "Loop", .dt = TOSAC_DT_I32, .rank = X3, .n_x = 1,
     .plain = true, .more = loop_ins, .attrs = a_loop_body, .tosa_op = "WHILE_LOOP",
     .cols = MX_COL(MX_I8), .spec_ext = "+cf"},
    /* GridSample: X [1, 3, 8, 8], grid [1, 4, 4, 2] in [-1.2, 1.2] (some taps outside) */
    {"GridSample (bilinear, zeros)", "GridSample", .rank = 4, {1, 3, 8, 8}, .n_x = 2,
     .rank2 = 4, .shape2 = {1, 4, 4, 2}, .lo = -2, .hi = 2, .lo2 = -1.2f, .hi2 = 1.2f,
     .tosa_op = "GATHER", .cols = MX_COL(MX_FP), .opset = 16},
    {"GridSample (linear, border, align_corners, opset 20)", "GridSample", .rank = 4,
     {1, 3, 8, 8}, .n_x = 2, .rank2 = 4, .shape2 = {1, 4, 4, 2}, .lo = -2, .hi = 2,
     .lo2 = -1.2f, .hi2 = 1.2f, .attrs = a_gs_border_align, .tosa_op = "GATHER",
     .cols = MX_COL(MX_FP), .opset = 20},
    {"GridSample (nearest, zeros, opset 20)", "GridSample", .rank = 4, {1, 3, 8, 8},
     .n_x = 2, .rank2 = 4, .shape2 = {1, 4, 4, 2}, .lo = -2, .hi = 2, .lo2 = -1.2f,
     .hi2 = 1.2f, .attrs = a_gs_nearest, .tosa_op = "GATHER", .cols = MX_COL(MX_FP),
     .opset = 20},
    {"GridSample (cubic, zeros, opset 20)", "GridSample", .rank = 4, {1, 3, 8, 8}, .n_x = 2,
     .rank2 = 4, .shape2 = {1, 4, 4, 2}, .lo = -2, .hi = 2, .lo2 = -1.2f, .hi2 = 1.2f,
     .attrs = a_gs_cubic, .tosa_op = "GATHER", .cols = MX_COL(MX_FP), .opset = 20},
    {"GridSample (bilinear, reflection)", "GridSample", .rank = 4, {1, 3, 8, 8}, .n_x = 2,
     .rank2 = 4, .shape2 = {1, 4, 4, 2}, .lo = -2, .hi = 2, .lo2 = -3, .hi2 = 3,
     .attrs = a_gs_reflection, .tosa_op = "GATHER", .cols = MX_COL(MX_FP), .opset = 16},
#undef I32R
#undef INT_ONLY
#undef TQ
};
const int mx_n_cases = (int)(sizeof mx_cases / sizeof mx_cases[0]);
