/* Signal operators: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT, MelWeightMatrix. */
#include "cpu/cpu_internal.h"

#include "kernels/signal.h"

/* The output element type named by attribute output_datatype (ONNX numbering, default
 * FLOAT): windows and filter banks are numeric only. */
static tosac_code output_datatype(cpu_ctx *c, tosac_dtype *dt)
{
    int64_t v = cpu_attr_i(c, "output_datatype", 1);
    *dt = v > 0 && v < 64 ? onnx_dtype_to_tosac((int)v) : TOSAC_DT_UNKNOWN;
    CPU_CHECK(c, *dt != TOSAC_DT_UNKNOWN && *dt != TOSAC_DT_BOOL && tosac_dtype_size(*dt) > 0,
              "output_datatype %lld is not a numeric type", (long long)v);
    return TOSAC_OK;
}

/* The signal operators' attributes, read and checked once (prepare step). */
typedef struct signal_prep {
    tosac_dtype dt;             /* windows, MelWeightMatrix */
    int periodic, inverse, onesided;
    int64_t axis;               /* DFT before opset 20 */
} signal_prep;

static tosac_code numeric_prepare(cpu_ctx *c, void *st)
{
    signal_prep *p = st;
    p->periodic = cpu_attr_i(c, "periodic", 1) != 0;
    return output_datatype(c, &p->dt);
}

static tosac_code dft_prepare(cpu_ctx *c, void *st)
{
    signal_prep *p = st;
    p->axis = c->opset >= 20 ? -2 : cpu_attr_i(c, "axis", 1);
    p->inverse = cpu_attr_i(c, "inverse", 0) != 0;
    p->onesided = cpu_attr_i(c, "onesided", 0) != 0;
    return TOSAC_OK;
}

static tosac_code stft_prepare(cpu_ctx *c, void *st)
{
    ((signal_prep *)st)->onesided = cpu_attr_i(c, "onesided", 1) != 0;
    return TOSAC_OK;
}

static const cpu_op_prep numeric_prep = {numeric_prepare, sizeof(signal_prep), NULL};
static const cpu_op_prep dft_prep = {dft_prepare, sizeof(signal_prep), NULL};
static const cpu_op_prep stft_prep = {stft_prepare, sizeof(signal_prep), NULL};

static tosac_code window(cpu_ctx *c, kern_window_kind kind)
{
    const signal_prep *sp = c->prep;
    const tosac_tensor *s;
    int64_t size;
    tosac_dtype dt = sp->dt;
    tosac_code rc = cpu_req(c, 0, &s);
    if (!rc)
        rc = cpu_ints(c, s, &size, 1, &(int){0});
    if (rc)
        return rc;
    CPU_CHECK(c, tosac_tensor_numel(s) == 1, "size must be a scalar");
    CPU_CHECK(c, size >= 0, "size %lld is negative", (long long)size);
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, dt, 1, &size, &y)))
        return rc;
    kern_window(kind, size, sp->periodic, dt, y->data);
    return TOSAC_OK;
}

static tosac_code op_hann(cpu_ctx *c) { return window(c, KERN_WIN_HANN); }
static tosac_code op_hamming(cpu_ctx *c) { return window(c, KERN_WIN_HAMMING); }
static tosac_code op_blackman(cpu_ctx *c) { return window(c, KERN_WIN_BLACKMAN); }

/* An optional scalar integer input; *v keeps its default when absent. */
static tosac_code opt_int(cpu_ctx *c, int i, const char *what, int64_t *v)
{
    const tosac_tensor *t = cpu_opt(c, i);
    if (!t)
        return TOSAC_OK;
    CPU_CHECK(c, tosac_dtype_is_int(t->dtype) && tosac_tensor_numel(t) == 1,
              "%s must be an integer scalar", what);
    return cpu_scalar_i64(c, t, v);
}

static tosac_code op_dft(cpu_ctx *c)
{
    const signal_prep *sp = c->prep;
    const tosac_tensor *x;
    tosac_code rc = cpu_req_float(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 3 && (x->shape[x->rank - 1] == 1 || x->shape[x->rank - 1] == 2),
              "input must be [batch, signal dims..., 1 or 2]");
    /* opset 20 moved axis from an attribute (default 1) to input 2 (default -2) */
    int64_t axis = sp->axis;
    if (c->opset >= 20 && (rc = opt_int(c, 2, "axis", &axis)))
        return rc;
    int r = x->rank, ax;
    CPU_CHECK(c, axis >= -r && axis < r, "axis %lld is out of range", (long long)axis);
    ax = (int)(axis < 0 ? axis + r : axis);
    CPU_CHECK(c, ax >= 1 && ax <= r - 2, "axis %lld is not a signal axis", (long long)axis);
    kern_dft_params p = {1, x->shape[ax], 1, x->shape[ax], 0, x->shape[r - 1] == 2,
                         sp->inverse};
    if ((rc = opt_int(c, 1, "dft_length", &p.length)))
        return rc;
    CPU_CHECK(c, p.length >= 1, "dft_length %lld must be positive", (long long)p.length);
    int onesided = sp->onesided;
    CPU_CHECK(c, !onesided || (!p.inverse && !p.complex_in),
              "onesided applies to a forward transform of a real signal only");
    p.n_out = onesided ? p.length / 2 + 1 : p.length;
    for (int k = 0; k < ax; k++)
        p.outer *= x->shape[k];
    for (int k = ax + 1; k < r - 1; k++)
        p.inner *= x->shape[k];
    int64_t ys[TOSAC_MAX_RANK];
    for (int k = 0; k < r; k++)
        ys[k] = x->shape[k];
    ys[ax] = p.n_out;
    ys[r - 1] = 2;
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, r, ys, &y)))
        return rc;
    kern_dft(&p, x->dtype, x->data, y->data);
    return TOSAC_OK;
}

