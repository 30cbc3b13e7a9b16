/* The range an elementwise activation can reach from its input's quantized range (its image),
 * for Sigmoid, HardSigmoid, HardSwish, Tanh and the exported SiLU / HardSwish forms
 * Mul(x, Sigmoid(x)) and Mul(x, HardSigmoid(x)). (Not Softmax: its image [0, 1] is many
 * times an attention row's largest probability, 0.4 on the shared synthetic model.) The plan widens such an output's range to
 * the image (quant_plan.c), so every input value the input's Q can represent keeps its value
 * through the activation. Without it a sample beyond the calibration samples' output range is
 * clipped at the activation although its input was still in range: an efficientnet-style
 * squeeze-excitation's SiLU saw at most 6.1 on the calibration samples, the int16 input range
 * (symmetric) reached 10.1, and a held-out sample's 9.98 became 6.1 (bench/RESULTS.md). */
#include "quant/quant_internal.h"

#include <math.h>
#include <string.h>

typedef enum { F_NONE, F_SIGMOID, F_HSIGMOID, F_HSWISH, F_TANH, F_SILU, F_XHSIGMOID } fkind;

typedef struct fun {
    fkind k;
    double alpha, beta; /* HardSigmoid's */
} fun;

static double hsig(const fun *f, double v) { return fmin(1.0, fmax(0.0, f->alpha * v + f->beta)); }

static double eval(const fun *f, double v)
{
    switch (f->k) {
    case F_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case F_HSIGMOID: return hsig(f, v);
    case F_HSWISH: return v * fmin(1.0, fmax(0.0, v / 6.0 + 0.5));
    case F_TANH: return tanh(v);
    case F_SILU: return v / (1.0 + exp(-v));
    case F_XHSIGMOID: return v * hsig(f, v);
    default: return 0.0;
    }
}

static void hsig_params(const ir_node *n, fun *f)
{
    f->alpha = ir_node_attr_float(n, "alpha", 0.2f);
    f->beta = ir_node_attr_float(n, "beta", 0.5f);
}

/* The function node i computes of tensor x (F_NONE: not one of the forms). */
static fun classify(const ir_graph *g, int i, int x)
{
    const ir_node *n = &g->nodes[i];
    fun f = {F_NONE, 0, 0};
    if (n->n_inputs < 1 || n->inputs[0] != x)
        return f;
    if (ir_node_is(n, "Sigmoid"))
        f.k = F_SIGMOID;
    else if (ir_node_is(n, "HardSigmoid")) {
        f.k = F_HSIGMOID;
        hsig_params(n, &f);
    } else if (ir_node_is(n, "HardSwish"))
        f.k = F_HSWISH;
    else if (ir_node_is(n, "Tanh"))
        f.k = F_TANH;
    return f;
}

static fun mul_form(const ir_graph *g, int i, int *x)
{
    const ir_node *n = &g->nodes[i];
    fun none = {F_NONE, 0, 0};
    if (!ir_node_is(n, "Mul") || n->n_inputs != 2)
        return none;
    for (int k = 0; k < 2; k++) {
        int a = n->inputs[k], b = n->inputs[1 - k];
        int pb = b >= 0 ? ir_graph_producer(g, b) : -1;
        if (a < 0 || pb < 0)
            continue;
        fun inner = classify(g, pb, a);
        if (inner.k == F_SIGMOID || inner.k == F_HSIGMOID) {
            *x = a;
            inner.k = inner.k == F_SIGMOID ? F_SILU : F_XHSIGMOID;
            return inner;
        }
    }
    return none;
}

bool quant_image_of(const ir_graph *g, int i, int *x)
{
    const ir_node *n = &g->nodes[i];
    if (n->n_outputs < 1 || n->outputs[0] < 0)
        return false;
    if (mul_form(g, i, x).k != F_NONE)
        return true;
    *x = n->n_inputs > 0 ? n->inputs[0] : -1;
    return *x >= 0 && classify(g, i, *x).k != F_NONE;
}

/* The endpoints and the interior minima (SiLU at -1.2785, HardSwish at -1.5, x*HardSigmoid
 * at -beta/(2 alpha)) give the image: every form is monotone or falls to that one minimum and
 * rises after it. A point of another form's minimum inside [lo, hi] is a value of the image
 * too, so evaluating all three never widens it beyond the truth. */
void quant_image_range(const ir_graph *g, int i, double lo, double hi, quant_range *out)
{
    int x = -1;
    fun f = mul_form(g, i, &x);
    if (f.k == F_NONE)
        f = classify(g, i, g->nodes[i].inputs[0]);
    double pts[3] = {-1.2784645427610738, -1.5, f.alpha > 0 ? -f.beta / (2.0 * f.alpha) : lo};
    double mn = fmin(eval(&f, lo), eval(&f, hi)), mx = fmax(eval(&f, lo), eval(&f, hi));
    for (int k = 0; k < 3; k++)
        if (pts[k] > lo && pts[k] < hi) {
            mn = fmin(mn, eval(&f, pts[k]));
            mx = fmax(mx, eval(&f, pts[k]));
        }
    out->lo = (float)mn;
    out->hi = (float)mx;
    out->seen = true;
}
