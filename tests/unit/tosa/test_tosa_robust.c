/* The reader on damaged files: every truncation and a few thousand seeded corruptions of
 * real files must give OK or TOSAC_ERR_INPUT, never a crash or an out-of-bounds read (the
 * ASan build runs this). Whatever the reader accepts, the writer must write and the reader
 * read back equal. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/tosa.h"
#include "util/fileio.h"

static const char *const files[] = {
    "conformance/rescale/rescale_0_i48_outi8_sc0_dr0_pc0_iu0_ou0/test.tosa",
    "conformance/while_loop/while_loop_0_i8_iter0/test.tosa",
    "conformance/clamp/clamp_0_f32_modeI/test.tosa",
    "conformance/conv3d/conv3d_1x2x2_1x4x6x5x3_i16xi8_acci48_st212_pad010110_dilat121_lclbnd0/"
    "test.tosa",
};

/* Reads an exactly-sized copy (so ASan sees any read past the end) and checks the result. */
static int try_buffer(const uint8_t *data, size_t len)
{
    uint8_t *copy = tu_memdup(data, len);
    tosac_error err;
    tosac_error_clear(&err);
    tosa_graph *g = NULL;
    tosac_code rc = tosa_graph_read(copy, len, &g, &err);
    free(copy);
    if (rc != TOSAC_OK) {
        if (rc != TOSAC_ERR_INPUT)
            fail_msg("read returned %d: %s", rc, err.msg);
        assert_null(g);
        assert_true(err.msg[0] != '\0');
        return 0;
    }
    void *buf;
    size_t blen;
    rc = tosa_graph_write(g, &buf, &blen, &err);
    if (rc == TOSAC_OK) {
        tosa_graph *back;
        if (tosa_graph_read(buf, blen, &back, &err) != TOSAC_OK)
            fail_msg("re-reading our own output failed: %s", err.msg);
        assert_true(tosa_graph_equal(g, back));
        tosa_graph_free(back);
        free(buf);
    } else if (rc == TOSAC_ERR_INTERNAL) {
        fail_msg("write of an accepted graph: %s", err.msg);
    }
    tosa_graph_free(g);
    return 1;
}

static uint8_t *load(const char *rel, size_t *len)
{
    void *data;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_read_file(tu_shared(rel), &data, len, &err))
        fail_msg("%s", err.msg);
    return data;
}

static void test_truncations(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        uint8_t *data = load(files[f], &len);
        int accepted = 0;
        for (size_t n = 0; n < len; n++)
            accepted += try_buffer(data, n);
        /* The whole file reads; cutting off the tail of the last data vector may too. */
        assert_int_equal(try_buffer(data, len), 1);
        assert_true(accepted < (int)len / 2);
        free(data);
    }
}

static void test_corruptions(void **state)
{
    (void)state;
    static const uint32_t words[] = {0xffffffffu, 0x7fffffffu, 0x80000000u, 0, 1, 4, 0xfffffffcu,
                                     0x10000u};
    tu_seed(0x9e3779b97f4a7c15ull);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        uint8_t *data = load(files[f], &len);
        uint8_t *m = malloc(len);
        for (int iter = 0; iter < 1000; iter++) {
            memcpy(m, data, len);
            int edits = 1 + (int)(tu_rand() % 3);
            for (int e = 0; e < edits; e++) {
                uint32_t kind = tu_rand() % 4, pos = tu_rand() % (uint32_t)len;
                if (kind == 0) {
                    m[pos] ^= (uint8_t)(1u << (tu_rand() % 8));
                } else if (kind == 1) {
                    m[pos] = (uint8_t)tu_rand();
                } else if (pos + 4 <= len) {
                    uint32_t w = kind == 2 ? words[tu_rand() % (sizeof words / sizeof words[0])]
                                           : tu_rand() % (uint32_t)(len + 16);
                    pos &= ~3u; /* offsets and counts sit on 4-byte boundaries */
                    for (int k = 0; k < 4; k++)
                        m[pos + (uint32_t)k] = (uint8_t)(w >> (8 * k));
                }
            }
            try_buffer(m, len);
        }
        free(m);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_corruptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
