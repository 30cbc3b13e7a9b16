/* Accelerated MATMUL int8 x int8 -> i32 (B_zp 0), with the RESCALE (i32 -> i8) and CLAMP
 * that follow it fused (rt_accel_requant.h), on the qgemm micro-kernel: per batch, A[n] is
 * H rows of C (read in place), B[n] is C x W. A constant B is packed once here, one pack per
 * batch; an activation B is packed per invoke and batch into thread 0's scratch (its tasks
 * need no scratch of their own) before that batch's row blocks run on rt_accel_parallel. */
#include <string.h>

#include "interp/interp_registry.h"
#include "runtime/accel/rt_accel_requant.h"

#define ROWS 96 /* rows of A per task */

typedef struct mm_prep {
    qgemm_packed *pk;           /* one per batch (constant B), or one (activation B) */
    qgemm_params q;             /* activation B: what to pack at invoke (b set then) */
    kern_isa isa;
    int dynamic;
    int batch, H, C, W, blocks; /* blocks: tasks per batch */
    void *dst;
    unsigned char *task_bad;    /* per task of one parallel run */
    rt_accel_shared *sh;
    interp_block_state *bs;
    int rescale_op;
} mm_prep;

typedef struct mm_run {
    const mm_prep *p;
    const int8_t *A;
    int batch;                  /* -1: tasks cover every batch (constant B) */
} mm_run;

static void mm_task(void *ctx, int i, int thread)
{
    const mm_run *r = ctx;
    const mm_prep *p = r->p;
    int n = r->batch >= 0 ? r->batch : i / p->blocks, blk = r->batch >= 0 ? i : i % p->blocks;
    int h0 = blk * ROWS, mb = p->H - h0 < ROWS ? p->H - h0 : ROWS;
    const qgemm_packed *pk = p->dynamic ? p->pk : &p->pk[n];
    size_t row = (size_t)n * (size_t)p->H + (size_t)h0;
    size_t esz = pk->out == QGEMM_OUT_I32 ? 4 : 1;
    void *c = (unsigned char *)p->dst + row * (size_t)p->W * esz;
    p->task_bad[i] |= (unsigned char)(qgemm_run(pk, r->A + row * (size_t)p->C, (size_t)p->C, mb,
                                                0, p->W, c, (size_t)p->W) != QGEMM_OK);
    (void)thread;
}

static tosac_code mm_invoke(interp_ctx *c)
{
    mm_prep *p = c->op_data;
    mm_run r = {p, c->in[0]->data, -1};
    int n_tasks = p->dynamic ? p->blocks : p->blocks * p->batch;
    memset(p->task_bad, 0, (size_t)n_tasks);
    if (!p->dynamic) {
        rt_accel_parallel(p->sh, n_tasks, mm_task, &r);
    } else {
        for (int n = 0; n < p->batch; n++) {
            qgemm_params q = p->q;
            q.b = (const int8_t *)c->in[1]->data + (size_t)n * (size_t)p->C * (size_t)p->W;
            if (!qgemm_pack(p->pk, p->isa, &q, rt_accel_scratch(p->sh, 0)))
                return interp_error(c, "internal: packing B failed");
            r.batch = n;
            rt_accel_parallel(p->sh, n_tasks, mm_task, &r);
        }
    }
    for (int i = 0; i < n_tasks; i++)
        if (p->task_bad[i])
            return rt_accel_requant_report(c, interp_find_op(TOSA_OP_MATMUL), p->bs,
                                           p->rescale_op);
    return TOSAC_OK;
}

static bool fits_int(int64_t v) { return v >= 1 && v <= (1 << 24); }

