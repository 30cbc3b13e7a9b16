/* tosac_npy_parse on hostile input: headers assembled from random pieces of the grammar
 * (keys, values, separators, garbage), byte mutations of real files and every truncation.
 * Each parse gives OK or an INPUT/UNSUPPORTED error with a message, never a crash or an
 * out-of-bounds read (ASan); whatever is accepted has exactly the bytes its header declares. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "util/fileio.h"

/* Parses an exactly-sized copy; checks the result's consistency. Returns 1 if accepted. */
static int try_npy(const uint8_t *data, size_t len)
{
    uint8_t *copy = tu_memdup(data, len);
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_code rc = tosac_npy_parse(copy, len, &t, &err);
    free(copy);
    if (rc != TOSAC_OK) {
        if (rc != TOSAC_ERR_INPUT && rc != TOSAC_ERR_UNSUPPORTED)
            fail_msg("npy parse returned %d: %s", rc, err.msg);
        assert_true(err.msg[0] != '\0');
        assert_null(t.data);
        return 0;
    }
    size_t nbytes;
    assert_int_equal(tosac_shape_check(t.dtype, t.rank, t.shape, &nbytes, NULL), TOSAC_OK);
    assert_int_equal(nbytes, t.nbytes);
    assert_true(t.nbytes <= len);
    if (t.dtype == TOSAC_DT_BOOL)
        for (size_t i = 0; i < t.nbytes; i++)
            assert_true(((uint8_t *)t.data)[i] <= 1);
    tosac_tensor_free(&t);
    return 1;
}

/* A v1 file: magic, version, header (padded with spaces to 64-byte alignment, as NumPy
 * does), then `data_len` bytes of data. */
static size_t make_npy(uint8_t *out, size_t cap, const char *header, size_t data_len, int major)
{
    size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
    size_t total_h = ((pre + hl + 1 + 63) / 64) * 64 - pre;
    size_t len = pre + total_h + data_len;
    if (len > cap)
        return 0;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (uint8_t)major;
    out[7] = 0;
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); i++)
        out[8 + i] = (uint8_t)(total_h >> (8 * i));
    memcpy(out + pre, header, hl);
    memset(out + pre + hl, ' ', total_h - hl - 1);
    out[pre + total_h - 1] = '\n';
    for (size_t i = 0; i < data_len; i++)
        out[pre + total_h + i] = (uint8_t)tu_rand();
    return len;
}

static const char *const keys[] = {"'descr'", "'fortran_order'", "'shape'", "\"descr\"", "'x'",
                                   "'shape", "descr", "''"};
static const char *const descr_vals[] = {"'<i1'", "'|b1'", "'<f4'", "'<f2'", "'|u1'", "'>i4'",
                                         "'<c8'", "'<i8'", "''", "'", "'<f8'", "'|u1'",
                                         "'<i4444444444444444'"};
static const char *const fortran_vals[] = {"False", "True", "Fals", "0", "None"};
static const char *const shape_vals[] = {"()", "(3,)", "(2, 3)", "(0,)", "(2,)", "(1,2,1,2,1,2,1,2)",
                                         "(1,2,1,2,1,2,1,2,1)", "(9223372036854775807,)",
                                         "(99999999999999999999,)", "(-1,)", "(2,,3)", "(2 3)",
                                         "(", "(3L,)", "[3]", "(4294967296, 4294967296)",
                                         "(3,)x"};
static const char *const seps[] = {", ", ",", " ", ": ", ":", "", "}", "{", "\n"};

#define PICK(a) a[tu_below(sizeof a / sizeof a[0])]

/* A header dict of random entries (keys repeated, misspelled or missing, values broken).
 * *data_len gets a plausible data size. */
static void random_header(char *h, size_t cap, size_t *data_len)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 6, 8, 12, 24, 48, 64, 96, 200};
    size_t n = 0;
    n += (size_t)snprintf(h + n, cap - n, "%s", tu_below(10) ? "{" : "");
    int entries = (int)tu_below(5);
    for (int e = 0; e < entries && n < cap - 1; e++) {
        uint32_t k = tu_below(8) < 6 ? tu_below(3) : tu_below(8);
        const char *val = k == 0 || k == 3 ? PICK(descr_vals) : k == 1 ? PICK(fortran_vals)
                                                               : PICK(shape_vals);
        n += (size_t)snprintf(h + n, cap - n, "%s%s%s%s", keys[k], tu_below(10) ? ": " : PICK(seps),
                              val, tu_below(8) ? ", " : PICK(seps));
    }
    if (n < cap - 1)
        snprintf(h + n, cap - n, "%s", tu_below(10) ? "}" : PICK(seps));
    *data_len = PICK(sizes);
}

