/* Compiler-side entry points of the .tosa reader: the libc allocator and files
 * (the runtime calls tosa_graph_read_ex with its own allocator instead); hashed name indexes. */
#include "tosa/tosa_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fileio.h"

tosac_code tosa_graph_read(const void *buf, size_t len, tosa_graph **out, tosac_error *err)
{
    if (!buf && len) {
        *out = NULL;
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "tosa_graph_read: NULL buffer");
    }
    return tosa_graph_read_indexed(buf, len, tosac_libc_allocator(), tosac_libc_allocator(), 0,
                                   out, err);
}

tosac_code tosa_graph_read_file(const char *path, tosa_graph **out, tosac_error *err)
{
    void *data;
    size_t len;
    *out = NULL;
    tosac_code rc = tosac_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    rc = tosa_graph_read(data, len, out, err);
    free(data);
    if (rc && err && err->code == rc && strncmp(err->msg, path, strlen(path)) != 0) {
        /* Prefix the file name so a user sees which file is bad. */
        size_t pl = strlen(path), cap = sizeof err->msg;
        if (pl + 3 < cap) {
            memmove(err->msg + pl + 2, err->msg, cap - pl - 3);
            memcpy(err->msg, path, pl);
            err->msg[pl] = ':';
            err->msg[pl + 1] = ' ';
            err->msg[cap - 1] = '\0';
        }
    }
    return rc;
}
