/* Scan: the body runs once per slice of the scan inputs, carrying state values from one
 * iteration to the next; each scan output stacks the per-iteration results along an axis.
 * Scan-9+ takes the axes and directions as attributes. Scan-8 (opsets 8) has a leading batch
 * axis on every input and output and a first input sequence_lens: it runs as one Scan-9 loop
 * per batch entry (sequence lengths other than the full length are refused). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/kern.h"

typedef struct scan_cfg {
    const ir_graph *body;
    int body_k;                            /* its subgraph index (cpu_run_sub_at) */
    int n_state, n_in, n_out;              /* state values, scan inputs, scan outputs */
    int in_axis[CPU_MAX_IO], in_rev[CPU_MAX_IO];
    int out_axis[CPU_MAX_IO], out_rev[CPU_MAX_IO];
} scan_cfg;

/* t viewed as [outer, t->shape[axis], inner]. */
static void axis_view(const tosac_tensor *t, int axis, int64_t *outer, int64_t *inner)
{
    int64_t n;
    cpu_split_axis(t, axis, outer, &n, inner);
}

/* dst (shape of t without axis, allocated by the caller) = t[..., pos, ...]. */
static void take_slice(const tosac_tensor *t, int axis, int64_t pos, tosac_tensor *dst)
{
    int64_t outer, inner, n = t->shape[axis];
    axis_view(t, axis, &outer, &inner);
    size_t row = tosac_dtype_size(t->dtype) * (size_t)inner;
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)dst->data + (size_t)o * row, (const char *)t->data + (size_t)(o * n + pos) * row, row);
}

/* dst[..., pos, ...] = src (src has dst's shape without axis). */
static void put_slice(tosac_tensor *dst, int axis, int64_t pos, const tosac_tensor *src)
{
    int64_t outer, inner, n = dst->shape[axis];
    axis_view(dst, axis, &outer, &inner);
    size_t row = tosac_dtype_size(dst->dtype) * (size_t)inner;
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)dst->data + (size_t)(o * n + pos) * row, (const char *)src->data + (size_t)o * row, row);
}

/* A tensor of t's type and shape with dim axis removed (drop = 1) or of size n inserted:
 * output out_i, or (out_i < 0) the temporary *tmp; *res points to it. */
static tosac_code alloc_around(cpu_ctx *c, const tosac_tensor *t, int axis, int drop, int64_t n,
                               int out_i, tosac_tensor *tmp, tosac_tensor **res)
{
    int64_t s[TOSAC_MAX_RANK];
    int r = 0;
    for (int k = 0; k <= t->rank; k++) {
        if (k == axis && !drop)
            s[r++] = n;
        if (k < t->rank && !(k == axis && drop))
            s[r++] = t->shape[k];
    }
    if (r > TOSAC_MAX_RANK)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "scan output rank is beyond %d", TOSAC_MAX_RANK);
    if (out_i >= 0)
        return cpu_out(c, out_i, t->dtype, r, s, res);
    *res = tmp;
    return cpu_tensor_temp(c, tmp, t->dtype, r, s, 1);
}

static int same_shape(const tosac_tensor *a, const tosac_tensor *b)
{
    return a->dtype == b->dtype && a->rank == b->rank &&
           memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank) == 0;
}

/* One Scan-9 loop: the final states, then the stacked scan outputs, go to the node's
 * outputs (to_out) or to the temporaries outs[0..) (left empty on failure). */
