/* FFT2D and RFFT2D (EXT-FFT, fp32): the spec's direct DFT,
 *   X[oy,ox] = sum x[iy,ix] * exp(-+ i * 2 * pi * (iy*oy/H + ix*ox/W)),
 * with the angle's index arithmetic done exactly in integers (modulo H*W), the sum in
 * double and one rounding to fp32. No 1/(H*W) scaling for the inverse. */
#include <math.h>

#include "interp/interp_nn_util.h"
#include "interp/interp_tensor_ops.h"

/* M_PI is not ISO C. */
#define FFT_PI 3.14159265358979323846

static bool power_of_two(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* (a + step) mod m for 0 <= a, step < m. */
static int64_t fft_step(int64_t a, int64_t step, int64_t m)
{
    a += step;
    return a >= m ? a - m : a;
}

/* cos and sin of 2*pi*t/m for 0 <= t < m, exact at multiples of a quarter turn. */
static void twiddle(int64_t t, int64_t m, double *cs, double *sn)
{
    if ((4 * t) % m == 0) {
        static const double qc[4] = {1, 0, -1, 0}, qs[4] = {0, 1, 0, -1};
        int q = (int)(4 * t / m);
        *cs = qc[q];
        *sn = qs[q];
        return;
    }
    double a = 2.0 * FFT_PI * (double)t / (double)m;
    *cs = cos(a);
    *sn = sin(a);
}

static tosac_code fft_check(interp_ctx *c, const tosac_tensor *t, const char *what)
{
    tosac_code rc = nn_check_rank(c, t, 3, what);
    if (rc)
        return rc;
    if (t->dtype != TOSAC_DT_F32)
        return interp_error(c, "%s type %s is not fp32", what, tosac_dtype_name(t->dtype));
    return TOSAC_OK;
}

static tosac_code fft_check_out(interp_ctx *c, const tosac_tensor *o, int64_t N, int64_t H,
                                int64_t W, const char *what)
{
    tosac_code rc = fft_check(c, o, what);
    if (rc)
        return rc;
    if (o->shape[0] != N || o->shape[1] != H || o->shape[2] != W)
        return interp_error(c, "%s shape must be [%lld,%lld,%lld]", what, (long long)N,
                            (long long)H, (long long)W);
    return TOSAC_OK;
}

tosac_code interp_op_fft2d(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 2, 2);
    if (rc || (rc = fft_check(c, c->in[0], "input_real")) ||
        (rc = fft_check(c, c->in[1], "input_imag")))
        return rc;
    const float *xr = c->in[0]->data, *xi = c->in[1]->data;
    int64_t N = c->in[0]->shape[0], H = c->in[0]->shape[1], W = c->in[0]->shape[2];
    INTERP_ERROR_IF(c, !power_of_two(H));
    INTERP_ERROR_IF(c, !power_of_two(W));
    if (c->in[1]->shape[0] != N || c->in[1]->shape[1] != H || c->in[1]->shape[2] != W)
        return interp_error(c, "input_imag shape differs from input_real's");
    if ((rc = fft_check_out(c, c->out[0], N, H, W, "output_real")) ||
        (rc = fft_check_out(c, c->out[1], N, H, W, "output_imag")))
        return rc;
    float *yr = c->out[0]->data, *yi = c->out[1]->data;
    double sign = c->op->attr.inverse ? -1.0 : 1.0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < H; oy++)
            for (int64_t ox = 0; ox < W; ox++) {
                double sr = 0.0, si = 0.0;
                /* ay = iy * oy mod H, kept by steps so nothing overflows */
                for (int64_t iy = 0, ay = 0; iy < H; iy++, ay = fft_step(ay, oy, H))
                    for (int64_t ix = 0, ax = 0; ix < W; ix++, ax = fft_step(ax, ox, W)) {
                        int64_t t = (ay * W + ax * H) % (H * W);
                        double cs, sn, vr, vi;
                        twiddle(t, H * W, &cs, &sn);
                        sn *= sign;
                        vr = xr[(n * H + iy) * W + ix];
                        vi = xi[(n * H + iy) * W + ix];
                        sr += vr * cs + vi * sn;
                        si += -vr * sn + vi * cs;
                    }
                yr[(n * H + oy) * W + ox] = (float)sr;
                yi[(n * H + oy) * W + ox] = (float)si;
            }
    return TOSAC_OK;
}

tosac_code interp_op_rfft2d(interp_ctx *c)
{
    tosac_code rc = nn_check_arity(c, 1, 2);
    if (rc || (rc = fft_check(c, c->in[0], "input_real")))
        return rc;
    const float *xr = c->in[0]->data;
    int64_t N = c->in[0]->shape[0], H = c->in[0]->shape[1], W = c->in[0]->shape[2];
    INTERP_ERROR_IF(c, !power_of_two(H));
    INTERP_ERROR_IF(c, !power_of_two(W));
    int64_t OW = W / 2 + 1;
    if ((rc = fft_check_out(c, c->out[0], N, H, OW, "output_real")) ||
        (rc = fft_check_out(c, c->out[1], N, H, OW, "output_imag")))
        return rc;
    float *yr = c->out[0]->data, *yi = c->out[1]->data;
    int64_t hh = H / 2, hw = W / 2;
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < H; oy++)
            for (int64_t ox = 0; ox < OW; ox++) {
                double sr = 0.0, si = 0.0;
                for (int64_t iy = 0, ay = 0; iy < H; iy++, ay = fft_step(ay, oy, H))
                    for (int64_t ix = 0, ax = 0; ix < W; ix++, ax = fft_step(ax, ox, W)) {
                        double cs, sn, v = xr[(n * H + iy) * W + ix];
                        twiddle((ay * W + ax * H) % (H * W), H * W, &cs, &sn);
                        sr += v * cs;
                        /* the spec leaves out the terms whose angle is a multiple of pi
                         * (H or W of 1 has only such terms along that axis) */
                        if ((hh ? ay % hh : 0) + (hw ? ax % hw : 0) > 0)
                            si += -v * sn;
                    }
                yr[(n * H + oy) * OW + ox] = (float)sr;
                yi[(n * H + oy) * OW + ox] = (float)si;
            }
    return TOSAC_OK;
}
