/* Window generators, DFT, STFT and the mel filter bank. */
#include "kernels/signal.h"

#include <math.h>

#define TWO_PI 6.283185307179586476925286766559

void kern_window(kern_window_kind kind, int64_t size, int periodic, tosac_dtype dt, void *out)
{
    /* ONNX: Hamming uses a0 = 25/46 (the "optimal" Hamming constant), Blackman 0.42/0.5/0.08 */
    double a0 = 0.5, a1 = 0.5, a2 = 0;
    if (kind == KERN_WIN_HAMMING) {
        a0 = 25.0 / 46.0;
        a1 = 1.0 - a0;
    } else if (kind == KERN_WIN_BLACKMAN) {
        a0 = 0.42;
        a2 = 0.08;
    }
    int64_t period = periodic ? size : size - 1;
    for (int64_t n = 0; n < size; n++) {
        /* a one-point symmetric window has no period: its single value is the peak, 1 */
        double v = 1.0;
        if (period > 0) {
            double t = TWO_PI * (double)n / (double)period;
            v = a0 - a1 * cos(t) + a2 * cos(2 * t);
        }
        kern_set_f64(dt, out, n, v);
    }
}

static double get(tosac_dtype dt, const void *p, int64_t i)
{
    return dt == TOSAC_DT_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void put(tosac_dtype dt, void *p, int64_t i, double v)
{
    if (dt == TOSAC_DT_F64)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

void kern_dft(const kern_dft_params *p, tosac_dtype dt, const void *x, void *y)
{
    const int64_t c = p->complex_in ? 2 : 1, n_use = p->n_in < p->length ? p->n_in : p->length;
    const double sign = p->inverse ? 1.0 : -1.0, scale = p->inverse ? 1.0 / (double)p->length : 1.0;
    for (int64_t o = 0; o < p->outer; o++)
        for (int64_t i = 0; i < p->inner; i++)
            for (int64_t k = 0; k < p->n_out; k++) {
                double re = 0, im = 0;
                for (int64_t j = 0; j < n_use; j++) {
                    /* (k * j) mod length keeps the angle exact for long signals */
                    double a = sign * TWO_PI * (double)((k * j) % p->length) / (double)p->length;
                    int64_t xi = ((o * p->n_in + j) * p->inner + i) * c;
                    double xr = get(dt, x, xi), xm = c == 2 ? get(dt, x, xi + 1) : 0.0;
                    re += xr * cos(a) - xm * sin(a);
                    im += xr * sin(a) + xm * cos(a);
                }
                int64_t yi = ((o * p->n_out + k) * p->inner + i) * 2;
                put(dt, y, yi, re * scale);
                put(dt, y, yi + 1, im * scale);
            }
}

void kern_stft(const kern_stft_params *p, tosac_dtype dt, const void *x, const void *window,
               void *y)
{
    const int64_t c = p->complex_in ? 2 : 1, n = p->frame_length;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t t = 0; t < p->frames; t++)
            for (int64_t k = 0; k < p->n_bins; k++) {
                double re = 0, im = 0;
                for (int64_t j = 0; j < n; j++) {
                    double a = -TWO_PI * (double)((k * j) % n) / (double)n;
                    double w = window ? get(dt, window, j) : 1.0;
                    int64_t xi = (b * p->len + t * p->step + j) * c;
                    double xr = w * get(dt, x, xi), xm = c == 2 ? w * get(dt, x, xi + 1) : 0.0;
                    re += xr * cos(a) - xm * sin(a);
                    im += xr * sin(a) + xm * cos(a);
                }
                int64_t yi = ((b * p->frames + t) * p->n_bins + k) * 2;
                put(dt, y, yi, re);
                put(dt, y, yi + 1, im);
            }
}

/* FFT bin of mel point i of n_points spaced evenly from lo_mel to hi_mel; -1 when it is not
 * a finite bin below limit (never cast an out-of-range double). */
static int64_t mel_bin(int64_t i, int64_t n_points, double lo_mel, double hi_mel,
                       int64_t dft_length, int64_t sample_rate, int64_t limit)
{
    double mel = lo_mel + (double)i * (hi_mel - lo_mel) / (double)n_points;
    double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
    double b = floor((double)(dft_length + 1) * hz / (double)sample_rate);
    return b >= 0 && b < (double)limit ? (int64_t)b : -1;
}

int kern_mel_weight_matrix(int64_t num_mel_bins, int64_t dft_length, int64_t sample_rate,
                           double lower_hz, double upper_hz, tosac_dtype dt, void *out)
{
    const int64_t n_spec = dft_length / 2 + 1, n_points = num_mel_bins + 2;
    const double lo = 2595.0 * log10(1.0 + lower_hz / 700.0);
    const double hi = 2595.0 * log10(1.0 + upper_hz / 700.0);
    for (int64_t i = 0; i < n_points; i++) {
        int64_t b = mel_bin(i, n_points, lo, hi, dft_length, sample_rate, n_spec);
        if (b < 0)
            return -1;
    }
    for (int64_t i = 0; i < n_spec * num_mel_bins; i++)
        kern_set_f64(dt, out, i, 0.0);
    for (int64_t m = 0; m < num_mel_bins; m++) {
        int64_t left = mel_bin(m, n_points, lo, hi, dft_length, sample_rate, n_spec);
        int64_t center = mel_bin(m + 1, n_points, lo, hi, dft_length, sample_rate, n_spec);
        int64_t right = mel_bin(m + 2, n_points, lo, hi, dft_length, sample_rate, n_spec);
        /* rising edge left..center (a point triangle when they coincide), falling edge
         * center..right-1; the falling edge overwrites the shared center */
        if (center == left)
            kern_set_f64(dt, out, center * num_mel_bins + m, 1.0);
        for (int64_t j = left; center > left && j <= center; j++)
            kern_set_f64(dt, out, j * num_mel_bins + m,
                         (double)(j - left) / (double)(center - left));
        for (int64_t j = center; j < right; j++)
            kern_set_f64(dt, out, j * num_mel_bins + m,
                         (double)(right - j) / (double)(right - center));
    }
    return 0;
}