static int try_matmul(rt_accel_block *ab, int op, tosac_error *err)
{
    const tosa_operator *o = &ab->b->ops[op];
    (void)err;
    if (o->op != TOSA_OP_MATMUL || o->n_inputs != 4 || o->n_outputs != 1 ||
        !rt_accel_is_const(ab, o->inputs[2]) || !rt_accel_is_const(ab, o->inputs[3]))
        return 0;
    const tosac_tensor *A = rt_accel_tensor(ab, o->inputs[0]);
    const tosac_tensor *B = rt_accel_tensor(ab, o->inputs[1]);
    const tosac_tensor *azp = rt_accel_tensor(ab, o->inputs[2]);
    const tosac_tensor *bzp = rt_accel_tensor(ab, o->inputs[3]);
    const tosac_tensor *out = rt_accel_tensor(ab, o->outputs[0]);
    if (A->dtype != TOSAC_DT_I8 || B->dtype != TOSAC_DT_I8 || out->dtype != TOSAC_DT_I32 ||
        A->rank != 3 || B->rank != 3 || out->rank != 3 || azp->dtype != TOSAC_DT_I8 ||
        bzp->dtype != TOSAC_DT_I8 || tosac_tensor_numel(azp) != 1 ||
        tosac_tensor_numel(bzp) != 1 || !azp->data || !bzp->data ||
        *(const int8_t *)bzp->data != 0)
        return 0;
    int64_t N = A->shape[0], H = A->shape[1], C = A->shape[2], W = B->shape[2];
    if (!fits_int(N) || !fits_int(H) || !fits_int(C) || !fits_int(W) || B->shape[0] != N ||
        B->shape[1] != C || out->shape[0] != N || out->shape[1] != H || out->shape[2] != W ||
        N * H > ((int64_t)1 << 30))
        return 0;
    int dynamic = !rt_accel_is_const(ab, o->inputs[1]);
    if (!dynamic && !B->data)
        return 0;
    rt_accel_requant rq;
    int fused = rt_accel_match_requant(ab, op, o->outputs[0], W, &rq);
    mm_prep *p = rt_accel_alloc(ab, sizeof *p);
    if (!p)
        return 0;
    memset(p, 0, sizeof *p);
    p->batch = (int)N;
    p->H = (int)H;
    p->C = (int)C;
    p->W = (int)W;
    p->blocks = (p->H + ROWS - 1) / ROWS;
    p->dynamic = dynamic;
    p->isa = qgemm_variant();
    p->q = (qgemm_params){.K = p->C, .N = p->W, .b = B->data, .b_sk = (ptrdiff_t)W, .b_sn = 1,
                          .a_zp = *(const int8_t *)azp->data};
    rt_accel_requant_qgemm(fused ? &rq : NULL, &p->q);
    size_t pbytes = qgemm_packed_size(p->C, p->W);
    int n_pk = dynamic ? 1 : p->batch;
    p->pk = rt_accel_alloc(ab, sizeof(qgemm_packed) * (size_t)n_pk);
    p->task_bad = rt_accel_alloc(ab, (size_t)p->blocks * (size_t)(dynamic ? 1 : p->batch));
    if (!pbytes || !p->pk || !p->task_bad)
        return 0;
    for (int n = 0; !dynamic && n < p->batch; n++) {
        void *mem = rt_accel_alloc(ab, pbytes);
        qgemm_params q = p->q;
        q.b = (const int8_t *)B->data + (size_t)n * (size_t)C * (size_t)W;
        if (!mem || (ab->sh->measure_only ? !qgemm_pack_ok(p->isa, &q)
                                          : !qgemm_pack(&p->pk[n], p->isa, &q, mem)))
            return 0;
    }
    p->sh = ab->sh;
    p->bs = ab->bs;
    p->rescale_op = fused ? rq.ops[0] : -1;
    int ops[3] = {op, fused ? rq.ops[0] : -1, fused && rq.n_ops > 1 ? rq.ops[1] : -1};
    int ins[2] = {o->inputs[0], o->inputs[1]};
    if (!rt_accel_install(ab, ops, fused ? 1 + rq.n_ops : 1, ins, dynamic ? 2 : 1, o->outputs[0],
                          fused ? rq.final : o->outputs[0], mm_invoke, p, &p->dst))
        return 0;
    if (dynamic)
        rt_accel_request_scratch(ab, pbytes);
    return 1;
}

const rt_accel_family rt_accel_family_matmul = {"matmul", try_matmul};
