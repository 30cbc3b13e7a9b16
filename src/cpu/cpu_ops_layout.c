/* Data layout operators: Transpose, Concat, Split, Slice, Pad, CenterCropPad, Expand, Tile,
 * DepthToSpace, SpaceToDepth, Trilu. Most are one strided copy (kern_strided_copy). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/layout.h"
#include "onnxop/onnxop_crop.h"

/* perm, checked to be a permutation once (prepare step); eval checks its length against
 * the input's rank. */
typedef struct transpose_prep {
    int has_perm, n;
    int64_t perm[TOSAC_MAX_RANK];
} transpose_prep;

static tosac_code transpose_prepare(cpu_ctx *c, void *st)
{
    transpose_prep *tp = st;
    int n;
    const int64_t *p = cpu_attr_ints(c, "perm", &n);
    if (!p)
        return TOSAC_OK;
    CPU_CHECK(c, n <= TOSAC_MAX_RANK, "perm has %d entries, beyond rank %d", n, TOSAC_MAX_RANK);
    uint8_t seen[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < n; i++) {
        CPU_CHECK(c, p[i] >= 0 && p[i] < n && !seen[p[i]], "perm is not a permutation");
        seen[p[i]] = 1;
        tp->perm[i] = p[i];
    }
    tp->has_perm = 1;
    tp->n = n;
    return TOSAC_OK;
}

static const cpu_op_prep transpose_prep_op = {transpose_prepare, sizeof(transpose_prep), NULL};

static tosac_code op_transpose(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    const transpose_prep *tp = c->prep;
    int r = x->rank;
    int64_t perm[TOSAC_MAX_RANK];
    if (tp->has_perm) {
        CPU_CHECK(c, tp->n == r, "perm has %d entries for rank %d", tp->n, r);
        memcpy(perm, tp->perm, sizeof(int64_t) * (size_t)r);
    } else {
        for (int i = 0; i < r; i++)
            perm[i] = r - 1 - i;
    }
    int64_t st[TOSAC_MAX_RANK], ys[TOSAC_MAX_RANK], ysd[TOSAC_MAX_RANK];
    kern_strides(r, x->shape, st);
    for (int i = 0; i < r; i++) {
        ys[i] = x->shape[perm[i]];
        ysd[i] = st[perm[i]];
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, ys, &y)))
        return rc;
    kern_strided_copy(tosac_dtype_size(x->dtype), r, ys, ysd, 0, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_concat(cpu_ctx *c)
{
    const tosac_tensor *x0;
    tosac_code rc = cpu_req(c, 0, &x0);
    int axis;
    if (!rc)
        rc = cpu_axis(c, ((const cpu_axis_prep *)c->prep)->axis, x0->rank, &axis);
    if (rc)
        return rc;
    int64_t ys[TOSAC_MAX_RANK];
    memcpy(ys, x0->shape, sizeof ys);
    ys[axis] = 0;
    for (int i = 0; i < c->n_in; i++) {
        const tosac_tensor *t;
        if ((rc = cpu_req(c, i, &t)))
            return rc;
        CPU_CHECK(c, t->dtype == x0->dtype && t->rank == x0->rank,
                  "input %d differs in type or rank", i);
        for (int k = 0; k < t->rank; k++)
            CPU_CHECK(c, k == axis || t->shape[k] == x0->shape[k],
                      "input %d differs in dim %d", i, k);
        ys[axis] += t->shape[axis];
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x0->dtype, x0->rank, ys, &y)))
        return rc;
    /* copy each input as a [outer, n_i * inner] block into its column range */
    size_t es = tosac_dtype_size(x0->dtype);
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; k++)
        outer *= ys[k];
    for (int k = axis + 1; k < x0->rank; k++)
        inner *= ys[k];
    int64_t col = 0, row = ys[axis] * inner;
    for (int i = 0; i < c->n_in; i++) {
        const tosac_tensor *t = c->in[i];
        int64_t w = t->shape[axis] * inner;
        for (int64_t o = 0; o < outer; o++)
            memcpy((char *)y->data + (o * row + col) * (int64_t)es,
                   (const char *)t->data + o * w * (int64_t)es, (size_t)w * es);
        col += w;
    }
    return TOSAC_OK;
}