static tosac_code scan_loop(cpu_ctx *c, const scan_cfg *cfg, const tosac_tensor *const *state,
                            const tosac_tensor *const *in, int to_out, tosac_tensor *outs)
{
    const int nb_in = cfg->n_state + cfg->n_in, nb_out = cfg->n_state + cfg->n_out;
    int64_t len = -1;
    for (int j = 0; j < cfg->n_in; j++) {
        CPU_CHECK(c, cfg->in_axis[j] >= 0 && cfg->in_axis[j] < in[j]->rank,
                  "scan input %d: axis %d is out of range", j, cfg->in_axis[j]);
        int64_t l = in[j]->shape[cfg->in_axis[j]];
        CPU_CHECK(c, len < 0 || l == len, "scan inputs have different lengths");
        len = l;
    }
    CPU_CHECK(c, len > 0, "a scan without iterations is not supported");
    CPU_CHECK(c, nb_in <= CPU_MAX_IO && nb_out <= CPU_MAX_IO, "more than %d scan values",
              CPU_MAX_IO);
    tosac_tensor bin[CPU_MAX_IO], bout[CPU_MAX_IO], *res[CPU_MAX_IO];
    memset(bin, 0, sizeof bin);
    if (!to_out)
        memset(outs, 0, sizeof *outs * (size_t)nb_out);
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < cfg->n_state && !rc; i++)
        if (!(rc = cpu_tensor_temp(c, &bin[i], state[i]->dtype, state[i]->rank, state[i]->shape, 0)))
            memcpy(bin[i].data, state[i]->data, state[i]->nbytes);
    for (int j = 0; j < cfg->n_in && !rc; j++) {
        tosac_tensor *slot;
        rc = alloc_around(c, in[j], cfg->in_axis[j], 1, 0, -1, &bin[cfg->n_state + j], &slot);
    }
    for (int64_t t = 0; t < len && !rc; t++) {
        for (int j = 0; j < cfg->n_in; j++)
            take_slice(in[j], cfg->in_axis[j], cfg->in_rev[j] ? len - 1 - t : t, &bin[cfg->n_state + j]);
        if ((rc = cpu_run_sub_at(c, cfg->body_k, bin, nb_in, bout, nb_out)))
            break;
        for (int i = 0; i < cfg->n_state; i++) {
            if (!same_shape(&bout[i], &bin[i])) {
                rc = cpu_fail(c, TOSAC_ERR_INPUT, "state %d changes type or shape", i);
                break;
            }
            cpu_tensor_drop(c, &bin[i]);
            bin[i] = bout[i];
            memset(&bout[i], 0, sizeof bout[i]);
        }
        for (int k = 0; k < cfg->n_out && !rc; k++) {
            const tosac_tensor *v = &bout[cfg->n_state + k];
            int ax = cfg->out_axis[k], oi = cfg->n_state + k;
            if (t == 0) {
                if (ax < 0 || ax > v->rank)
                    rc = cpu_fail(c, TOSAC_ERR_INPUT, "scan output %d: axis %d is out of range", k, ax);
                else
                    rc = alloc_around(c, v, ax, 0, len, to_out ? oi : -1, &outs[oi], &res[k]);
            } else {
                tosac_tensor like = *res[k];
                like.rank = v->rank;
                memmove(like.shape + ax, like.shape + ax + 1, sizeof(int64_t) * (size_t)(v->rank - ax));
                if (!same_shape(v, &like))
                    rc = cpu_fail(c, TOSAC_ERR_INPUT, "scan output %d changes shape between iterations", k);
            }
            if (!rc)
                put_slice(res[k], ax, cfg->out_rev[k] ? len - 1 - t : t, v);
        }
        for (int k = 0; k < nb_out; k++)
            cpu_tensor_drop(c, &bout[k]);
    }
    for (int i = 0; i < cfg->n_state && !rc; i++) {
        if (to_out) {
            rc = cpu_out_take(c, i, &bin[i]);
        } else {
            outs[i] = bin[i];
            memset(&bin[i], 0, sizeof bin[i]);
        }
    }
    for (int i = 0; i < nb_in; i++)
        cpu_tensor_drop(c, &bin[i]);
    if (rc && !to_out)
        for (int i = 0; i < nb_out; i++)
            cpu_tensor_drop(c, &outs[i]);
    return rc;
}

/* The attributes, read once (prepare step): the body, num_scan_inputs and the axis and
 * direction lists as given. An input axis or direction beyond +-2 * TOSAC_MAX_RANK is out
 * of range for every rank, so it fails here and the rest fit a byte; output axes are kept
 * whole (scan_loop checks them against the body's outputs). A list longer than CPU_MAX_IO
 * keeps only its length (it can match no count). Axes are normalised at eval, against the
 * inputs' ranks. */
enum { SC_IN_AXES, SC_IN_DIRS, SC_OUT_DIRS, SC_OUT_AXES, SC_DIRS8, SC_LISTS };
static const char *const scan_list_names[SC_LISTS] = {
    "scan_input_axes", "scan_input_directions", "scan_output_directions", "scan_output_axes",
    "directions"};

