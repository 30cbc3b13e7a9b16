/* Control flow: If and Loop (Scan: cpu_ops_scan.c) run their bodies through nested plans; a body reads outer
 * values through captures (resolved by the executor's environment chain). */
#include "cpu/cpu_internal.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/kern.h"

static tosac_code op_if(cpu_ctx *c)
{
    const tosac_tensor *cond;
    int64_t v;
    tosac_code rc = cpu_req(c, 0, &cond);
    if (!rc)
        rc = cpu_scalar_i64(c, cond, &v);
    if (rc)
        return rc;
    cpu_plan *p = cpu_subplan(c, v ? "then_branch" : "else_branch");
    CPU_CHECK(c, p, "the %s branch is missing", v ? "then" : "else");
    CPU_CHECK(c, cpu_plan_n_inputs(p) == 0, "a branch must not take inputs");
    CPU_CHECK(c, cpu_plan_n_outputs(p) == c->n_out, "the branch has %d outputs, the node %d",
              cpu_plan_n_outputs(p), c->n_out);
    return cpu_run_sub(c, p, NULL, 0, c->out, c->n_out);
}

/* Loop: body(iter, cond, carried...) -> (cond, carried..., scan...). Scan outputs of each
 * iteration are stacked along a new first axis. */
static tosac_code op_loop(cpu_ctx *c)
{
    cpu_plan *p = cpu_subplan(c, "body");
    CPU_CHECK(c, p, "the body is missing");
    int n_carried = c->n_in - 2;
    CPU_CHECK(c, n_carried >= 0, "Loop needs M and cond inputs (possibly empty)");
    int n_scan = cpu_plan_n_outputs(p) - 1 - n_carried;
    CPU_CHECK(c, cpu_plan_n_inputs(p) == 2 + n_carried && n_scan >= 0 &&
                     c->n_out == n_carried + n_scan,
              "body signature does not match the node");
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
    tosac_tensor *state = calloc((size_t)(2 + n_carried), sizeof *state);
    tosac_tensor *outs = calloc((size_t)n_body_out, sizeof *outs);
    /* scan results per output: a growing array of per-iteration tensors */
    tosac_tensor **scans = calloc((size_t)(n_scan > 0 ? n_scan : 1), sizeof *scans);
    int64_t n_iter = 0, cap = 0;
    rc = state && outs && scans ? TOSAC_OK : cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    /* state[0] = iteration number, state[1] = condition, then the carried values */
    if (!rc)
        rc = tosac_tensor_alloc(&state[0], TOSAC_DT_I64, 0, NULL, c->err);
    if (!rc)
        rc = tosac_tensor_alloc(&state[1], TOSAC_DT_BOOL, 0, NULL, c->err);
    for (int i = 0; i < n_carried && !rc; i++) {
        const tosac_tensor *v;
        rc = cpu_req(c, 2 + i, &v);
        if (!rc)
            rc = tosac_tensor_alloc(&state[2 + i], v->dtype, v->rank, v->shape, c->err);
        if (!rc && v->nbytes)
            memcpy(state[2 + i].data, v->data, v->nbytes);
    }
    while (!rc && keep_going && n_iter < max_trip) {
        *(int64_t *)state[0].data = n_iter;
        *(uint8_t *)state[1].data = 1;
        rc = cpu_run_sub(c, p, state, 2 + n_carried, outs, n_body_out);
        if (rc)
            break;
        int64_t v;
        if ((rc = cpu_scalar_i64(c, &outs[0], &v)))
            break;
        keep_going = v != 0;
        tosac_tensor_free(&outs[0]);
        for (int i = 0; i < n_carried; i++) {
            tosac_tensor_free(&state[2 + i]);
            state[2 + i] = outs[1 + i];
            memset(&outs[1 + i], 0, sizeof outs[1 + i]);
        }
        if (n_scan && n_iter == cap) {
            cap = cap ? 2 * cap : 16;
            for (int s = 0; s < n_scan && !rc; s++) {
                tosac_tensor *grown = realloc(scans[s], (size_t)cap * sizeof(tosac_tensor));
                if (!grown)
                    rc = cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
                else
                    scans[s] = grown;
            }
            if (rc)
                break;
        }
        for (int s = 0; s < n_scan; s++) {
            scans[s][n_iter] = outs[1 + n_carried + s];
            memset(&outs[1 + n_carried + s], 0, sizeof(tosac_tensor));
        }
        n_iter++;
    }
    for (int i = 0; i < n_carried && !rc; i++) {
        c->out[i] = state[2 + i];
        memset(&state[2 + i], 0, sizeof state[2 + i]);
    }
    for (int s = 0; s < n_scan && !rc; s++) {
        /* stack: [n_iter, per-iteration shape]; every iteration must agree in shape */
        const tosac_tensor *f = n_iter ? &scans[s][0] : NULL;
        int64_t ys[TOSAC_MAX_RANK] = {n_iter};
        int r = f ? f->rank + 1 : 1;
        tosac_dtype dt = f ? f->dtype : TOSAC_DT_F32;
        for (int k = 1; f && k < r; k++)
            ys[k] = f->shape[k - 1];
        if (r > TOSAC_MAX_RANK) {
            rc = cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "scan output rank is too large");
            break;
        }
        tosac_tensor *y;
        if ((rc = cpu_out(c, n_carried + s, dt, r, ys, &y)))
            break;
        size_t each = f ? f->nbytes : 0;
        for (int64_t it = 0; it < n_iter; it++) {
            if (scans[s][it].nbytes != each || scans[s][it].dtype != dt) {
                rc = cpu_fail(c, TOSAC_ERR_INPUT, "scan output %d changes shape between iterations", s);
                break;
            }
            if (each)
                memcpy((char *)y->data + it * (int64_t)each, scans[s][it].data, each);
        }
    }
    for (int i = 0; state && i < 2 + n_carried; i++)
        tosac_tensor_free(&state[i]);
    for (int i = 0; outs && i < n_body_out; i++)
        tosac_tensor_free(&outs[i]);
    for (int s = 0; scans && s < n_scan; s++) {
        for (int64_t it = 0; it < n_iter; it++)
            tosac_tensor_free(&scans[s][it]);
        free(scans[s]);
    }
    free(scans);
    free(state);
    free(outs);
    return rc;
}

const cpu_op_entry cpu_ops_control[] = {
    {"If", op_if, 0},
    {"Loop", op_loop, 0},
    {NULL, NULL, 0},
};
