/* Constant data: the file's little-endian encodings <-> the in-memory representation of
 * dtype.h. INT4 (and 1.1 FP4E2M1) pack two values per byte, low nibble first; INT48 is the
 * low 6 bytes of the two's complement value; everything else is its natural LE width. */
#include "tosa/tosa_internal.h"

#include <string.h>

static bool nibble_packed(tosac_dtype dt) { return dt == TOSAC_DT_I4 || dt == TOSAC_DT_FP4E2M1; }

static size_t file_elem_bytes(tosac_dtype dt)
{
    return dt == TOSAC_DT_I48 ? 6 : tosac_dtype_size(dt);
}

uint64_t tosa_data_file_bytes(tosac_dtype dt, uint64_t n)
{
    if (nibble_packed(dt))
        return (n + 1) / 2;
    return n * file_elem_bytes(dt);
}

/* On a little-endian host the file's encoding of a natural-width type is its memory form:
 * one memcpy instead of an element loop (constants are most of a program's bytes). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_IS_LE 1
#else
#define HOST_IS_LE 0
#endif

static uint64_t get_le(const uint8_t *p, size_t w)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, uint64_t v, size_t w)
{
    for (size_t i = 0; i < w; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Native storage of a w-byte value (host order, via memcpy of the right C type). */
static void store_native(void *dst, uint64_t i, uint64_t v, size_t w)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    char *d = (char *)dst + i * w;
    switch (w) {
    case 1: memcpy(d, &u8, 1); break;
    case 2: memcpy(d, &u16, 2); break;
    case 4: memcpy(d, &u32, 4); break;
    default: memcpy(d, &v, 8); break;
    }
}

static uint64_t load_native(const void *src, uint64_t i, size_t w)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    const char *s = (const char *)src + i * w;
    switch (w) {
    case 1: memcpy(&u8, s, 1); return u8;
    case 2: memcpy(&u16, s, 2); return u16;
    case 4: memcpy(&u32, s, 4); return u32;
    default: memcpy(&u64, s, 8); return u64;
    }
}

void tosa_data_decode(tosac_dtype dt, const uint8_t *src, uint64_t n, void *dst)
{
    uint8_t *d8 = dst;
    if (nibble_packed(dt)) {
        for (uint64_t i = 0; i < n; i++) {
            unsigned nib = (src[i / 2] >> (4 * (i % 2))) & 0xf;
            /* INT4 is two's complement; FP4 keeps its raw 4-bit pattern. */
            d8[i] = (uint8_t)(dt == TOSAC_DT_I4 && nib >= 8 ? nib - 16 : nib);
        }
        return;
    }
    if (dt == TOSAC_DT_BOOL) {
        for (uint64_t i = 0; i < n; i++)
            d8[i] = src[i] != 0;
        return;
    }
    if (dt == TOSAC_DT_I48) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v = get_le(src + 6 * i, 6);
            if (v & ((uint64_t)1 << 47))
                v |= ~(((uint64_t)1 << 48) - 1);
            store_native(dst, i, v, 8);
        }
        return;
    }
    size_t w = file_elem_bytes(dt);
    if (HOST_IS_LE) {
        if (n)
            memcpy(dst, src, (size_t)(n * w));
        return;
    }
    for (uint64_t i = 0; i < n; i++)
        store_native(dst, i, get_le(src + w * i, w), w);
}

tosac_code tosa_data_encode(tosac_dtype dt, const void *src, uint64_t n, uint8_t *dst,
                            const char *tensor_name, tosac_error *err)
{
    const int8_t *s8 = src;
    if (nibble_packed(dt)) {
        memset(dst, 0, (size_t)tosa_data_file_bytes(dt, n));
        for (uint64_t i = 0; i < n; i++) {
            int v = s8[i];
            if (dt == TOSAC_DT_I4 ? (v < -8 || v > 7) : (v < 0 || v > 15))
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "tensor '%s': value %d at element %llu does not fit in 4 bits",
                                  tensor_name, v, (unsigned long long)i);
            dst[i / 2] |= (uint8_t)((v & 0xf) << (4 * (i % 2)));
        }
        return TOSAC_OK;
    }
    if (dt == TOSAC_DT_I48) {
        const int64_t lim = (int64_t)1 << 47;
        for (uint64_t i = 0; i < n; i++) {
            int64_t v = (int64_t)load_native(src, i, 8);
            if (v < -lim || v >= lim)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "tensor '%s': value %lld at element %llu does not fit in INT48",
                                  tensor_name, (long long)v, (unsigned long long)i);
            put_le(dst + 6 * i, (uint64_t)v, 6);
        }
        return TOSAC_OK;
    }
    if (dt == TOSAC_DT_BOOL) {
        /* in memory a bool is 0 or 1 (dtype.h); anything else is a producer's bug, and
         * normalising it would make the file differ from the graph written */
        for (uint64_t i = 0; i < n; i++) {
            uint8_t v = ((const uint8_t *)src)[i];
            if (v > 1)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "tensor '%s': value %u at element %llu is not a bool (0 or 1)",
                                  tensor_name, v, (unsigned long long)i);
            dst[i] = v;
        }
        return TOSAC_OK;
    }
    size_t w = file_elem_bytes(dt);
    if (HOST_IS_LE) {
        if (n)
            memcpy(dst, src, (size_t)(n * w));
        return TOSAC_OK;
    }
    for (uint64_t i = 0; i < n; i++)
        put_le(dst + w * i, load_native(src, i, w), w);
    return TOSAC_OK;
}
