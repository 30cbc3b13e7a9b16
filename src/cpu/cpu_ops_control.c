/* Control flow: If and Loop (Scan: cpu_ops_scan.c) run their bodies through nested plans; a body reads outer
 * values through captures (resolved by the executor's environment chain). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/kern.h"

/* The bodies, looked up once (prepare step). A branch is checked when it is taken (a
 * branch never taken may be anything); Loop's body signature is checked here. */
typedef struct control_prep {
    const ir_graph *then_b, *else_b, *body;
    int then_k, else_k, body_k;     /* their subgraph indices (cpu_run_sub_at) */
    int n_carried, n_scan;
} control_prep;

static tosac_code if_prepare(cpu_ctx *c, void *st)
{
    control_prep *p = st;
    p->then_b = cpu_subgraph(c, "then_branch");
    p->else_b = cpu_subgraph(c, "else_branch");
    p->then_k = cpu_subgraph_index(c, p->then_b);
    p->else_k = cpu_subgraph_index(c, p->else_b);
    return TOSAC_OK;
}

static tosac_code loop_prepare(cpu_ctx *c, void *st)
{
    control_prep *p = st;
    const ir_graph *body = p->body = cpu_subgraph(c, "body");
    CPU_CHECK(c, body, "the body is missing");
    p->body_k = cpu_subgraph_index(c, body);
    int n_carried = p->n_carried = c->node->n_inputs - 2;
    CPU_CHECK(c, n_carried >= 0, "Loop needs M and cond inputs (possibly empty)");
    int n_scan = p->n_scan = body->n_outputs - 1 - n_carried;
    CPU_CHECK(c, body->n_inputs == 2 + n_carried && n_scan >= 0 &&
                     c->node->n_outputs == n_carried + n_scan,
              "body signature does not match the node");
    CPU_CHECK(c, 2 + n_carried <= CPU_MAX_IO && 1 + n_carried + n_scan <= CPU_MAX_IO,
              "more than %d loop values", CPU_MAX_IO);
    return TOSAC_OK;
}

static const cpu_op_prep if_prep = {if_prepare, sizeof(control_prep), NULL};
static const cpu_op_prep loop_prep = {loop_prepare, sizeof(control_prep), NULL};

static tosac_code op_if(cpu_ctx *c)
{
    const control_prep *p = c->prep;
    const tosac_tensor *cond;
    int64_t v;
    tosac_code rc = cpu_req(c, 0, &cond);
    if (!rc)
        rc = cpu_scalar_i64(c, cond, &v);
    if (rc)
        return rc;
    const ir_graph *b = v ? p->then_b : p->else_b;
    CPU_CHECK(c, b, "the %s branch is missing", v ? "then" : "else");
    CPU_CHECK(c, b->n_inputs == 0, "a branch must not take inputs");
    CPU_CHECK(c, b->n_outputs == c->n_out, "the branch has %d outputs, the node %d",
              b->n_outputs, c->n_out);
    tosac_tensor res[CPU_MAX_IO];
    rc = cpu_run_sub_at(c, v ? p->then_k : p->else_k, NULL, 0, res, c->n_out);
    for (int i = 0; i < c->n_out && !rc; i++)
        rc = cpu_out_take(c, i, &res[i]);
    return rc;
}

/* One scan output of a Loop: the iterations' values appended to a growing buffer. */
typedef struct loop_scan {
    unsigned char *buf;
    size_t used, cap;
    tosac_tensor first; /* type and shape of iteration 0 (no data) */
    int have;           /* first is set */
} loop_scan;

static tosac_code scan_append(cpu_ctx *c, loop_scan *ls, int s, tosac_tensor *v)
{
    if (!ls->have) {
        ls->first = *v;
        ls->first.data = NULL;
        ls->have = 1;
    } else if (v->nbytes != ls->first.nbytes || v->dtype != ls->first.dtype) {
        return cpu_fail(c, TOSAC_ERR_INPUT, "scan output %d changes shape between iterations", s);
    }
    if (ls->used + v->nbytes > ls->cap) {
        size_t cap = ls->cap ? 2 * ls->cap : 16 * (v->nbytes ? v->nbytes : 1);
        while (cap < ls->used + v->nbytes)
            cap *= 2;
        unsigned char *grown = cpu_temp(c, cap);
        if (!grown)
            return c->err ? c->err->code : TOSAC_ERR_INTERNAL;
        if (ls->used)
            memcpy(grown, ls->buf, ls->used);
        cpu_release(c, ls->buf);
        ls->buf = grown;
        ls->cap = cap;
    }
    if (v->nbytes)
        memcpy(ls->buf + ls->used, v->data, v->nbytes);
    ls->used += v->nbytes;
    return TOSAC_OK;
}

