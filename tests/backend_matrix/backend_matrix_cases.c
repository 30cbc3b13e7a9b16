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
     .tosa_op = "LOG", .cols = F, QCPU},
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
     .more = axes_if18, .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .cols = F, QCPU},
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
     .more = embedding, .tosa_op = "GATHER", .cols = MX_TQUANT, .nodes = 2},
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
    {"Pow (runtime exponent)", "Pow", .rank = X3, .n_x = 2, .lo = 0.5f, .hi = 2, .lo2 = -1,
     .hi2 = 2, .tosa_op = "POW", .cols = F, QCPU},
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
     .tosa_op = "MATMUL", .cols = F, .acc48 = true,
     .cpu_cols = MX_COL(MX_I16) | MX_COL(MX_Q16), .cpu_category = "case not handled by the lowering"},
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
     .attrs = axes_attr_if13, .tosa_op = "REDUCE_SUM", .cols = F, QCPU},
};
const int mx_n_cases = (int)(sizeof mx_cases / sizeof mx_cases[0]);