typedef struct scan_prep {
    const ir_graph *body;
    int body_k;
    int64_t m;                              /* num_scan_inputs */
    int has[SC_LISTS], cnt[SC_LISTS];
    int8_t v[SC_LISTS][CPU_MAX_IO];
    int64_t out_axes[CPU_MAX_IO];
} scan_prep;

static tosac_code scan_prepare(cpu_ctx *c, void *st)
{
    scan_prep *p = st;
    p->body = cpu_subgraph(c, "body");
    p->body_k = cpu_subgraph_index(c, p->body);
    p->m = cpu_attr_i(c, "num_scan_inputs", -1);
    for (int l = 0; l < SC_LISTS; l++) {
        int cnt;
        const int64_t *a = cpu_attr_ints(c, scan_list_names[l], &cnt);
        if (!a)
            continue;
        p->has[l] = 1;
        p->cnt[l] = cnt;
        for (int i = 0; i < cnt && cnt <= CPU_MAX_IO; i++) {
            if (l == SC_OUT_AXES) {
                p->out_axes[i] = a[i];
                continue;
            }
            CPU_CHECK(c, a[i] >= -2 * TOSAC_MAX_RANK && a[i] <= 2 * TOSAC_MAX_RANK,
                      "%s entry %d is out of range", scan_list_names[l], i);
            p->v[l][i] = (int8_t)a[i];
        }
    }
    return TOSAC_OK;
}

static const cpu_op_prep scan_prep_op = {scan_prepare, sizeof(scan_prep), NULL};

/* List l of n entries (absent: dflt each) into v; axes are normalised against rank[i] when
 * rank is given. */
static tosac_code int_list(cpu_ctx *c, int l, int n, int dflt, const int *rank, int *v)
{
    const scan_prep *p = c->prep;
    const char *name = scan_list_names[l];
    CPU_CHECK(c, !p->has[l] || p->cnt[l] == n, "%s must have %d entries", name, n);
    for (int i = 0; i < n; i++) {
        int64_t x = p->has[l] ? p->v[l][i] : dflt;
        if (rank && x < 0)
            x += rank[i];
        CPU_CHECK(c, x >= -1 && x <= TOSAC_MAX_RANK, "%s entry %d is out of range", name, i);
        v[i] = (int)x;
    }
    return TOSAC_OK;
}

static tosac_code scan_config(cpu_ctx *c, int first_input, scan_cfg *cfg)
{
    const scan_prep *p = c->prep;
    cfg->body = p->body;
    cfg->body_k = p->body_k;
    CPU_CHECK(c, cfg->body, "the body is missing");
    int64_t m = p->m;
    int n_inputs = c->n_in - first_input;
    CPU_CHECK(c, m >= 1 && m <= n_inputs, "num_scan_inputs must be in 1..%d", n_inputs);
    cfg->n_in = (int)m;
    cfg->n_state = n_inputs - cfg->n_in;
    cfg->n_out = c->n_out - cfg->n_state;
    CPU_CHECK(c, cfg->n_out >= 0 && cfg->body->n_inputs == n_inputs &&
                     cfg->body->n_outputs == c->n_out,
              "body signature does not match the node");
    for (int i = first_input; i < c->n_in; i++)
        CPU_CHECK(c, c->in[i], "input %d is required", i);
    return TOSAC_OK;
}

static tosac_code scan9(cpu_ctx *c)
{
    scan_cfg cfg;
    tosac_code rc = scan_config(c, 0, &cfg);
    if (rc)
        return rc;
    int in_rank[CPU_MAX_IO], out_rank[CPU_MAX_IO];
    for (int j = 0; j < cfg.n_in; j++)
        in_rank[j] = c->in[cfg.n_state + j]->rank;
    /* an output's rank is the body output's + 1: known only from the declared graph types */
    for (int k = 0; k < cfg.n_out; k++) {
        int id = c->node->outputs[cfg.n_state + k];
        out_rank[k] = id >= 0 ? c->g->tensors[id].rank : -1;
    }
    if ((rc = int_list(c, SC_IN_AXES, cfg.n_in, 0, in_rank, cfg.in_axis)) ||
        (rc = int_list(c, SC_IN_DIRS, cfg.n_in, 0, NULL, cfg.in_rev)) ||
        (rc = int_list(c, SC_OUT_DIRS, cfg.n_out, 0, NULL, cfg.out_rev)))
        return rc;
    const scan_prep *p = c->prep;
    const int64_t *oa = p->has[SC_OUT_AXES] ? p->out_axes : NULL;
    CPU_CHECK(c, !oa || p->cnt[SC_OUT_AXES] == cfg.n_out, "scan_output_axes must have %d entries",
              cfg.n_out);
    for (int k = 0; k < cfg.n_out; k++) {
        int64_t a = oa ? oa[k] : 0;
        CPU_CHECK(c, a >= 0 || out_rank[k] > 0, "a negative scan_output_axes entry needs the "
                  "output's declared rank");
        cfg.out_axis[k] = (int)(a < 0 ? a + out_rank[k] : a);
    }
    return scan_loop(c, &cfg, c->in, c->in + cfg.n_state, 1, c->out);
}

