/* The .npy header: parsing and writing without allocation or stdio (see npy_header.h). The
 * header is a Python dict literal; we accept exactly the keys NumPy writes ('descr',
 * 'fortran_order', 'shape') and check each one. */
#include "util/npy_header.h"

#include <string.h>

static const struct {
    const char *descr;
    tosac_dtype dt;
} descrs[] = {
    {"|b1", TOSAC_DT_BOOL}, {"|u1", TOSAC_DT_U8},  {"|i1", TOSAC_DT_I8},  {"<u1", TOSAC_DT_U8},
    {"<i1", TOSAC_DT_I8},   {"<b1", TOSAC_DT_BOOL}, {"<u2", TOSAC_DT_U16}, {"<i2", TOSAC_DT_I16},
    {"<u4", TOSAC_DT_U32},  {"<i4", TOSAC_DT_I32},  {"<u8", TOSAC_DT_U64}, {"<i8", TOSAC_DT_I64},
    {"<f2", TOSAC_DT_F16},  {"<f4", TOSAC_DT_F32},  {"<f8", TOSAC_DT_F64},
};

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Parse a quoted Python string literal into out. */
static const char *parse_str(const char *p, const char *end, char *out, size_t outlen)
{
    if (p >= end || (*p != '\'' && *p != '"'))
        return NULL;
    char q = *p++;
    size_t n = 0;
    while (p < end && *p != q) {
        if (n + 1 >= outlen)
            return NULL;
        out[n++] = *p++;
    }
    if (p >= end)
        return NULL;
    out[n] = '\0';
    return p + 1;
}

static tosac_code bad(tosac_error *err, const char *what)
{
    return tosac_fail(err, TOSAC_ERR_INPUT, "invalid .npy file: %s", what);
}

tosac_code tosac_npy_parse_header(const void *buf, size_t len, tosac_npy_info *info,
                                  tosac_error *err)
{
    const unsigned char *b = buf;
    memset(info, 0, sizeof *info);
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return bad(err, "missing \\x93NUMPY magic");
    unsigned major = b[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)b[8] | ((size_t)b[9] << 8);
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return bad(err, "truncated header");
        hlen = (size_t)b[8] | ((size_t)b[9] << 8) | ((size_t)b[10] << 16) | ((size_t)b[11] << 24);
        hstart = 12;
    } else {
        return tosac_fail(err, TOSAC_ERR_INPUT, "invalid .npy file: unsupported format version %u",
                          major);
    }
    if (hlen > len - hstart)
        return bad(err, "header longer than the file");
    const char *p = (const char *)b + hstart, *end = p + hlen;
    char descr[16] = "";
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0;
    int rank = 0;
    int64_t shape[TOSAC_MAX_RANK];

    p = skip_ws(p, end);
    if (p >= end || *p++ != '{')
        return bad(err, "header is not a dict");
    for (;;) {
        p = skip_ws(p, end);
        if (p < end && *p == '}')
            break;
        char key[32];
        p = parse_str(p, end, key, sizeof key);
        if (!p)
            return bad(err, "header key is not a string");
        p = skip_ws(p, end);
        if (p >= end || *p++ != ':')
            return bad(err, "missing ':' in header");
        p = skip_ws(p, end);
        if ((strcmp(key, "descr") == 0 && have_descr) ||
            (strcmp(key, "fortran_order") == 0 && have_fortran) ||
            (strcmp(key, "shape") == 0 && have_shape)) /* a second 'shape' would add dims */
            return tosac_fail(err, TOSAC_ERR_INPUT, "invalid .npy file: header key '%s' appears twice",
                              key);
        if (strcmp(key, "descr") == 0) {
            p = parse_str(p, end, descr, sizeof descr);
            if (!p)
                return bad(err, "'descr' is not a simple type string");
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0) {
            if ((size_t)(end - p) >= 4 && memcmp(p, "True", 4) == 0) {
                fortran = 1;
                p += 4;
            } else if ((size_t)(end - p) >= 5 && memcmp(p, "False", 5) == 0) {
                p += 5;
            } else {
                return bad(err, "'fortran_order' is not True or False");
            }
            have_fortran = 1;
        } else if (strcmp(key, "shape") == 0) {
            if (p >= end || *p++ != '(')
                return bad(err, "'shape' is not a tuple");
            for (;;) {
                p = skip_ws(p, end);
                if (p < end && *p == ')') {
                    p++;
                    break;
                }
                if (p >= end || *p < '0' || *p > '9')
                    return bad(err, "'shape' holds something other than non-negative integers");
                int64_t v = 0;
                while (p < end && *p >= '0' && *p <= '9') {
                    if (v > (INT64_MAX - 9) / 10)
                        return bad(err, "dimension too large");
                    v = v * 10 + (*p++ - '0');
                }
                if (p < end && *p == 'L')
                    p++;
                if (rank >= TOSAC_MAX_RANK)
                    return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                                      "invalid .npy file: rank above %d is not supported",
                                      TOSAC_MAX_RANK);
                shape[rank++] = v;
                p = skip_ws(p, end);
                if (p < end && *p == ',')
                    p++;
                else if (p < end && *p == ')') {
                    p++;
                    break;
                } else
                    return bad(err, "malformed 'shape' tuple");
            }
            have_shape = 1;
        } else {
            return tosac_fail(err, TOSAC_ERR_INPUT, "invalid .npy file: unexpected header key '%s'",
                              key);
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}')
            break;
        return bad(err, "malformed header dict");
    }
    if (!have_descr || !have_fortran || !have_shape)
        return bad(err, "header lacks 'descr', 'fortran_order' or 'shape'");
    if (fortran)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "invalid .npy file: Fortran-order arrays are not supported (save C order)");
    tosac_dtype dt = TOSAC_DT_UNKNOWN;
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (strcmp(descr, descrs[i].descr) == 0)
            dt = descrs[i].dt;
    if (dt == TOSAC_DT_UNKNOWN)
        return tosac_fail(err, TOSAC_ERR_UNSUPPORTED,
                          "invalid .npy file: dtype '%s' is not supported (little-endian bool, "
                          "[u]int8/16/32/64, float16/32/64 are)",
                          descr);
    size_t nbytes;
    tosac_code rc = tosac_shape_check(dt, rank, shape, &nbytes, err);
    if (rc)
        return rc;
    info->dtype = dt;
    info->rank = rank;
    memcpy(info->shape, shape, sizeof shape);
    info->data_offset = hstart + hlen;
    info->data_bytes = nbytes;
    return TOSAC_OK;
}

