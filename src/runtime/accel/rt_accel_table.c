/* Accelerated TABLE (kernels: src/ukernels/table.c) with a constant table: int8 lookup, and
 * int16 interpolation over a table prepared once, its slope REQUIRE (every difference of
 * neighbouring entries within int16) checked here; a table breaking it is left to the
 * reference, which reports it. */
#include "runtime/accel/rt_accel_group.h"
#include "ukernels/table.h"

typedef struct table_data {
    rt_accel_group g;
    const void *table;          /* int8: the table; int16: the prepared pairs */
    bool i8;
} table_data;

static tosac_code run_table(interp_ctx *c)
{
    table_data *d = c->op_data;
    const tosac_tensor *in = c->in[0];
    if (d->i8)
        ukr_table_i8(d->table, in->data, d->g.dst, tosac_tensor_numel(in));
    else
        ukr_table_i16(d->table, in->data, d->g.dst, tosac_tensor_numel(in));
    return TOSAC_OK;
}

static int table_try(rt_accel_block *ab, int op, tosac_error *err)
{
    (void)err;
    const tosa_operator *o = &ab->b->ops[op];
    if (o->op != TOSA_OP_TABLE || o->n_inputs != 2 || o->n_outputs != 1 ||
        !rt_accel_is_const(ab, o->inputs[1]))
        return 0;
    const tosac_tensor *in = rt_accel_tensor(ab, o->inputs[0]),
                       *tab = rt_accel_tensor(ab, o->inputs[1]),
                       *out = rt_accel_tensor(ab, o->outputs[0]);
    bool i8 = in->dtype == TOSAC_DT_I8;
    if ((!i8 && in->dtype != TOSAC_DT_I16) || tab->dtype != in->dtype ||
        out->dtype != (i8 ? TOSAC_DT_I8 : TOSAC_DT_I32) ||
        !tosac_shape_equal(in->rank, in->shape, out->rank, out->shape) || tab->rank != 1 ||
        tab->shape[0] != (i8 ? 256 : 513))
        return 0;
    table_data *d = rt_accel_alloc(ab, sizeof *d);
    if (!d)
        return 0;
    d->i8 = i8;
    d->table = tab->data;
    if (!i8) {
        const int16_t *t = tab->data;
        for (int i = 0; i < 512; i++)
            if (t[i + 1] - t[i] < INT16_MIN || t[i + 1] - t[i] > INT16_MAX)
                return 0;
        int32_t *prep = rt_accel_alloc(ab, sizeof(int32_t) * 1024);
        if (!prep)
            return 0;
        ukr_table_i16_prepare(t, prep);
        d->table = prep;
    }
    return rt_accel_group_install(ab, &d->g, &op, 1, &o->inputs[0], 1, -1, run_table, d);
}

const rt_accel_family rt_accel_table = {"table", table_try};