/* A valid header (keys in a random order) with its exact data size. */
static void valid_header(char *h, size_t cap, size_t *data_len)
{
    static const struct { const char *d; size_t size; } dts[] = {
        {"'<i1'", 1}, {"'|b1'", 1}, {"'<f4'", 4}, {"'<f2'", 2}, {"'|u1'", 1}, {"'<u8'", 8},
        {"'<i2'", 2}, {"'<f8'", 8}};
    static const struct { const char *s; size_t numel; } shapes[] = {
        {"()", 1}, {"(3,)", 3}, {"(2, 3)", 6}, {"(0,)", 0}, {"(1,2,1,2,1,2,1,2)", 16},
        {"(3L, 1)", 3}, {"(0, 65536)", 0}};
    uint32_t di = tu_below(sizeof dts / sizeof dts[0]), si = tu_below(sizeof shapes / sizeof shapes[0]);
    const char *parts[3] = {NULL, "'fortran_order': False", NULL};
    char d[32], sh[64];
    snprintf(d, sizeof d, "'descr': %s", dts[di].d);
    snprintf(sh, sizeof sh, "'shape': %s", shapes[si].s);
    parts[0] = d;
    parts[2] = sh;
    uint32_t first = tu_below(3);
    snprintf(h, cap, "{%s, %s, %s%s}", parts[first], parts[(first + 1) % 3], parts[(first + 2) % 3],
             tu_below(2) ? ", " : "");
    *data_len = dts[di].size * shapes[si].numel;
}

static void test_random_headers(void **state)
{
    (void)state;
    static uint8_t buf[1 << 16];
    char header[1024];
    tu_seed(11);
    int accepted = 0, valid = 0;
    for (int iter = 0; iter < 100000; iter++) {
        size_t data_len;
        bool good = tu_below(4) == 0;
        if (good)
            valid_header(header, sizeof header, &data_len);
        else
            random_header(header, sizeof header, &data_len);
        size_t len = make_npy(buf, sizeof buf, header, data_len, tu_below(4) ? 1 : 2);
        if (!len)
            continue;
        int ok = try_npy(buf, len);
        accepted += ok;
        valid += good;
        if (good && !ok)
            fail_msg("valid header refused: %s", header);
    }
    fprintf(stderr, "random headers: %d of 100000 accepted, %d built valid\n", accepted, valid);
    assert_true(accepted >= valid && valid > 20000);
}

/* The same key twice must not silently combine (a second 'shape' appending dimensions). */
static void test_duplicate_keys_refused(void **state)
{
    (void)state;
    uint8_t buf[256];
    size_t len = make_npy(buf, sizeof buf,
                          "{'descr': '<i1', 'fortran_order': False, 'shape': (2,), 'shape': (3,), }",
                          6, 1);
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_parse(buf, len, &t, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "invalid .npy file: header key 'shape' appears twice");
    tosac_error_clear(&err);
    len = make_npy(buf, sizeof buf,
                   "{'descr': '<i1', 'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", 2, 1);
    assert_int_equal(tosac_npy_parse(buf, len, &t, &err), TOSAC_ERR_INPUT);
    assert_string_equal(err.msg, "invalid .npy file: header key 'descr' appears twice");
}

static void test_mutated_real_files(void **state)
{
    (void)state;
    static const char *const files[] = {
        "conformance/transpose/transpose_15x6_f32_perm0_fs/input-0.npy",
        "conformance/identity/identity_1x4_i48/input-0.npy",
        "conformance/identity/identity_4x4x2x1x4_b/input-0.npy",
    };
    tu_seed(12);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        void *data;
        size_t len;
        tosac_error err;
        tosac_error_clear(&err);
        if (tosac_read_file(tu_shared(files[f]), &data, &len, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(try_npy(data, len), 1);
        for (size_t n = 0; n < len && n < 300; n++) /* every cut through the header */
            assert_int_equal(try_npy(data, n), 0);
        uint8_t *m = malloc(len);
        size_t hdr = len < 160 ? len : 160; /* mutations go mostly into the header */
        for (int iter = 0; iter < 20000; iter++) {
            memcpy(m, data, len);
            for (int e = 1 + (int)tu_below(3); e > 0; e--) {
                size_t pos = tu_below(4) ? tu_below((uint32_t)hdr) : tu_below((uint32_t)len);
                m[pos] = tu_below(2) ? (uint8_t)tu_rand() : (uint8_t)(m[pos] ^ (1u << tu_below(8)));
            }
            try_npy(m, tu_below(8) ? len : tu_below((uint32_t)len + 1));
        }
        free(m);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_headers),
        cmocka_unit_test(test_duplicate_keys_refused),
        cmocka_unit_test(test_mutated_real_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
