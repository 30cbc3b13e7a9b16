/* Runs one interpreter operator directly on hand-made tensors, the way the executor would:
 * outputs are allocated by the caller with the shape/dtype the graph would declare. */
#ifndef TOSAC_INTERP_HARNESS_H
#define TOSAC_INTERP_HARNESS_H

#include "tosac/tosa.h"

/* attr may be NULL (all zero). Tensors are named in0.., out0.. for error messages. */
tosac_code th_run_op(tosa_op op, const tosa_attr *attr, tosac_tensor **in, int n_in,
                     tosac_tensor **out, int n_out, tosac_error *err);

/* Allocates a tensor and fills it from an int64 / double array (converted to dt). */
void th_tensor_int(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                   const int64_t *values);
void th_tensor_float(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape,
                     const double *values);
/* Allocates a zeroed tensor. */
void th_tensor_zero(tosac_tensor *t, tosac_dtype dt, int rank, const int64_t *shape);

#endif
