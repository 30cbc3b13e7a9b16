/* DFT (opset 17) as RFFT2D / FFT2D under TOSA-1.0+FP+fft (lower_dft.c): each form against
 * the CPU executor on the same model (float, 1e-5 relative of the largest output: the sums
 * run in another order), the operators it takes, and the refusals with their reasons
 * (the CPU then runs the node): no +fft, a length that is not a power of two, a dft_length
 * that differs from the signal. */
#include "lower_core_testutil.h"

#include <string.h>

static float xv[2 * 4 * 16 * 2];

typedef struct dft_case {
    int rank;
    int64_t shape[4];
    int64_t axis;          /* attribute (opset 17) */
    int onesided, inverse;
    int64_t dft_length;    /* 0: input omitted */
} dft_case;

static void dft_model(lc_b *b, const void *arg)
{
    const dft_case *d = arg;
    lc_set_opset(b, 17);
    int ins[2] = {lc_input(b, "x", d->rank, d->shape, xv), -1};
    int n = 1;
    static int64_t len_v;
    if (d->dft_length > 0) {
        len_v = d->dft_length;
        ins[1] = ir_graph_add_const(lc_graph(b), "len", TOSAC_DT_I64, 0, NULL, &len_v, 8, NULL);
        n = 2;
    }
    int k = lc_node(b, "DFT", "dft", ins, n, 1);
    ir_graph *g = lc_graph(b);
    ir_node_set_int(g, k, "axis", d->axis, NULL);
    ir_node_set_int(g, k, "onesided", d->onesided, NULL);
    ir_node_set_int(g, k, "inverse", d->inverse, NULL);
    lc_output(b, lc_out(b, k, 0));
}

static void check(const dft_case *d, const char *spec, int delegated, const char *op,
                  const char *reason)
{
    lc_fill(xv, (int)(sizeof xv / sizeof xv[0]), 71, 2.0f);
    lc_result r;
    lc_check(dft_model, d, LC_FLOAT, spec, 1, &r);
    if (r.delegated != delegated)
        fail_msg("%s: %d delegated (CPU: %s)", spec, r.delegated, r.reasons);
    if (op)
        assert_non_null(lc_find(&r, tosa_op_from_name(op)));
    if (reason && !strstr(r.reasons, reason))
        fail_msg("reason '%s' not in '%s'", reason, r.reasons);
}

static void test_forms(void **s)
{
    (void)s;
    const char *fft = "TOSA-1.0+FP+fft";
    /* real, onesided, the last signal axis: RFFT2D; with a matching dft_length */
    dft_case a = {3, {2, 16, 1}, 1, 1, 0, 0};
    check(&a, fft, 1, "RFFT2D", NULL);
    a.dft_length = 16;
    check(&a, fft, 1, "RFFT2D", NULL);
    /* real, full spectrum: FFT2D with a zero imaginary part */
    dft_case b = {3, {2, 16, 1}, 1, 0, 0, 0};
    check(&b, fft, 1, "FFT2D", NULL);
    /* complex, inverse (scaled by 1/N) */
    dft_case c = {3, {2, 8, 2}, 1, 0, 1, 0};
    check(&c, fft, 1, "FFT2D", NULL);
    /* a signal axis that is not the last one: TRANSPOSEd there and back */
    dft_case e = {4, {2, 4, 8, 2}, 1, 0, 0, 0};
    check(&e, fft, 1, "TRANSPOSE", NULL);
    dft_case f = {4, {2, 4, 8, 1}, 1, 1, 0, 0};
    check(&f, fft, 1, "RFFT2D", NULL);
}

static void test_refusals(void **s)
{
    (void)s;
    dft_case a = {3, {2, 16, 1}, 1, 1, 0, 0};
    /* without the FFT extension the node stays on the CPU */
    check(&a, "TOSA-1.0+FP", 0, NULL, "need +fft");
    dft_case odd = {3, {2, 12, 1}, 1, 1, 0, 0};
    check(&odd, "TOSA-1.0+FP+fft", 0, NULL, "not a power of two");
    dft_case pad = {3, {2, 8, 1}, 1, 0, 0, 16};
    check(&pad, "TOSA-1.0+FP+fft", 0, NULL, "differs from the signal length");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
