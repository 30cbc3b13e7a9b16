/* The conformance suite's floating-point compliance rules (shared/conformance/README.md,
 * "How to judge a result"): per output tensor a mode and its parameters, checked on the
 * implementation's values against the fp64 reference ("precise") and bounds data. */
#ifndef TOSAC_CONFORMANCE_COMPLIANCE_H
#define TOSAC_CONFORMANCE_COMPLIANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tosac/dtype.h"
#include "tosac/error.h"
#include "util/json.h"

typedef enum cmp_mode {
    CMP_EXACT,
    CMP_ULP,
    CMP_RELATIVE,
    CMP_REDUCE_PRODUCT,
    CMP_ABS_ERROR,
    CMP_FP_SPECIAL,
    CMP_DOT_PRODUCT,
} cmp_mode;

typedef struct cmp_rule {
    cmp_mode mode;
    tosac_dtype dtype;          /* F32, F16 or BF16: sets frac / nmin / the overflow limit */
    double ulp;                 /* ULP: ulp_info.ulp */
    double rel_max, rel_scale, rel_ulp_bound; /* RELATIVE: relative_info */
    double rp_n;                /* REDUCE_PRODUCT: reduce_product_info.n */
    bool abs_bound_as_magnitude; /* ABS_ERROR: abs_error_info (defaults 0, 1, 0) */
    double abs_lower_bound, abs_normal_divisor, abs_max_compare;
    double dp_ks;               /* DOT_PRODUCT: dot_product_info.ks and the data set s */
    int dp_s;
} cmp_rule;

/* Reads one entry of meta.compliance.tensors (mode, data_type and the mode's info). */
tosac_code cmp_rule_from_json(const tosac_json *t, cmp_rule *r, tosac_error *err);
/* True if the mode needs bounds data. */
bool cmp_needs_bounds(cmp_mode m);

/* Checks n values. bnd may be NULL for modes that do not use it. On failure writes the
 * first failing element (or the failing whole-tensor sum) into why. */
bool cmp_check(const cmp_rule *r, const double *imp, const double *ref, const double *bnd,
               int64_t n, char *why, size_t whylen);

/* Precision parameters of an FP type: mantissa bits, smallest normal, largest normal. */
bool cmp_type_params(tosac_dtype dt, int *frac, double *nmin, double *nmax);

#endif