/* Split's axis, the split attribute (checked against the outputs) and num_outputs, read once
 * (prepare step); sizes from input 1 are read at eval. */
typedef struct split_prep {
    int64_t axis;
    int has_parts, num_outputs;
    int64_t parts[CPU_MAX_IO];
} split_prep;

static tosac_code split_prepare(cpu_ctx *c, void *st)
{
    split_prep *sp = st;
    sp->axis = cpu_attr_i(c, "axis", 0);
    sp->num_outputs = cpu_has_attr(c, "num_outputs");
    int cnt, n = c->node->n_outputs;
    const int64_t *sa = cpu_attr_ints(c, "split", &cnt);
    if (sa) {
        CPU_CHECK(c, cnt == n, "split has %d sizes for %d outputs", cnt, n);
        memcpy(sp->parts, sa, (size_t)n * sizeof(int64_t));
        sp->has_parts = 1;
    }
    return TOSAC_OK;
}

static const cpu_op_prep split_prep_op = {split_prepare, sizeof(split_prep), NULL};

static tosac_code op_split(cpu_ctx *c)
{
    const split_prep *sp = c->prep;
    const tosac_tensor *x, *st = cpu_opt(c, 1);
    tosac_code rc = cpu_req(c, 0, &x);
    int axis;
    if (!rc)
        rc = cpu_axis(c, sp->axis, x->rank, &axis);
    if (rc)
        return rc;
    int64_t parts[CPU_MAX_IO];
    int n = c->n_out, cnt = 0;
    if (sp->has_parts) {
        memcpy(parts, sp->parts, (size_t)n * sizeof(int64_t));
    } else if (st) {
        if ((rc = cpu_ints(c, st, parts, CPU_MAX_IO, &cnt)))
            return rc;
        CPU_CHECK(c, cnt == n, "split has %d sizes for %d outputs", cnt, n);
    } else {
        /* equal parts; with num_outputs (opset 18) the last part may be smaller */
        int64_t d = x->shape[axis], each = (d + n - 1) / n;
        if (!sp->num_outputs)
            CPU_CHECK(c, d % n == 0, "dim %lld does not split into %d equal parts", (long long)d, n);
        for (int i = 0; i < n; i++) {
            int64_t left = d - each * i;
            parts[i] = left < 0 ? 0 : left < each ? left : each;
        }
    }
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        CPU_CHECK(c, parts[i] >= 0, "negative split size");
        sum += parts[i];
    }
    CPU_CHECK(c, sum == x->shape[axis], "split sizes add up to %lld, dim is %lld",
              (long long)sum, (long long)x->shape[axis]);
    int64_t xst[TOSAC_MAX_RANK];
    kern_strides(x->rank, x->shape, xst);
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        int64_t ys[TOSAC_MAX_RANK];
        memcpy(ys, x->shape, sizeof ys);
        ys[axis] = parts[i];
        tosac_tensor *y;
        if ((rc = cpu_out(c, i, x->dtype, x->rank, ys, &y)))
            return rc;
        kern_strided_copy(tosac_dtype_size(x->dtype), x->rank, ys, xst, start * xst[axis],
                          x->data, y->data);
        start += parts[i];
    }
    return TOSAC_OK;
}

/* Clamps a Slice start/end for a dim of size d and a step's sign, as ONNX specifies. */
static int64_t clamp_index(int64_t v, int64_t d, int64_t step, int is_end)
{
    if (v < 0)
        v += d;
    if (step > 0)
        return v < 0 ? 0 : v > d ? d : v;
    /* negative steps: starts clamp to [0, d-1], ends to [-1, d-1] */
    int64_t lo = is_end ? -1 : 0;
    return v < lo ? lo : v > d - 1 ? d - 1 : v;
}

/* Slice's opset-1 attributes (starts, ends, axes), checked once (prepare step); from opset
 * 10 they are inputs, read at eval. */
typedef struct slice_prep {
    int attrs, ns, na;
    int64_t starts[TOSAC_MAX_RANK], ends[TOSAC_MAX_RANK], axes[TOSAC_MAX_RANK];
} slice_prep;