/* Scan-8: every input and output has a batch axis 0; sequences are scanned along axis 1. */
static tosac_code scan8(cpu_ctx *c)
{
    scan_cfg cfg;
    tosac_code rc = scan_config(c, 1, &cfg);
    if (rc)
        return rc;
    if ((rc = int_list(c, SC_DIRS8, cfg.n_in, 0, NULL, cfg.in_rev)))
        return rc;
    for (int j = 0; j < cfg.n_in; j++)
        cfg.in_axis[j] = 0;
    for (int k = 0; k < cfg.n_out; k++)
        cfg.out_axis[k] = cfg.out_rev[k] = 0;
    const tosac_tensor *const *all = c->in + 1;
    int n_all = cfg.n_state + cfg.n_in;
    int64_t batch = -1;
    for (int i = 0; i < n_all; i++) {
        CPU_CHECK(c, all[i]->rank >= 1 + (i >= cfg.n_state), "input %d has no batch axis", i + 1);
        CPU_CHECK(c, batch < 0 || all[i]->shape[0] == batch, "inputs disagree on the batch size");
        batch = all[i]->shape[0];
    }
    if (c->in[0]) {
        const tosac_tensor *sl = c->in[0];
        int64_t full = all[cfg.n_state]->shape[1];
        CPU_CHECK(c, tosac_dtype_is_int(sl->dtype) && tosac_tensor_numel(sl) == batch,
                  "sequence_lens must hold one integer per batch entry");
        for (int64_t b = 0; b < batch; b++)
            if (kern_get_i64(sl->dtype, sl->data, b) != full)
                return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "sequence_lens shorter than the "
                                "sequence (%lld) are not supported", (long long)full);
    }
    tosac_tensor per[CPU_MAX_IO], res[CPU_MAX_IO];
    const tosac_tensor *pp[CPU_MAX_IO];
    memset(per, 0, sizeof per);
    for (int i = 0; i < n_all && !rc; i++) {
        tosac_tensor *slot;
        rc = alloc_around(c, all[i], 0, 1, 0, -1, &per[i], &slot);
        pp[i] = &per[i];
    }
    for (int64_t b = 0; b < batch && !rc; b++) {
        for (int i = 0; i < n_all; i++)
            take_slice(all[i], 0, b, &per[i]);
        if ((rc = scan_loop(c, &cfg, pp, pp + cfg.n_state, 0, res)))
            break;
        for (int k = 0; k < c->n_out && !rc; k++) {
            tosac_tensor *o;
            if (b == 0)
                rc = alloc_around(c, &res[k], 0, 0, batch, k, NULL, &o);
            else if (res[k].nbytes * (size_t)batch != c->out[k].nbytes)
                rc = cpu_fail(c, TOSAC_ERR_INPUT, "output %d changes shape between batch entries", k);
            if (!rc)
                put_slice(&c->out[k], 0, b, &res[k]);
        }
        for (int k = 0; k < c->n_out; k++)
            cpu_tensor_drop(c, &res[k]);
    }
    for (int i = 0; i < n_all; i++)
        cpu_tensor_drop(c, &per[i]);
    return rc;
}

static tosac_code op_scan(cpu_ctx *c) { return c->opset < 9 ? scan8(c) : scan9(c); }

const cpu_op_entry cpu_ops_scan[] = {
    {"Scan", op_scan, 0, &scan_prep_op},
    {NULL, NULL, 0, NULL},
};
