/* Conv, ConvTranspose, Gemm and MatMul (float). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "cpu/cpu_geometry.h"
#include "kernels/gemm.h"
#include "onnxop/onnxop_matmul.h"

static void to_params(const cpu_geom *g, int64_t n, int64_t cin, int64_t m, int64_t group,
                      kern_conv_params *p)
{
    memset(p, 0, sizeof *p);
    p->nsp = g->nsp;
    p->n = n;
    p->c = cin;
    p->m = m;
    p->group = group;
    for (int i = 0; i < g->nsp; i++) {
        p->in[i] = g->in[i];
        p->k[i] = g->k[i];
        p->out[i] = g->out[i];
        p->stride[i] = g->s[i];
        p->dil[i] = g->d[i];
        p->pad[i] = g->pb[i];
    }
}

tosac_code cpu_conv_setup(cpu_ctx *c, const tosac_tensor *x, const tosac_tensor *w,
                          kern_conv_params *p, int64_t *yshape)
{
    CPU_CHECK(c, w->rank == x->rank, "weight rank %d differs from input rank %d", w->rank,
              x->rank);
    const cpu_conv_prep *pp = c->prep;
    int64_t group = pp->group;
    CPU_CHECK(c, x->rank >= 3, "input must have rank 3 to 5, got %d", x->rank);
    /* group >= 1: checked at prepare */
    CPU_CHECK(c, x->shape[1] % group == 0 && w->shape[0] % group == 0,
              "group %lld does not divide the channels", (long long)group);
    CPU_CHECK(c, w->shape[1] * group == x->shape[1],
              "weight has %lld input channels per group, input has %lld channels in %lld groups",
              (long long)w->shape[1], (long long)x->shape[1], (long long)group);
    cpu_geom g;
    onnx_window win;
    const onnx_window *pw = &pp->w;
    tosac_code rc = TOSAC_OK;
    if (!pp->have_w || pp->w.nsp != x->rank - 2) { /* rank not declared as it came */
        if (!(rc = cpu_geom_window(c, x, &win)))
            win.ceil_mode = 0;
        pw = &win;
    }
    if (!rc)
        rc = cpu_geom_forward_w(c, pw, x, w->shape + 2, &g);
    if (rc)
        return rc;
    for (int i = 0; pw->has_k && i < g.nsp; i++)
        CPU_CHECK(c, pw->k[i] == w->shape[2 + i], "kernel_shape disagrees with the weight shape");
    to_params(&g, x->shape[0], x->shape[1], w->shape[0], group, p);
    yshape[0] = x->shape[0];
    yshape[1] = w->shape[0];
    for (int i = 0; i < g.nsp; i++)
        yshape[2 + i] = g.out[i];
    return TOSAC_OK;
}

/* Data derived from a constant operand once, in the node's prepared block: a tag (which
 * variant's layout), then `floats` floats that pack(params, src, dst) fills and tags; the
 * block is refilled when new or when the active variant's tag (tag_now) differs. NULL:
 * nothing to keep (floats 0) or the executor keeps no block. */
typedef int (*pack_fn)(const void *params, const float *src, float *dst);

static const float *packed_block(cpu_ctx *c, size_t floats, int tag_now, pack_fn pack,
                                 const void *params, const float *src, int *tag)
{
    int fresh;
    unsigned char *blk = floats ? cpu_prepared(c, 16 + floats * sizeof(float), &fresh) : NULL;
    if (!blk)
        return NULL;
    int *have = (int *)blk;
    if (fresh || *have != tag_now)
        *have = pack(params, src, (float *)(blk + 16));
    *tag = *have;
    return (const float *)(blk + 16);
}

static int pack_conv(const void *p, const float *w, float *dst)
{
    return kern_conv_f32_pack(p, w, dst);
}

/* Constant weights are packed for the product once (kern_conv_f32_pack's layout, whose size
 * follows from the weight [M, C/group, k...] and group alone); NULL: not packed
 * (depthwise, or the executor keeps no block). */
static const float *packed_weights(cpu_ctx *c, const kern_conv_params *p, const float *w,
                                   int *tag)
{
    return packed_block(c, kern_conv_f32_packed_size(p), kern_conv_f32_pack_tag(), pack_conv, p,
                        w, tag);
}