static tosac_code slice_prepare(cpu_ctx *c, void *st)
{
    slice_prep *sp = st;
    int ns, ne, na = 0;
    const int64_t *sa = cpu_attr_ints(c, "starts", &ns);
    if (!sa)
        return TOSAC_OK;
    const int64_t *ea = cpu_attr_ints(c, "ends", &ne);
    const int64_t *aa = cpu_attr_ints(c, "axes", &na);
    CPU_CHECK(c, ea && ns == ne && ns <= TOSAC_MAX_RANK && (!aa || na == ns),
              "starts, ends and axes must have equal lengths");
    memcpy(sp->starts, sa, (size_t)ns * sizeof(int64_t));
    memcpy(sp->ends, ea, (size_t)ns * sizeof(int64_t));
    if (aa)
        memcpy(sp->axes, aa, (size_t)na * sizeof(int64_t));
    sp->attrs = 1;
    sp->ns = ns;
    sp->na = aa ? na : 0;
    return TOSAC_OK;
}

static const cpu_op_prep slice_prep_op = {slice_prepare, sizeof(slice_prep), NULL};

static tosac_code op_slice(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int r = x->rank;
    int64_t starts[TOSAC_MAX_RANK], ends[TOSAC_MAX_RANK], axes[TOSAC_MAX_RANK],
        steps[TOSAC_MAX_RANK];
    const slice_prep *spp = c->prep;
    int ns, ne, na = 0, nst = 0;
    if (spp->attrs) { /* opset < 10: attributes */
        ns = spp->ns;
        na = spp->na;
        memcpy(starts, spp->starts, sizeof starts);
        memcpy(ends, spp->ends, sizeof ends);
        memcpy(axes, spp->axes, sizeof axes);
    } else {
        const tosac_tensor *st, *et;
        if ((rc = cpu_req(c, 1, &st)) || (rc = cpu_req(c, 2, &et)) ||
            (rc = cpu_ints(c, st, starts, TOSAC_MAX_RANK, &ns)) ||
            (rc = cpu_ints(c, et, ends, TOSAC_MAX_RANK, &ne)))
            return rc;
        CPU_CHECK(c, ns == ne, "starts and ends differ in length");
        if (cpu_opt(c, 3) && (rc = cpu_ints(c, c->in[3], axes, TOSAC_MAX_RANK, &na)))
            return rc;
        if (cpu_opt(c, 4) && (rc = cpu_ints(c, c->in[4], steps, TOSAC_MAX_RANK, &nst)))
            return rc;
        CPU_CHECK(c, (!cpu_opt(c, 3) || na == ns) && (!cpu_opt(c, 4) || nst == ns),
                  "axes and steps must match starts in length");
    }
    if (!na)
        for (int i = 0; i < ns; i++)
            axes[i] = i;
    if (!nst)
        for (int i = 0; i < ns; i++)
            steps[i] = 1;
    int64_t xst[TOSAC_MAX_RANK], ys[TOSAC_MAX_RANK], yst[TOSAC_MAX_RANK], off = 0;
    kern_strides(r, x->shape, xst);
    for (int k = 0; k < r; k++) {
        ys[k] = x->shape[k];
        yst[k] = xst[k];
    }
    uint8_t seen[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < ns; i++) {
        int a;
        if ((rc = cpu_axis(c, axes[i], r, &a)))
            return rc;
        CPU_CHECK(c, !seen[a], "axis %d repeats", a);
        seen[a] = 1;
        CPU_CHECK(c, steps[i] != 0, "step must be non-zero");
        int64_t d = x->shape[a], s = steps[i];
        int64_t b = clamp_index(starts[i], d, s, 0), e = clamp_index(ends[i], d, s, 1);
        /* |s| as unsigned (s may be INT64_MIN); (span - 1) / |s| + 1 cannot overflow */
        uint64_t as = s > 0 ? (uint64_t)s : (uint64_t)(-(s + 1)) + 1;
        int64_t len = 0;
        if (s > 0 && e > b)
            len = (int64_t)((uint64_t)(e - b - 1) / as) + 1;
        else if (s < 0 && b > e)
            len = (int64_t)((uint64_t)(b - e - 1) / as) + 1;
        ys[a] = len;
        /* with two or more elements |s| < d, so the stride fits; otherwise it is never used */
        yst[a] = len > 1 ? xst[a] * s : 0;
        if (len > 0)
            off += b * xst[a];
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, ys, &y)))
        return rc;
    if (tosac_tensor_numel(y) > 0)
        kern_strided_copy(tosac_dtype_size(x->dtype), r, ys, yst, off, x->data, y->data);
    return TOSAC_OK;
}

