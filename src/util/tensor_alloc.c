/* Host tensors with their own heap data (compiler side: the runtime library allocates
 * nothing, its tensors live in the caller's arena). */
#include "tosac/tensor.h"

#include <stdlib.h>
#include <string.h>

tosac_code tosac_tensor_alloc(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                              tosac_error *err)
{
    tosac_code rc = tosac_tensor_describe(t, dt, rank, shape, err);
    if (rc)
        return rc;
    size_t nbytes = t->nbytes;
    /* Always allocate at least one byte so data != NULL for empty tensors. */
    t->data = calloc(1, nbytes ? nbytes : 1);
    if (!t->data)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory allocating %zu bytes", nbytes);
    t->nbytes = nbytes;
    t->owns_data = 1;
    return TOSAC_OK;
}

void tosac_tensor_free(tosac_tensor *t)
{
    if (t && t->owns_data)
        free(t->data);
    if (t) {
        t->data = NULL;
        t->nbytes = 0;
        t->owns_data = 0;
    }
}
