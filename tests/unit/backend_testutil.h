/* Small header-only helpers shared by the backend tests (lowering, passes, partitioning). */
#ifndef TOSAC_BACKEND_TESTUTIL_H
#define TOSAC_BACKEND_TESTUTIL_H

#include "testutil.h"

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

#endif