/* Pad's mode, and before opset 11 its pads and value attributes, checked once (prepare
 * step); from opset 11 pads, constant_value and axes are inputs, read at eval. */
typedef struct pad_prep {
    kern_pad_mode mode;
    int has_pads, np, has_value;
    double value;
    int64_t pads[2 * TOSAC_MAX_RANK];
} pad_prep;

/* In kern_pad_mode order. */
static const char *const pad_modes[] = {"constant", "reflect", "edge", "wrap"};

static tosac_code pad_prepare(cpu_ctx *c, void *st)
{
    pad_prep *pp = st;
    int np;
    const int64_t *pa = cpu_attr_ints(c, "pads", &np);
    if (pa) {
        CPU_CHECK(c, np <= 2 * TOSAC_MAX_RANK, "too many pads");
        memcpy(pp->pads, pa, (size_t)np * sizeof(int64_t));
        pp->has_pads = 1;
        pp->np = np;
    }
    const char *mode = cpu_attr_s(c, "mode", "constant");
    if (strcmp(mode, "constant") == 0)
        pp->mode = KERN_PAD_CONSTANT;
    else if (strcmp(mode, "reflect") == 0)
        pp->mode = KERN_PAD_REFLECT;
    else if (strcmp(mode, "edge") == 0)
        pp->mode = KERN_PAD_EDGE;
    else if (strcmp(mode, "wrap") == 0)
        pp->mode = KERN_PAD_WRAP;
    else
        return cpu_fail(c, TOSAC_ERR_INPUT, "unknown mode '%s'", mode);
    pp->has_value = cpu_has_attr(c, "value");
    pp->value = cpu_attr_f(c, "value", 0);
    return TOSAC_OK;
}

static const cpu_op_prep pad_prep_op = {pad_prepare, sizeof(pad_prep), NULL};

static tosac_code op_pad(cpu_ctx *c)
{
    const pad_prep *pp = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    int r = x->rank, np;
    int64_t pads[2 * TOSAC_MAX_RANK], axes[TOSAC_MAX_RANK];
    if (pp->has_pads) {
        np = pp->np;
        memcpy(pads, pp->pads, sizeof pads);
    } else {
        const tosac_tensor *pt;
        if ((rc = cpu_req(c, 1, &pt)) || (rc = cpu_ints(c, pt, pads, 2 * TOSAC_MAX_RANK, &np)))
            return rc;
    }
    int na = r;
    if (cpu_opt(c, 3)) {
        if ((rc = cpu_ints(c, c->in[3], axes, TOSAC_MAX_RANK, &na)))
            return rc;
    } else {
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }
    CPU_CHECK(c, np == 2 * na, "pads has %d values for %d axes", np, na);
    int64_t before[TOSAC_MAX_RANK] = {0}, after[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < na; i++) {
        int a;
        if ((rc = cpu_axis(c, axes[i], r, &a)))
            return rc;
        before[a] = pads[i];
        after[a] = pads[na + i];
    }
    kern_pad_mode m = pp->mode;
    const char *mode = pad_modes[m];
    int64_t ys[TOSAC_MAX_RANK];
    for (int k = 0; k < r; k++) {
        ys[k] = x->shape[k] + before[k] + after[k];
        CPU_CHECK(c, ys[k] >= 0, "pads make dim %d negative", k);
        CPU_CHECK(c, m == KERN_PAD_CONSTANT || x->shape[k] > 0 || ys[k] == 0,
                  "cannot %s-pad an empty dim", mode);
    }
    uint64_t value[2] = {0, 0}; /* one element of any type, zero by default */
    const tosac_tensor *cv = cpu_opt(c, 2);
    if (cv && tosac_tensor_numel(cv) == 1) {
        CPU_CHECK(c, cv->dtype == x->dtype, "constant_value type differs from input type");
        memcpy(value, cv->data, tosac_dtype_size(x->dtype));
    } else if (pp->has_value) {
        kern_set_f64(x->dtype, value, 0, pp->value);
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, ys, &y)))
        return rc;
    kern_pad(tosac_dtype_size(x->dtype), r, x->shape, before, after, m, value, x->data, y->data);
    return TOSAC_OK;
}