static int pack_gemm_b(const void *p, const float *b, float *dst)
{
    return kern_gemm_f32_pack_b(p, b, dst);
}

/* A constant B of a Gemm or MatMul is packed for the product once (kern_gemm_f32_pack_b's
 * layout, whose size follows from m, n and k); sets p->b_packed (NULL: not packed, a
 * product of few rows, or the executor keeps no block). */
static void packed_b(cpu_ctx *c, kern_gemm_params *p, const float *b)
{
    p->b_packed = packed_block(c, kern_gemm_f32_packed_b_size(p), kern_gemm_f32_pack_b_tag(),
                               pack_gemm_b, p, b, &p->b_packed_tag);
}

/* The constant f32 matrix B (input 1) of a Gemm or MatMul node and the rows m of its
 * declared output (its next-to-last dimension): what the pack steps pack; 0 when there is
 * none or m is not known (eval then packs on its first run, if at all). */
static int const_b(cpu_ctx *c, tosac_tensor *b, int64_t *m)
{
    const ir_node *n = c->node;
    if (n->n_inputs < 2 || n->inputs[1] < 0 || n->n_outputs < 1 || n->outputs[0] < 0 ||
        !ir_graph_const_value(c->g, n->inputs[1], b))
        return 0;
    const ir_tensor *y = &c->g->tensors[n->outputs[0]];
    int64_t nb = tosac_tensor_numel(b);
    if (b->dtype != TOSAC_DT_F32 || b->rank != 2 || nb <= 0 ||
        b->nbytes != (size_t)nb * sizeof(float) || y->rank < 2)
        return 0; /* eval refuses a wrong one, naming what is wrong */
    *m = y->shape[y->rank - 2];
    return *m > 0;
}

/* The pack step: the block op_conv's first run would fill, filled from the constant weight
 * before any run (the parameters packing reads: channels, filters, group, kernel). */
static tosac_code conv_pack(cpu_ctx *c)
{
    const cpu_conv_prep *pp = c->prep;
    tosac_tensor w;
    if (!pp || c->node->n_inputs < 2 || c->node->inputs[1] < 0 ||
        !ir_graph_const_value(c->g, c->node->inputs[1], &w))
        return TOSAC_OK;
    int64_t n = tosac_tensor_numel(&w);
    if (w.dtype != TOSAC_DT_F32 || w.rank < 3 || w.rank > 5 || n <= 0 || pp->group < 1 ||
        w.shape[0] % pp->group || w.nbytes != (size_t)n * sizeof(float))
        return TOSAC_OK; /* eval refuses it, naming what is wrong */
    /* group divides shape[0]: group * shape[1] <= n, no overflow */
    kern_conv_params p;
    memset(&p, 0, sizeof p);
    p.nsp = w.rank - 2;
    p.n = 1;
    p.c = w.shape[1] * pp->group;
    p.m = w.shape[0];
    p.group = pp->group;
    for (int i = 0; i < p.nsp; i++)
        p.k[i] = w.shape[2 + i];
    int tag;
    packed_weights(c, &p, w.data, &tag);
    return TOSAC_OK;
}

static tosac_code conv_f32_prepare(cpu_ctx *c, void *st) { return cpu_prep_conv.prepare(c, st); }
static const cpu_op_prep conv_f32_prep = {conv_f32_prepare, sizeof(cpu_conv_prep), conv_pack};

static tosac_code op_conv(cpu_ctx *c)
{
    const tosac_tensor *x, *w, *b = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &w);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, w->dtype == x->dtype, "weight type differs from input type");
    kern_conv_params p;
    int64_t ys[TOSAC_MAX_RANK];
    if ((rc = cpu_conv_setup(c, x, w, &p, ys)))
        return rc;
    if (b)
        CPU_CHECK(c, b->dtype == x->dtype && tosac_tensor_numel(b) == p.m,
                  "bias must be %lld values of the input type", (long long)p.m);
    tosac_tensor *y;
    if ((rc = cpu_out_uninit(c, 0, x->dtype, x->rank, ys, &y)))
        return rc;
    int tag = 0;
    const float *wp = cpu_input_is_const(c, 1) ? packed_weights(c, &p, w->data, &tag) : NULL;
    float *scratch = cpu_scratch(c, kern_conv_f32_scratch(&p) * sizeof(float));
    if (!scratch)
        return TOSAC_ERR_INTERNAL;
    kern_conv_f32_packed(&p, x->data, w->data, wp, tag, b ? b->data : NULL, c->act, y->data,
                         scratch);
    return TOSAC_OK;
}

