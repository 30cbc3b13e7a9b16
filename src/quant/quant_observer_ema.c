/* Moving-average min/max observer: the range follows each sample's min/max by a fixed
 * fraction, so one outlying sample moves it little (PyTorch's MovingAverageMinMaxObserver). */
#include "quant/quant_internal.h"

void quant_ema_observe(quant_range *r, const float *x, int64_t n)
{
    quant_range s;
    quant_range_init(&s);
    quant_range_observe(&s, x, n);
    if (!s.seen)
        return;
    if (!r->seen) {
        *r = s;
        return;
    }
    r->lo = (float)((double)r->lo + QUANT_EMA_C * ((double)s.lo - (double)r->lo));
    r->hi = (float)((double)r->hi + QUANT_EMA_C * ((double)s.hi - (double)r->hi));
}
