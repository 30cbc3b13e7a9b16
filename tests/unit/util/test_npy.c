/* .npy reading and writing: round trips for every supported dtype, byte-exact headers as
 * NumPy writes them, real NumPy files from the conformance suite, and rejection of every
 * malformed header field. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tosac/npy.h"
#include "util/fileio.h"

static void roundtrip_dtype(tosac_dtype dt)
{
    int64_t shape[3] = {2, 3, 4};
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_tensor_alloc(&t, dt, 3, shape, &err), TOSAC_OK);
    unsigned char *p = t.data;
    for (size_t i = 0; i < t.nbytes; i++)
        p[i] = (unsigned char)(i * 37 + 11);
    if (dt == TOSAC_DT_BOOL)
        for (size_t i = 0; i < t.nbytes; i++)
            p[i] = (unsigned char)(i % 3 == 0);
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/t.npy", dir);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    tosac_tensor r;
    assert_int_equal(tosac_npy_read(path, &r, &err), TOSAC_OK);
    assert_int_equal(r.dtype, dt);
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.shape[0], 2);
    assert_int_equal(r.shape[2], 4);
    assert_int_equal(r.nbytes, t.nbytes);
    assert_memory_equal(r.data, t.data, t.nbytes);
    tosac_tensor_free(&t);
    tosac_tensor_free(&r);
    tu_rmtree(dir);
    free(dir);
}

static void test_roundtrip_all_dtypes(void **state)
{
    (void)state;
    tosac_dtype dts[] = {TOSAC_DT_BOOL, TOSAC_DT_U8,  TOSAC_DT_I8,  TOSAC_DT_U16,
                         TOSAC_DT_I16,  TOSAC_DT_U32, TOSAC_DT_I32, TOSAC_DT_U64,
                         TOSAC_DT_I64,  TOSAC_DT_F16, TOSAC_DT_F32, TOSAC_DT_F64};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++)
        roundtrip_dtype(dts[i]);
}

/* The exact bytes NumPy 1.24 writes for np.save(f, np.zeros((2,3), np.float32)). */
static void test_header_matches_numpy(void **state)
{
    (void)state;
    const char *expect = "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    int64_t shape[2] = {2, 3};
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_F32, 2, shape, &err), TOSAC_OK);
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/h.npy", dir);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    void *buf;
    size_t len;
    assert_int_equal(tosac_read_file(path, &buf, &len, &err), TOSAC_OK);
    assert_int_equal(len, 128 + 24);
    assert_memory_equal(buf, expect, strlen(expect));
    assert_int_equal(((char *)buf)[127], '\n');
    assert_int_equal(((char *)buf)[126], ' ');
    free(buf);
    tosac_tensor_free(&t);
    tu_rmtree(dir);
    free(dir);
}

static void test_rank0_and_rank1_spelling(void **state)
{
    (void)state;
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    int64_t s1[1] = {5};
    char *dir = tu_mkdtemp();
    char path[512];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_I64, 0, NULL, &err), TOSAC_OK);
    *(int64_t *)t.data = 16000;
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    void *buf;
    size_t len;
    assert_int_equal(tosac_read_file(path, &buf, &len, &err), TOSAC_OK);
    assert_non_null(strstr((char *)buf + 10, "'shape': (), }"));
    free(buf);
    tosac_tensor r;
    assert_int_equal(tosac_npy_read(path, &r, &err), TOSAC_OK);
    assert_int_equal(r.rank, 0);
    assert_int_equal(*(int64_t *)r.data, 16000);
    tosac_tensor_free(&r);
    tosac_tensor_free(&t);
    assert_int_equal(tosac_tensor_alloc(&t, TOSAC_DT_I8, 1, s1, &err), TOSAC_OK);
    assert_int_equal(tosac_npy_write(path, &t, &err), TOSAC_OK);
    assert_int_equal(tosac_read_file(path, &buf, &len, &err), TOSAC_OK);
    assert_non_null(strstr((char *)buf + 10, "'shape': (5,), }"));
    free(buf);
    tosac_tensor_free(&t);
    tu_rmtree(dir);
    free(dir);
}