static tosac_code op_stft(cpu_ctx *c)
{
    const tosac_tensor *x, *step_t, *win = cpu_opt(c, 2);
    tosac_code rc = cpu_req(c, 0, &x);
    if (!rc)
        rc = cpu_req(c, 1, &step_t);
    if (!rc)
        rc = cpu_dtype_in(c, x, "signal", TOSAC_DT_F32, TOSAC_DT_F64, TOSAC_DT_UNKNOWN);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank == 3 && (x->shape[2] == 1 || x->shape[2] == 2),
              "signal must be [batch, length, 1 or 2]");
    kern_stft_params p = {x->shape[0], x->shape[1], 0, -1, 0, 0, x->shape[2] == 2};
    if ((rc = opt_int(c, 1, "frame_step", &p.step)) || (rc = opt_int(c, 3, "frame_length", &p.frame_length)))
        return rc;
    CPU_CHECK(c, p.step >= 1, "frame_step %lld must be positive", (long long)p.step);
    if (win) {
        CPU_CHECK(c, win->rank == 1 && win->dtype == x->dtype,
                  "window must be a vector of the signal's type");
        CPU_CHECK(c, p.frame_length < 0 || p.frame_length == win->shape[0],
                  "frame_length %lld differs from the window length %lld",
                  (long long)p.frame_length, (long long)win->shape[0]);
        p.frame_length = win->shape[0];
    }
    CPU_CHECK(c, p.frame_length >= 1, "frame_length (or a window) is required and positive");
    CPU_CHECK(c, p.frame_length <= p.len, "frame_length %lld exceeds the signal length %lld",
              (long long)p.frame_length, (long long)p.len);
    int onesided = ((const signal_prep *)c->prep)->onesided;
    CPU_CHECK(c, !onesided || !p.complex_in, "onesided output needs a real signal");
    p.frames = (p.len - p.frame_length) / p.step + 1;
    p.n_bins = onesided ? p.frame_length / 2 + 1 : p.frame_length;
    int64_t ys[4] = {p.batch, p.frames, p.n_bins, 2};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, 4, ys, &y)))
        return rc;
    kern_stft(&p, x->dtype, x->data, win ? win->data : NULL, y->data);
    return TOSAC_OK;
}

static tosac_code op_mel(cpu_ctx *c)
{
    int64_t v[3];
    double lo, hi;
    tosac_dtype dt = ((const signal_prep *)c->prep)->dt;
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < 5 && !rc; i++)
        rc = cpu_req(c, i, &(const tosac_tensor *){NULL});
    for (int i = 0; i < 3 && !rc; i++) {
        CPU_CHECK(c, tosac_dtype_is_int(c->in[i]->dtype), "input %d must be an integer", i);
        rc = cpu_scalar_i64(c, c->in[i], &v[i]);
    }
    if (!rc)
        rc = cpu_scalar_f64(c, c->in[3], &lo);
    if (!rc)
        rc = cpu_scalar_f64(c, c->in[4], &hi);
    if (rc)
        return rc;
    CPU_CHECK(c, v[0] >= 1 && v[1] >= 1 && v[2] >= 1,
              "num_mel_bins, dft_length and sample_rate must be positive");
    CPU_CHECK(c, lo >= 0 && lo <= hi && hi < 1e300, "the edges must satisfy 0 <= lower <= upper");
    int64_t ys[2] = {v[1] / 2 + 1, v[0]};
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, dt, 2, ys, &y)))
        return rc;
    CPU_CHECK(c, kern_mel_weight_matrix(v[0], v[1], v[2], lo, hi, dt, y->data) == 0,
              "the mel points fall outside the %lld spectrum bins", (long long)ys[0]);
    return TOSAC_OK;
}

#define F CPU_F16_VIA_F32
const cpu_op_entry cpu_ops_signal[] = {
    {"HannWindow", op_hann, 0, &numeric_prep},
    {"HammingWindow", op_hamming, 0, &numeric_prep},
    {"BlackmanWindow", op_blackman, 0, &numeric_prep},
    {"DFT", op_dft, F, &dft_prep},
    {"STFT", op_stft, F, &stft_prep},
    {"MelWeightMatrix", op_mel, 0, &numeric_prep},
    {NULL, NULL, 0, NULL},
};
