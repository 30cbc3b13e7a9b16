/* Signal processing: the window generators (Hann, Hamming, Blackman), the discrete Fourier
 * transform along one axis, the short-time Fourier transform and the mel filter bank
 * (MelWeightMatrix). Sums are taken in double; outputs are f32 or f64 (f16/bf16 through the
 * executor's f32 path). The transforms are direct O(n^2) sums with exact angle reduction
 * (k * j mod n), accurate for every length, prime or not. */
#ifndef TOSAC_KERNELS_SIGNAL_H
#define TOSAC_KERNELS_SIGNAL_H

#include "kernels/kern.h"

typedef enum kern_window_kind { KERN_WIN_HANN, KERN_WIN_HAMMING, KERN_WIN_BLACKMAN } kern_window_kind;

/* size values of the window into out (element type dt, any numeric type). periodic: the
 * period is size (a window for spectral analysis), else size - 1 (symmetric). */
void kern_window(kern_window_kind kind, int64_t size, int periodic, tosac_dtype dt, void *out);

/* DFT along the middle axis of x viewed as [outer, n_in, inner, c] (c = 1 real, 2 complex)
 * into y [outer, n_out, inner, 2]. The signal is zero-padded or truncated to length; n_out is
 * length (full) or length / 2 + 1 (onesided). inverse: conjugate kernel and 1/length scale.
 * dt is F32 or F64 for both x and y. */
typedef struct kern_dft_params {
    int64_t outer, n_in, inner, length, n_out;
    int complex_in, inverse;
} kern_dft_params;
void kern_dft(const kern_dft_params *p, tosac_dtype dt, const void *x, void *y);

/* STFT of signal [batch, len, c] into y [batch, frames, n_bins, 2]: frame t starts at
 * t * step and holds frame_length samples, each multiplied by window[j] (NULL: all ones).
 * window has the element type dt as well. */
typedef struct kern_stft_params {
    int64_t batch, len, step, frame_length, frames, n_bins;
    int complex_in;
} kern_stft_params;
void kern_stft(const kern_stft_params *p, tosac_dtype dt, const void *x, const void *window,
               void *y);

/* The mel filter bank [dft_length / 2 + 1, num_mel_bins] of the ONNX definition: triangles
 * between num_mel_bins + 2 points spaced evenly on the mel scale from lower to upper hertz,
 * each snapped to the FFT bin floor((dft_length + 1) * hz / sample_rate). Returns -1 (nothing
 * written) when a point falls outside the spectrum, which the caller reports. */
int kern_mel_weight_matrix(int64_t num_mel_bins, int64_t dft_length, int64_t sample_rate,
                           double lower_hz, double upper_hz, tosac_dtype dt, void *out);

#endif