/* A NumPy-written file from the shared conformance suite. */
static void test_reads_numpy_files(void **state)
{
    (void)state;
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_read(tu_shared("models/silero_vad_op18_ifless/inputs/00/sr.npy"),
                                    &t, &err),
                     TOSAC_OK);
    assert_int_equal(t.dtype, TOSAC_DT_I64);
    assert_int_equal(t.rank, 0);
    assert_int_equal(*(int64_t *)t.data, 16000);
    tosac_tensor_free(&t);
    assert_int_equal(tosac_npy_read(tu_shared("models/ppocr_mobile_v2_cls/inputs/00/x.npy"), &t,
                                    &err),
                     TOSAC_OK);
    assert_int_equal(t.dtype, TOSAC_DT_F32);
    assert_int_equal(t.rank, 4);
    assert_int_equal(t.shape[0], 1);
    assert_int_equal(t.shape[1], 3);
    assert_int_equal(t.shape[2], 48);
    assert_int_equal(t.shape[3], 192);
    tosac_tensor_free(&t);
}

static tosac_code parse_str(const char *hdr, size_t datalen, tosac_error *err)
{
    size_t hl = strlen(hdr);
    unsigned char *buf = calloc(1, 10 + hl + datalen + 1);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hl & 0xff);
    buf[9] = (unsigned char)(hl >> 8);
    memcpy(buf + 10, hdr, hl);
    tosac_tensor t;
    tosac_error_clear(err);
    tosac_code rc = tosac_npy_parse(buf, 10 + hl + datalen, &t, err);
    if (rc == TOSAC_OK)
        tosac_tensor_free(&t);
    free(buf);
    return rc;
}

static void expect_reject(const char *hdr, size_t datalen, const char *needle)
{
    tosac_error err;
    tosac_code rc = parse_str(hdr, datalen, &err);
    if (rc == TOSAC_OK)
        fail_msg("accepted bad header: %s", hdr);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_rejects_bad_headers(void **state)
{
    (void)state;
    tosac_error err;
    assert_int_equal(parse_str("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", 8, &err), TOSAC_OK);
    expect_reject("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n", 8, "'>i4'");
    expect_reject("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16, "not supported");
    expect_reject("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }\n", 8, "Fortran");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }\n", 8, "data bytes");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", 9, "data bytes");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }\n", 8, "shape");
    expect_reject("{'descr': '<i4', 'fortran_order': False, }\n", 8, "lacks");
    expect_reject("{'descr': '<i4', 'fortran_order': Maybe, 'shape': (2,), }\n", 8, "True or False");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", 8, "'x'");
    expect_reject("['descr']\n", 0, "not a dict");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999, 99999999999, 99999999999), }\n", 8, "too large");
    expect_reject("{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1), }\n", 4, "rank");
    /* header length field beyond the file */
    unsigned char trunc[16] = "\x93NUMPY\x01\x00\xff\x00{'d";
    tosac_tensor t;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_parse(trunc, sizeof trunc, &t, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "header longer"));
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_parse("NUMPY", 5, &t, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "magic"));
}

static void test_read_missing_file_names_it(void **state)
{
    (void)state;
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_read("/nonexistent/x.npy", &t, &err), TOSAC_ERR_INPUT);
    assert_non_null(strstr(err.msg, "/nonexistent/x.npy"));
}

static void test_bool_normalised(void **state)
{
    (void)state;
    const char *hdr = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n";
    size_t hl = strlen(hdr);
    unsigned char buf[128];
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)hl;
    buf[9] = 0;
    memcpy(buf + 10, hdr, hl);
    buf[10 + hl] = 0;
    buf[11 + hl] = 1;
    buf[12 + hl] = 7;
    tosac_tensor t;
    tosac_error err;
    tosac_error_clear(&err);
    assert_int_equal(tosac_npy_parse(buf, 13 + hl, &t, &err), TOSAC_OK);
    const unsigned char *d = t.data;
    assert_int_equal(d[0], 0);
    assert_int_equal(d[1], 1);
    assert_int_equal(d[2], 1);
    tosac_tensor_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_all_dtypes),
        cmocka_unit_test(test_header_matches_numpy),
        cmocka_unit_test(test_rank0_and_rank1_spelling),
        cmocka_unit_test(test_reads_numpy_files),
        cmocka_unit_test(test_rejects_bad_headers),
        cmocka_unit_test(test_read_missing_file_names_it),
        cmocka_unit_test(test_bool_normalised),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
