/* Helpers of the runtime tests on compiled programs (test_runtime_threads.c,
 * test_runtime_prepared.c). Header-only. */
#ifndef TOSAC_RUNTIME_TESTUTIL_H
#define TOSAC_RUNTIME_TESTUTIL_H

#include "testutil.h"

#include "runtime/rt_internal.h"

/* The program's RUNTIME record, in place (a test may change it); fails without one. */
static inline rt_runtime_rec *tu_runtime_rec(void *bytes, size_t len)
{
    rt_program p;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(rt_program_load(bytes, len, &p, &err), TOSAC_OK);
    for (uint32_t s = 0; s < p.n_sections; s++)
        if (p.sections[s].kind == RT_SEC_RUNTIME)
            return (rt_runtime_rec *)((unsigned char *)bytes + p.sections[s].offset);
    fail_msg("no RUNTIME section");
    return NULL;
}

#endif
