/* NumPy .npy files: whole-file reading and atomic writing around the header code of
 * npy_header.c. */
#include "tosac/npy.h"

#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/npy_header.h"

tosac_code tosac_npy_parse(const void *buf, size_t len, tosac_tensor *out, tosac_error *err)
{
    tosac_npy_info h;
    memset(out, 0, sizeof *out);
    tosac_code rc = tosac_npy_parse_header(buf, len, &h, err);
    if (!rc)
        rc = tosac_npy_check_size(&h, len, err);
    if (!rc)
        rc = tosac_tensor_alloc(out, h.dtype, h.rank, h.shape, err);
    if (rc)
        return rc;
    memcpy(out->data, (const unsigned char *)buf + h.data_offset, h.data_bytes);
    if (h.dtype == TOSAC_DT_BOOL) /* normalise to 0/1 */
        for (size_t i = 0; i < h.data_bytes; i++)
            ((unsigned char *)out->data)[i] = ((unsigned char *)out->data)[i] != 0;
    return TOSAC_OK;
}

tosac_code tosac_npy_read(const char *path, tosac_tensor *out, tosac_error *err)
{
    void *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    tosac_code rc = tosac_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    tosac_error local;
    tosac_error_clear(&local);
    rc = tosac_npy_parse(buf, len, out, &local);
    free(buf);
    char mp[TOSAC_MSG_PATH];
    if (rc)
        return tosac_fail(err, rc, "%s: %s", tosac_msg_path(path, mp), local.msg);
    return TOSAC_OK;
}

tosac_code tosac_npy_write(const char *path, const tosac_tensor *t, tosac_error *err)
{
    unsigned char hdr[TOSAC_NPY_HEADER_MAX];
    size_t hlen = tosac_npy_format_header(t->dtype, t->rank, t->shape, hdr);
    if (!hlen)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED, "cannot write %s tensors as .npy",
                          tosac_dtype_name(t->dtype));
    size_t nbytes = (size_t)tosac_tensor_numel(t) * tosac_dtype_size(t->dtype);
    const void *parts[2] = {hdr, t->data};
    size_t lens[2] = {hlen, nbytes};
    return tosac_write_file_parts(path, parts, lens, 2, err);
}