static tosac_code op_conv_transpose(cpu_ctx *c)
{
    const tosac_tensor *x, *w, *b = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &w);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, x, "input", TOSAC_DT_F32, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, w->dtype == x->dtype && w->rank == x->rank, "weight must match the input");
    const cpu_conv_prep *pp = c->prep;
    int64_t group = pp->group;
    CPU_CHECK(c, w->shape[0] == x->shape[1] && x->shape[1] % group == 0, /* group >= 1: prepare */
              "weight [C, M/group, k...] does not match input channels %lld",
              (long long)x->shape[1]);
    cpu_geom g;
    if (pp->have_w && pp->w.nsp == x->rank - 2)
        rc = cpu_geom_transpose_w(c, &pp->w, x, w->shape + 2, &g);
    else
        rc = cpu_geom_transpose(c, x, w->shape + 2, &g); /* the rank was not declared as it came */
    if (rc)
        return rc;
    kern_conv_params p;
    to_params(&g, x->shape[0], x->shape[1], w->shape[1] * group, group, &p);
    if (b)
        CPU_CHECK(c, tosac_tensor_numel(b) == p.m, "bias must have %lld values", (long long)p.m);
    int64_t ys[TOSAC_MAX_RANK] = {x->shape[0], p.m};
    for (int i = 0; i < g.nsp; i++)
        ys[2 + i] = g.out[i];
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, ys, &y)))
        return rc;
    kern_conv_transpose_f32(&p, x->data, w->data, b ? b->data : NULL, y->data);
    return TOSAC_OK;
}

/* Gemm's attributes, read once (prepare step). */
typedef struct gemm_prep {
    int trans_a, trans_b;
    float alpha, beta;
    int b_const;    /* B is a constant of the program: packed once (packed_b) */
} gemm_prep;

static tosac_code gemm_prepare(cpu_ctx *c, void *st)
{
    gemm_prep *p = st;
    p->trans_a = (int)cpu_attr_i(c, "transA", 0);
    p->trans_b = (int)cpu_attr_i(c, "transB", 0);
    p->alpha = cpu_attr_f(c, "alpha", 1.0f);
    p->beta = cpu_attr_f(c, "beta", 1.0f);
    p->b_const = cpu_input_is_const(c, 1);
    return TOSAC_OK;
}

/* The pack step: the block op_gemm's first run would fill, from the constant B. */
static tosac_code gemm_pack(cpu_ctx *c)
{
    const gemm_prep *gp = c->prep;
    tosac_tensor b;
    int64_t m;
    if (!gp || !const_b(c, &b, &m))
        return TOSAC_OK;
    kern_gemm_params p = {.m = m, .trans_b = gp->trans_b};
    p.k = b.shape[gp->trans_b ? 1 : 0];
    p.n = b.shape[gp->trans_b ? 0 : 1];
    packed_b(c, &p, b.data);
    return TOSAC_OK;
}

static const cpu_op_prep gemm_prep_op = {gemm_prepare, sizeof(gemm_prep), gemm_pack};

