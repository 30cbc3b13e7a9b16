/* Einsum by direct iteration: an odometer over the output labels, and for each output
 * element an inner odometer over the contracted labels. */
#include "kernels/einsum.h"

void kern_einsum(const kern_einsum_params *p, tosac_dtype dt, const void *const *in, void *out)
{
    const int is_float = tosac_dtype_is_float(dt), no = p->n_out_labels, nl = p->n_labels;
    int64_t n_out = 1, n_sum = 1;
    for (int l = 0; l < no; l++)
        n_out *= p->size[l];
    for (int l = no; l < nl; l++)
        n_sum *= p->size[l];
    int64_t idx[KERN_EINSUM_MAX_LABELS] = {0};
    for (int64_t o = 0; o < n_out; o++) {
        /* output coordinates of element o (C order) */
        int64_t rem = o;
        for (int l = no - 1; l >= 0; l--) {
            idx[l] = rem % p->size[l];
            rem /= p->size[l];
        }
        double accf = 0;
        int64_t acci = 0;
        for (int l = no; l < nl; l++)
            idx[l] = 0;
        for (int64_t s = 0; s < n_sum; s++) {
            double pf = 1;
            int64_t pi = 1;
            for (int k = 0; k < p->n_in; k++) {
                int64_t off = 0;
                for (int l = 0; l < nl; l++)
                    off += idx[l] * p->in_stride[k][l];
                if (is_float)
                    pf *= kern_get_f64(dt, in[k], off);
                else
                    pi = (int64_t)((uint64_t)pi * (uint64_t)kern_get_i64(dt, in[k], off));
            }
            accf += pf;
            acci = (int64_t)((uint64_t)acci + (uint64_t)pi);
            for (int l = nl - 1; l >= no; l--) {
                if (++idx[l] < p->size[l])
                    break;
                idx[l] = 0;
            }
        }
        if (is_float)
            kern_set_f64(dt, out, o, accf);
        else
            kern_set_i64(dt, out, o, acci);
    }
}