/* CenterCropPad: a constant-mode pad whose negative pads crop (onnxop_crop.c's geometry). */
static tosac_code crop_prep(cpu_ctx *c, void *st)
{
    return onnxop_crop_axes_parse(c->node, st, c->err);
}
static const cpu_op_prep crop_prep_op = {crop_prep, sizeof(onnxop_crop_axes), NULL};

static tosac_code op_center_crop_pad(cpu_ctx *c)
{
    const tosac_tensor *x, *st;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc || (rc = cpu_req(c, 1, &st)))
        return rc;
    int64_t target[TOSAC_MAX_RANK], before[TOSAC_MAX_RANK], after[TOSAC_MAX_RANK];
    int nt;
    onnxop_crop_pad cp;
    if ((rc = cpu_ints(c, st, target, TOSAC_MAX_RANK, &nt)) ||
        (rc = onnxop_center_crop_pad_at(c->node, c->prep, x->rank, x->shape, target, nt, &cp,
                                        c->err)))
        return rc;
    for (int k = 0; k < x->rank; k++) {
        before[k] = -cp.start[k];
        after[k] = cp.out[k] - x->shape[k] - before[k];
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, cp.out, &y)))
        return rc;
    const uint64_t zero[2] = {0, 0};
    kern_pad(tosac_dtype_size(x->dtype), x->rank, x->shape, before, after, KERN_PAD_CONSTANT,
             zero, x->data, y->data);
    return TOSAC_OK;
}

/* Expand: broadcast x to shape (bidirectionally). */
static tosac_code op_expand(cpu_ctx *c)
{
    const tosac_tensor *x, *st;
    int64_t s[TOSAC_MAX_RANK];
    int n;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &st);
    if (!rc)
        rc = cpu_ints(c, st, s, TOSAC_MAX_RANK, &n);
    if (rc)
        return rc;
    kern_bcast b;
    int ranks[2] = {x->rank, n};
    const int64_t *shapes[2] = {x->shape, s};
    CPU_CHECK(c, kern_bcast_init(&b, 2, ranks, shapes) == 0, "shape does not broadcast with the input");
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, b.rank, b.shape, &y)))
        return rc;
    kern_strided_copy(tosac_dtype_size(x->dtype), b.rank, b.shape, b.stride[0], 0, x->data, y->data);
    return TOSAC_OK;
}