static tosac_code op_gemm(cpu_ctx *c)
{
    const tosac_tensor *a, *b, *cc = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &a);
    if (!rc)
        rc = cpu_req(c, 1, &b);
    if (rc)
        return rc;
    if ((rc = cpu_dtype_in(c, a, "input", TOSAC_DT_F32, TOSAC_DT_F64, TOSAC_DT_UNKNOWN)))
        return rc;
    CPU_CHECK(c, a->rank == 2 && b->rank == 2, "A and B must be matrices");
    CPU_CHECK(c, b->dtype == a->dtype && (!cc || cc->dtype == a->dtype), "operand types differ");
    const gemm_prep *gp = c->prep;
    kern_gemm_params p = {0};
    p.trans_a = gp->trans_a;
    p.trans_b = gp->trans_b;
    p.alpha = gp->alpha;
    p.beta = gp->beta;
    p.m = a->shape[p.trans_a ? 1 : 0];
    p.k = a->shape[p.trans_a ? 0 : 1];
    p.n = b->shape[p.trans_b ? 0 : 1];
    CPU_CHECK(c, b->shape[p.trans_b ? 1 : 0] == p.k, "inner dimensions differ (%lld and %lld)",
              (long long)p.k, (long long)b->shape[p.trans_b ? 1 : 0]);
    if (cc) {
        CPU_CHECK(c, cc->rank <= 2, "C must have rank <= 2");
        int64_t cr = cc->rank == 2 ? cc->shape[0] : 1;
        int64_t ccol = cc->rank >= 1 ? cc->shape[cc->rank - 1] : 1;
        CPU_CHECK(c, (cr == 1 || cr == p.m) && (ccol == 1 || ccol == p.n),
                  "C does not broadcast to [%lld, %lld]", (long long)p.m, (long long)p.n);
        p.c_rs = cr == 1 ? 0 : ccol;
        p.c_cs = ccol == 1 ? 0 : 1;
    }
    int64_t ys[2] = {p.m, p.n};
    tosac_tensor *y;
    if ((rc = cpu_out_uninit(c, 0, a->dtype, 2, ys, &y)))
        return rc;
    if (a->dtype == TOSAC_DT_F32) {
        float *scratch = cpu_scratch(c, kern_gemm_f32_scratch(&p) * sizeof(float));
        if (!scratch)
            return TOSAC_ERR_INTERNAL;
        if (gp->b_const)
            packed_b(c, &p, b->data);
        kern_gemm_f32(&p, a->data, b->data, cc ? cc->data : NULL, y->data, scratch);
    }
    else
        kern_gemm_f64(&p, a->data, b->data, cc ? cc->data : NULL, y->data);
    return TOSAC_OK;
}

tosac_code cpu_matmul_shapes(cpu_ctx *c, const tosac_tensor *a, const tosac_tensor *b,
                             tosac_dtype ydt, cpu_mm_fn fn, void *ctx)
{
    onnx_matmul_dims md;
    if (onnx_matmul_dims_of(c->node, a->rank, a->shape, b->rank, b->shape, &md, c->err))
        return c->err->code;
    int64_t m = md.m, k = md.k, n = md.n, *batch = md.batch;
    int r = md.nb;
    int64_t ast[TOSAC_MAX_RANK], bst[TOSAC_MAX_RANK];
    int64_t sa = m * k, sb = k * n;
    for (int d = r - 1; d >= 0; d--) {
        ast[d] = md.a_batch[d] == 1 ? 0 : sa;
        bst[d] = md.b_batch[d] == 1 ? 0 : sb;
        sa *= md.a_batch[d];
        sb *= md.b_batch[d];
    }
    tosac_tensor *y;
    tosac_code rc = cpu_out_uninit(c, 0, ydt, md.yrank, md.y, &y); /* every product writes all */
    if (rc)
        return rc;
    int64_t nb = 1;
    for (int d = 0; d < r; d++)
        nb *= batch[d];
    int64_t idx[TOSAC_MAX_RANK] = {0};
    for (int64_t bi = 0; bi < nb; bi++) {
        int64_t ao = 0, bo = 0;
        for (int d = 0; d < r; d++) {
            ao += idx[d] * ast[d];
            bo += idx[d] * bst[d];
        }
        fn(ctx, y->data, ao, bo, bi * m * n, m, n, k);
        for (int d = r - 1; d >= 0; d--) {
            if (++idx[d] < batch[d])
                break;
            idx[d] = 0;
        }
    }
    return TOSAC_OK;
}

typedef struct mm_ctx {
    tosac_dtype dt;
    const void *a, *b;
    float *scratch; /* f32: kern_gemm_f32_scratch of one batch item */
    const float *b_packed;  /* f32, B a constant matrix: packed once (then bo is 0) */
    int b_packed_tag;
} mm_ctx;