tosac_code tosac_npy_check_size(const tosac_npy_info *info, size_t file_len, tosac_error *err)
{
    if (file_len >= info->data_offset && file_len - info->data_offset == info->data_bytes)
        return TOSAC_OK;
    char sb[128];
    return tosac_fail(err, TOSAC_ERR_INPUT,
                      "invalid .npy file: %zu data bytes, but %s %s needs %zu",
                      file_len > info->data_offset ? file_len - info->data_offset : 0,
                      tosac_dtype_numpy_name(info->dtype),
                      tosac_shape_str(info->rank, info->shape, sb, sizeof sb), info->data_bytes);
}

static const char *descr_for(tosac_dtype dt)
{
    switch (dt) {
    case TOSAC_DT_BOOL: return "|b1";
    case TOSAC_DT_U8: return "|u1";
    case TOSAC_DT_I8: return "|i1";
    case TOSAC_DT_U16: return "<u2";
    case TOSAC_DT_I16: return "<i2";
    case TOSAC_DT_U32: return "<u4";
    case TOSAC_DT_I32: return "<i4";
    case TOSAC_DT_U64: return "<u8";
    case TOSAC_DT_I48:
    case TOSAC_DT_SHAPE:
    case TOSAC_DT_I64: return "<i8";
    case TOSAC_DT_F16: return "<f2";
    case TOSAC_DT_F32: return "<f4";
    case TOSAC_DT_F64: return "<f8";
    default: return NULL;
    }
}

/* Decimal digits of v at p; returns the end. */
static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    char d[20];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = (unsigned char)d[--n];
    return p;
}

static unsigned char *put_str(unsigned char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

size_t tosac_npy_format_header(tosac_dtype dt, int rank, const int64_t *shape,
                               unsigned char *buf)
{
    const char *descr = descr_for(dt);
    if (!descr || rank < 0 || rank > TOSAC_MAX_RANK)
        return 0;
    unsigned char *p = put_str(buf + 10, "{'descr': '");
    p = put_str(p, descr);
    p = put_str(p, "', 'fortran_order': False, 'shape': (");
    /* NumPy's own spelling: "()", "(3,)", "(2, 3)". */
    for (int i = 0; i < rank; i++) {
        if (i)
            p = put_str(p, ", ");
        p = put_u64(p, (uint64_t)shape[i]);
    }
    if (rank == 1)
        p = put_str(p, ",");
    p = put_str(p, "), }");
    /* Pad with spaces so magic+len+dict+'\n' is a multiple of 64 (NumPy's alignment). */
    size_t used = (size_t)(p - buf) + 1, padded = (used + 63) / 64 * 64;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((padded - 10) & 0xff);
    buf[9] = (unsigned char)((padded - 10) >> 8);
    memset(p, ' ', padded - used);
    buf[padded - 1] = '\n';
    return padded;
}