/* Tile: a strided copy over [r0, d0, r1, d1, ...] with zero strides for the repeats. */
static tosac_code op_tile(cpu_ctx *c)
{
    const tosac_tensor *x, *rt;
    int64_t reps[TOSAC_MAX_RANK];
    int n;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &rt);
    if (!rc)
        rc = cpu_ints(c, rt, reps, TOSAC_MAX_RANK, &n);
    if (rc)
        return rc;
    int r = x->rank;
    CPU_CHECK(c, n == r, "repeats has %d values for rank %d", n, r);
    int64_t ys[TOSAC_MAX_RANK], xst[TOSAC_MAX_RANK];
    kern_strides(r, x->shape, xst);
    for (int k = 0; k < r; k++) {
        CPU_CHECK(c, reps[k] >= 0, "repeats must be non-negative");
        CPU_CHECK(c, !__builtin_mul_overflow(x->shape[k], reps[k], &ys[k]),
                  "repeats[%d] = %lld makes the output too large", k, (long long)reps[k]);
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, ys, &y)))
        return rc;
    if (tosac_tensor_numel(y) == 0)
        return TOSAC_OK;
    size_t es = tosac_dtype_size(x->dtype);
    if (2 * r <= TOSAC_MAX_RANK) {
        int64_t vs[TOSAC_MAX_RANK], vst[TOSAC_MAX_RANK];
        for (int k = 0; k < r; k++) {
            vs[2 * k] = reps[k];
            vst[2 * k] = 0;
            vs[2 * k + 1] = x->shape[k];
            vst[2 * k + 1] = xst[k];
        }
        kern_strided_copy(es, 2 * r, vs, vst, 0, x->data, y->data);
        return TOSAC_OK;
    }
    int64_t idx[TOSAC_MAX_RANK] = {0}, total = tosac_tensor_numel(y);
    for (int64_t o = 0; o < total; o++) {
        int64_t off = 0;
        for (int k = 0; k < r; k++)
            off += (idx[k] % x->shape[k]) * xst[k];
        memcpy((char *)y->data + o * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
        for (int k = r - 1; k >= 0; k--) {
            if (++idx[k] < ys[k])
                break;
            idx[k] = 0;
        }
    }
    return TOSAC_OK;
}

/* DepthToSpace's / SpaceToDepth's blocksize and mode, Trilu's upper and ReverseSequence's
 * axes, checked once (prepare step). */
typedef struct block_prep {
    int64_t b, ba, ta;
    int dcr, upper;
} block_prep;

static tosac_code block_prepare(cpu_ctx *c, void *st)
{
    block_prep *bp = st;
    bp->b = cpu_attr_i(c, "blocksize", 0);
    CPU_CHECK(c, bp->b >= 1, "blocksize must be positive");
    bp->dcr = strcmp(cpu_attr_s(c, "mode", "DCR"), "CRD") != 0;
    return TOSAC_OK;
}

static tosac_code trilu_prepare(cpu_ctx *c, void *st)
{
    ((block_prep *)st)->upper = (int)cpu_attr_i(c, "upper", 1);
    return TOSAC_OK;
}

static tosac_code revseq_prepare(cpu_ctx *c, void *st)
{
    block_prep *bp = st;
    bp->ba = cpu_attr_i(c, "batch_axis", 1);
    bp->ta = cpu_attr_i(c, "time_axis", 0);
    CPU_CHECK(c, (bp->ba == 0 && bp->ta == 1) || (bp->ba == 1 && bp->ta == 0),
              "batch_axis and time_axis must be 0 and 1");
    return TOSAC_OK;
}

static const cpu_op_prep block_prep_op = {block_prepare, sizeof(block_prep), NULL};
static const cpu_op_prep trilu_prep_op = {trilu_prepare, sizeof(block_prep), NULL};
static const cpu_op_prep revseq_prep_op = {revseq_prepare, sizeof(block_prep), NULL};