static void mm_any(void *ctx, void *y, int64_t ao, int64_t bo, int64_t yo, int64_t m, int64_t n,
                   int64_t k)
{
    mm_ctx *c = ctx;
    kern_gemm_params p = {.m = m, .n = n, .k = k, .alpha = 1, .b_packed = c->b_packed,
                          .b_packed_tag = c->b_packed_tag};
    if (c->dt == TOSAC_DT_F32)
        kern_gemm_f32(&p, (const float *)c->a + ao, (const float *)c->b + bo, NULL,
                      (float *)y + yo, c->scratch);
    else if (c->dt == TOSAC_DT_F64)
        kern_gemm_f64(&p, (const double *)c->a + ao, (const double *)c->b + bo, NULL,
                      (double *)y + yo);
    else {
        size_t es = tosac_dtype_size(c->dt);
        kern_matmul_int(c->dt, m, n, k, (const char *)c->a + ao * (int64_t)es,
                        (const char *)c->b + bo * (int64_t)es, (char *)y + yo * (int64_t)es);
    }
}

/* MatMul has no attribute: prepared is whether B is a constant matrix (packed once). */
typedef struct matmul_prep {
    int b_const;
} matmul_prep;

static tosac_code matmul_prepare(cpu_ctx *c, void *st)
{
    ((matmul_prep *)st)->b_const = cpu_input_is_const(c, 1);
    return TOSAC_OK;
}

/* The pack step: the block op_matmul's first run would fill, from the constant B [k, n]. */
static tosac_code matmul_pack(cpu_ctx *c)
{
    tosac_tensor b;
    int64_t m;
    if (!c->prep || !const_b(c, &b, &m))
        return TOSAC_OK;
    kern_gemm_params p = {.m = m, .n = b.shape[1], .k = b.shape[0]};
    packed_b(c, &p, b.data);
    return TOSAC_OK;
}

static const cpu_op_prep matmul_prep_op = {matmul_prepare, sizeof(matmul_prep), matmul_pack};

static tosac_code op_matmul(cpu_ctx *c)
{
    const tosac_tensor *a, *b;
    tosac_code rc = cpu_req(c, 0, &a);
    if (!rc)
        rc = cpu_req(c, 1, &b);
    if (rc)
        return rc;
    CPU_CHECK(c, a->dtype == b->dtype, "operand types differ (%s and %s)",
              tosac_dtype_name(a->dtype), tosac_dtype_name(b->dtype));
    CPU_CHECK(c, a->dtype == TOSAC_DT_F32 || a->dtype == TOSAC_DT_F64 || tosac_dtype_is_int(a->dtype),
              "operands of type %s are not supported", tosac_dtype_name(a->dtype));
    mm_ctx m = {a->dtype, a->data, b->data, NULL, NULL, 0};
    if (a->dtype == TOSAC_DT_F32 && a->rank >= 1 && b->rank >= 1) {
        /* every batch item has the same m, n, k: one scratch serves them all */
        kern_gemm_params p = {.m = a->rank >= 2 ? a->shape[a->rank - 2] : 1,
                              .n = b->rank >= 2 ? b->shape[b->rank - 1] : 1,
                              .k = a->shape[a->rank - 1]};
        if (!(m.scratch = cpu_scratch(c, kern_gemm_f32_scratch(&p) * sizeof(float))))
            return TOSAC_ERR_INTERNAL;
        /* a constant matrix B serves every batch item; its k must be A's (checked by the
         * shapes below, before any product runs) */
        const matmul_prep *mp = c->prep;
        if (mp->b_const && b->rank == 2 && b->shape[0] == p.k && p.k > 0) {
            packed_b(c, &p, b->data);
            m.b_packed = p.b_packed;
            m.b_packed_tag = p.b_packed_tag;
        }
    }
    return cpu_matmul_shapes(c, a, b, a->dtype, mm_any, &m);
}

const cpu_op_entry cpu_ops_conv[] = {
    {"Conv", op_conv, CPU_F16_VIA_F32, &conv_f32_prep},
    {"ConvTranspose", op_conv_transpose, CPU_F16_VIA_F32, &cpu_prep_conv},
    {"Gemm", op_gemm, CPU_F16_VIA_F32, &gemm_prep_op},
    {"MatMul", op_matmul, CPU_F16_VIA_F32, &matmul_prep_op},
    {NULL, NULL, 0, NULL},
};
