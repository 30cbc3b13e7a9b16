/* The .npy header alone (format 1.0/2.0/3.0 read, 1.0 written), with no allocation and no
 * stdio, so that the bare-metal Cortex-M55 runner (ports/cortex-m55) reads and writes .npy
 * files with the same rules as tosac_npy_read/tosac_npy_write (npy.c). */
#ifndef TOSAC_UTIL_NPY_HEADER_H
#define TOSAC_UTIL_NPY_HEADER_H

#include "tosac/limits.h"
#include "tosac/tensor.h"

typedef struct tosac_npy_info {
    tosac_dtype dtype;
    int rank;
    int64_t shape[TOSAC_MAX_RANK];
    size_t data_offset; /* where the data starts in the file */
    size_t data_bytes;  /* what the shape and dtype need */
} tosac_npy_info;

/* Parses and checks the header at the start of buf (len bytes of the file; the data need not
 * be there). The caller checks that the file holds exactly data_bytes after data_offset
 * (tosac_npy_check_size). */
tosac_code tosac_npy_parse_header(const void *buf, size_t len, tosac_npy_info *info,
                                  tosac_error *err);
tosac_code tosac_npy_check_size(const tosac_npy_info *info, size_t file_len, tosac_error *err);

/* Longest header tosac_npy_format_header writes (rank TOSAC_MAX_RANK, 20-digit dims). */
#define TOSAC_NPY_HEADER_MAX TOSAC_LIMIT_NPY_HEADER
/* Writes the format 1.0 header for (dt, rank, shape) into buf (at least
 * TOSAC_NPY_HEADER_MAX bytes) and returns its length, a multiple of 64; 0 when dt has no
 * .npy type (BF16, FP8, I4, ...). I48 and SHAPE are written as int64. */
size_t tosac_npy_format_header(tosac_dtype dt, int rank, const int64_t *shape,
                               unsigned char *buf);

#endif