/* DepthToSpace / SpaceToDepth as a 6-D transpose of x. */
static tosac_code depth_space(cpu_ctx *c, int to_space)
{
    const block_prep *bp = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank == 4, "input must be 4-D");
    int64_t b = bp->b;
    int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    int64_t vs[6], perm[6], ys[4];
    if (to_space) {
        CPU_CHECK(c, C % (b * b) == 0, "channels %lld not divisible by blocksize^2", (long long)C);
        int dcr = bp->dcr;
        if (dcr) { /* [N, b, b, C', H, W] -> [N, C', H, b, W, b] */
            int64_t v[6] = {N, b, b, C / (b * b), H, W}, p[6] = {0, 3, 4, 1, 5, 2};
            memcpy(vs, v, sizeof v);
            memcpy(perm, p, sizeof p);
        } else { /* [N, C', b, b, H, W] -> [N, C', H, b, W, b] */
            int64_t v[6] = {N, C / (b * b), b, b, H, W}, p[6] = {0, 1, 4, 2, 5, 3};
            memcpy(vs, v, sizeof v);
            memcpy(perm, p, sizeof p);
        }
        int64_t s[4] = {N, C / (b * b), H * b, W * b};
        memcpy(ys, s, sizeof s);
    } else { /* [N, C, H', b, W', b] -> [N, b, b, C, H', W'] */
        CPU_CHECK(c, H % b == 0 && W % b == 0, "spatial dims not divisible by blocksize");
        int64_t v[6] = {N, C, H / b, b, W / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
        memcpy(vs, v, sizeof v);
        memcpy(perm, p, sizeof p);
        int64_t s[4] = {N, C * b * b, H / b, W / b};
        memcpy(ys, s, sizeof s);
    }
    int64_t vst[6], ts[6], tst[6];
    kern_strides(6, vs, vst);
    for (int i = 0; i < 6; i++) {
        ts[i] = vs[perm[i]];
        tst[i] = vst[perm[i]];
    }
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, 4, ys, &y)))
        return rc;
    kern_strided_copy(tosac_dtype_size(x->dtype), 6, ts, tst, 0, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_d2s(cpu_ctx *c) { return depth_space(c, 1); }
static tosac_code op_s2d(cpu_ctx *c) { return depth_space(c, 0); }

static tosac_code op_trilu(cpu_ctx *c)
{
    const tosac_tensor *x;
    int64_t k = 0;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc && cpu_opt(c, 1))
        rc = cpu_scalar_i64(c, c->in[1], &k);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 2, "input must have rank >= 2");
    int64_t rows = x->shape[x->rank - 2], cols = x->shape[x->rank - 1];
    int64_t batch = rows > 0 && cols > 0 ? tosac_tensor_numel(x) / (rows * cols) : 0;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)))
        return rc;
    kern_trilu(tosac_dtype_size(x->dtype), batch, rows, cols, k,
               ((const block_prep *)c->prep)->upper, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_reverse_sequence(cpu_ctx *c)
{
    const tosac_tensor *x, *lens;
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &lens);
    if (rc)
        return rc;
    const block_prep *bp = c->prep;
    int64_t ba = bp->ba, ta = bp->ta;
    CPU_CHECK(c, x->rank >= 2, "input must have rank >= 2");
    CPU_CHECK(c, (lens->dtype == TOSAC_DT_I64 || lens->dtype == TOSAC_DT_I32) && lens->rank == 1 &&
                     lens->shape[0] == x->shape[ba],
              "sequence_lens must hold one integer per batch entry");
    int64_t batch = x->shape[ba];
    int64_t *lv = cpu_temp(c, (size_t)(batch > 0 ? batch : 1) * sizeof *lv);
    if (!lv)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    for (int64_t b = 0; b < batch; b++)
        lv[b] = kern_get_i64(lens->dtype, lens->data, b);
    tosac_tensor *y;
    int64_t o, n, inner;
    cpu_split_axis(x, 1, &o, &n, &inner);
    if (!(rc = cpu_out(c, 0, x->dtype, x->rank, x->shape, &y)) &&
        kern_reverse_sequence(tosac_dtype_size(x->dtype), x->shape[0], x->shape[1], inner, (int)ba,
                              lv, x->data, y->data))
        rc = cpu_fail(c, TOSAC_ERR_INPUT, "a sequence length exceeds the %lld time steps",
                      (long long)x->shape[ta]);
    cpu_release(c, lv);
    return rc;
}

const cpu_op_entry cpu_ops_layout[] = {
    {"ReverseSequence", op_reverse_sequence, 0, &revseq_prep_op},
    {"Transpose", op_transpose, 0, &transpose_prep_op},
    {"Concat", op_concat, 0, &cpu_prep_axis0},
    {"Split", op_split, 0, &split_prep_op},
    {"Slice", op_slice, 0, &slice_prep_op},
    {"Pad", op_pad, 0, &pad_prep_op},
    {"CenterCropPad", op_center_crop_pad, 0, &crop_prep_op},
    {"Expand", op_expand, 0, NULL}, /* no attributes: its shape is an input */
    {"Tile", op_tile, 0, NULL},     /* no attributes: repeats is an input */
    {"DepthToSpace", op_d2s, 0, &block_prep_op},
    {"SpaceToDepth", op_s2d, 0, &block_prep_op},
    {"Trilu", op_trilu, 0, &trilu_prep_op},
    {NULL, NULL, 0, NULL},
};
