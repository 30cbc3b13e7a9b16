/* Small header-only helpers shared by the backend tests (lowering, passes, partitioning). */
#ifndef TOSAC_BACKEND_TESTUTIL_H
#define TOSAC_BACKEND_TESTUTIL_H

#include "testutil.h"

#include <string.h>

#include "tosac/compile.h"
#include "tosac/ir.h"
#include "tosac/program.h"
#include "tosac/spec.h"

/* A parsed spec string (the test fails if it does not parse). */
static inline tosa_spec bt_spec(const char *s)
{
    tosa_spec sp;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosa_spec_parse(s, &sp, &err), TOSAC_OK);
    return sp;
}

/* m (consumed) compiled under spec: tosac_compile_model's code; *p NULL on failure. */
static inline tosac_code bt_compile_rc(ir_model *m, const char *spec, tosac_program **p,
                                       char **report, tosac_error *err)
{
    tosac_compile_options o;
    memset(&o, 0, sizeof o);
    o.spec = spec;
    *p = NULL;
    tosac_error_clear(err);
    return tosac_compile_model(m, &o, p, report, err);
}

/* The same, the test failing with compile's message unless it succeeds; *report (may be
 * NULL) gets the partition report. */
static inline tosac_program *bt_compile(ir_model *m, const char *spec, char **report)
{
    tosac_error err;
    tosac_program *p;
    if (bt_compile_rc(m, spec, &p, report, &err))
        fail_msg("compile under %s: %s", spec, err.msg);
    return p;
}

/* IR graph builders that assert success (lt_* / pt_* in the lowering and pass helpers). */
static inline int bt_input(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                           const int64_t *shape)
{
    tosac_error err;
    tosac_error_clear(&err);
    int t = ir_graph_add_input(g, name, dt, rank, shape, &err);
    assert_true(t >= 0);
    return t;
}

static inline int bt_tensor(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                            const int64_t *shape)
{
    tosac_error err;
    tosac_error_clear(&err);
    int t = ir_graph_add_tensor(g, name, dt, rank, shape, &err);
    assert_true(t >= 0);
    return t;
}

static inline int bt_const(ir_graph *g, const char *name, tosac_dtype dt, int rank,
                           const int64_t *shape, const void *data)
{
    tosac_error err;
    tosac_error_clear(&err);
    size_t nbytes = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    int t = ir_graph_add_const(g, name, dt, rank, shape, data, nbytes, &err);
    assert_true(t >= 0);
    return t;
}

static inline tosac_tensor bt_host(tosac_dtype dt, int rank, const int64_t *shape,
                                   const void *data)
{
    tosac_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = rank;
    if (rank > 0)
        memcpy(t.shape, shape, (size_t)rank * sizeof *shape);
    t.data = (void *)data;
    t.nbytes = (size_t)tosac_shape_numel(rank, shape) * tosac_dtype_size(dt);
    return t;
}

#endif