/* Loop: body(iter, cond, carried...) -> (cond, carried..., scan...). Scan outputs of each
 * iteration are stacked along a new first axis. */
static tosac_code op_loop(cpu_ctx *c)
{
    const control_prep *p = c->prep;
    int n_carried = p->n_carried, n_scan = p->n_scan;
    int64_t max_trip = INT64_MAX;
    int keep_going = 1;
    tosac_code rc;
    if (cpu_opt(c, 0) && (rc = cpu_scalar_i64(c, c->in[0], &max_trip)))
        return rc;
    if (cpu_opt(c, 1)) {
        int64_t v;
        if ((rc = cpu_scalar_i64(c, c->in[1], &v)))
            return rc;
        keep_going = v != 0;
    }
    CPU_CHECK(c, cpu_opt(c, 0) || cpu_opt(c, 1), "a loop without M or cond never ends");
    int n_body_out = 1 + n_carried + n_scan;
    /* state[0] = iteration number, state[1] = condition, then the carried values */
    tosac_tensor state[CPU_MAX_IO], outs[CPU_MAX_IO];
    loop_scan scans[CPU_MAX_IO];
    memset(state, 0, sizeof state);
    memset(scans, 0, sizeof scans);
    int64_t n_iter = 0;
    rc = cpu_tensor_temp(c, &state[0], TOSAC_DT_I64, 0, NULL, 1);
    if (!rc)
        rc = cpu_tensor_temp(c, &state[1], TOSAC_DT_BOOL, 0, NULL, 1);
    for (int i = 0; i < n_carried && !rc; i++) {
        const tosac_tensor *v;
        rc = cpu_req(c, 2 + i, &v);
        if (!rc)
            rc = cpu_tensor_temp(c, &state[2 + i], v->dtype, v->rank, v->shape, 0);
        if (!rc && v->nbytes)
            memcpy(state[2 + i].data, v->data, v->nbytes);
    }
    while (!rc && keep_going && n_iter < max_trip) {
        *(int64_t *)state[0].data = n_iter;
        *(uint8_t *)state[1].data = 1;
        rc = cpu_run_sub_at(c, p->body_k, state, 2 + n_carried, outs, n_body_out);
        if (rc)
            break;
        int64_t v;
        if (!(rc = cpu_scalar_i64(c, &outs[0], &v)))
            keep_going = v != 0;
        cpu_tensor_drop(c, &outs[0]);
        for (int i = 0; i < n_carried; i++) {
            cpu_tensor_drop(c, &state[2 + i]);
            state[2 + i] = outs[1 + i];
        }
        for (int s = 0; s < n_scan; s++) {
            if (!rc)
                rc = scan_append(c, &scans[s], s, &outs[1 + n_carried + s]);
            cpu_tensor_drop(c, &outs[1 + n_carried + s]);
        }
        n_iter++;
    }
    for (int i = 0; i < n_carried && !rc; i++)
        rc = cpu_out_take(c, i, &state[2 + i]);
    for (int s = 0; s < n_scan && !rc; s++) {
        /* stack: [n_iter, per-iteration shape]; every iteration agreed in shape */
        const tosac_tensor *f = n_iter ? &scans[s].first : NULL;
        int64_t ys[TOSAC_MAX_RANK] = {n_iter};
        int r = f ? f->rank + 1 : 1;
        if (r > TOSAC_MAX_RANK) {
            rc = cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "scan output rank is too large");
            break;
        }
        for (int k = 1; f && k < r; k++)
            ys[k] = f->shape[k - 1];
        tosac_tensor *y;
        if ((rc = cpu_out_uninit(c, n_carried + s, f ? f->dtype : TOSAC_DT_F32, r, ys, &y)))
            break;
        if (scans[s].used)
            memcpy(y->data, scans[s].buf, scans[s].used);
    }
    /* the rest (state, scan buffers) are temporaries, released when the op returns */
    return rc;
}

const cpu_op_entry cpu_ops_control[] = {
    {"If", op_if, 0, &if_prep},
    {"Loop", op_loop, 0, &loop_prep},
    {NULL, NULL, 0, NULL},
};
