/* Losses, accumulated in double and rounded once. */
#include "kernels/loss.h"

int kern_nll_loss(tosac_dtype dt, int64_t n, int64_t c, int64_t d, const void *x,
                  const int64_t *target, const void *weight, int has_ignore, int64_t ignore_index,
                  kern_reduction red, void *y)
{
    double sum = 0, wsum = 0;
    for (int64_t b = 0; b < n; b++)
        for (int64_t j = 0; j < d; j++) {
            int64_t t = target[b * d + j];
            double l = 0;
            if (!(has_ignore && t == ignore_index)) {
                if (t < 0 || t >= c)
                    return -1;
                double w = weight ? kern_get_f64(dt, weight, t) : 1.0;
                l = -kern_get_f64(dt, x, (b * c + t) * d + j) * w;
                wsum += w;
            }
            if (red == KERN_REDUCE_NONE)
                kern_set_f64(dt, y, b * d + j, l);
            sum += l;
        }
    if (red == KERN_REDUCE_SUM)
        kern_set_f64(dt, y, 0, sum);
    else if (red == KERN_REDUCE_MEAN)
        kern_set_f64(dt, y, 0, wsum != 0 ? sum / wsum : 0.0);
    return 0;
}
