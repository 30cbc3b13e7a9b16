/* Linear algebra operators beyond Gemm/MatMul: Det, Einsum (equation parsing here, the
 * summation in kern_einsum). */
#include "cpu/cpu_internal.h"

#include <string.h>

#include "kernels/einsum.h"
#include "kernels/kern.h"
#include "kernels/linalg.h"

static tosac_code op_det(cpu_ctx *c)
{
    const tosac_tensor *x;
    tosac_code rc = cpu_req_float(c, 0, &x);
    if (rc)
        return rc;
    CPU_CHECK(c, x->rank >= 2 && x->shape[x->rank - 1] == x->shape[x->rank - 2],
              "input must be [..., M, M]");
    int64_t m = x->shape[x->rank - 1], batch = tosac_shape_numel(x->rank - 2, x->shape);
    tosac_tensor *y;
    if ((rc = cpu_out(c, 0, x->dtype, x->rank - 2, x->shape, &y)))
        return rc;
    double *scratch = cpu_temp(c, (size_t)(m > 0 ? m * m : 1) * sizeof(double));
    if (!scratch)
        return cpu_fail(c, TOSAC_ERR_INTERNAL, "out of memory");
    kern_det(x->dtype, batch, m, x->data, y->data, scratch);
    cpu_release(c, scratch);
    return TOSAC_OK;
}

/* Label ids: a-z 0..25, A-Z 26..51, ellipsis dim j 52 + j; -1 for anything else. */
static int letter_label(char ch)
{
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a';
    if (ch >= 'A' && ch <= 'Z')
        return 26 + ch - 'A';
    return -1;
}

/* Parses one term into labels[]: its letters with "..." expanded to ell_rank ellipsis labels
 * right-aligned among m. Returns the number of labels, or -1 on a malformed term. */
static int parse_term(const char *t, size_t len, int ell_rank, int m, int *labels, int *has_ell)
{
    int n = 0;
    *has_ell = 0;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '.') {
            if (*has_ell || i + 2 >= len || t[i + 1] != '.' || t[i + 2] != '.')
                return -1;
            *has_ell = 1;
            for (int j = 0; j < ell_rank && n < TOSAC_MAX_RANK; j++)
                labels[n++] = 52 + m - ell_rank + j;
            i += 2;
            continue;
        }
        int l = letter_label(t[i]);
        if (l < 0 || n >= TOSAC_MAX_RANK)
            return -1;
        labels[n++] = l;
    }
    return n;
}

/* Letters in a term (ellipsis excluded). */
static int count_letters(const char *t, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += letter_label(t[i]) >= 0;
    return n;
}

static tosac_code op_einsum(cpu_ctx *c)
{
    const char *eq = cpu_attr_s(c, "equation", NULL);
    CPU_CHECK(c, eq, "equation is required");
    char buf[512];
    size_t bl = 0;
    for (const char *q = eq; *q; q++)
        if (*q != ' ') {
            CPU_CHECK(c, bl + 1 < sizeof buf, "equation is too long");
            buf[bl++] = *q;
        }
    buf[bl] = '\0';
    CPU_CHECK(c, c->n_in >= 1 && c->n_in <= KERN_EINSUM_MAX_IN, "1 to %d inputs are supported",
              KERN_EINSUM_MAX_IN);
    char *arrow = strstr(buf, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - buf) : bl;
    /* split the inputs' terms */
    const char *term[KERN_EINSUM_MAX_IN];
    size_t tlen[KERN_EINSUM_MAX_IN];
    int nt = 0;
    for (size_t i = 0, start = 0; i <= lhs_len; i++)
        if (i == lhs_len || buf[i] == ',') {
            CPU_CHECK(c, nt < c->n_in, "the equation has more terms than the %d inputs", c->n_in);
            term[nt] = buf + start;
            tlen[nt++] = i - start;
            start = i + 1;
        }
    CPU_CHECK(c, nt == c->n_in, "the equation has %d terms for %d inputs", nt, c->n_in);
    tosac_dtype dt = TOSAC_DT_UNKNOWN;
    int m = 0, ell[KERN_EINSUM_MAX_IN];
    for (int k = 0; k < nt; k++) {
        const tosac_tensor *t;
        tosac_code rc = cpu_req(c, k, &t);
        if (rc)
            return rc;
        CPU_CHECK(c, k == 0 || t->dtype == dt, "inputs have different types");
        dt = t->dtype;
        ell[k] = t->rank - count_letters(term[k], tlen[k]);
        CPU_CHECK(c, ell[k] >= 0, "term %d has more labels than input rank %d", k, t->rank);
        if (ell[k] > m)
            m = ell[k];
    }
    CPU_CHECK(c, tosac_dtype_is_float(dt) || dt == TOSAC_DT_I32 || dt == TOSAC_DT_I64 ||
                     dt == TOSAC_DT_U32 || dt == TOSAC_DT_U64,
              "inputs of type %s are not supported", tosac_dtype_name(dt));
    int64_t size[KERN_EINSUM_MAX_LABELS];
    int count[KERN_EINSUM_MAX_LABELS] = {0}, labels[KERN_EINSUM_MAX_IN][TOSAC_MAX_RANK];
    for (int l = 0; l < KERN_EINSUM_MAX_LABELS; l++)
        size[l] = -1;
    for (int k = 0; k < nt; k++) {
        int has;
        int n = parse_term(term[k], tlen[k], ell[k], m, labels[k], &has);
        CPU_CHECK(c, n == c->in[k]->rank && (has || ell[k] == 0),
                  "term %d does not match input rank %d", k, c->in[k]->rank);
        for (int a = 0; a < n; a++) {
            int l = labels[k][a];
            int64_t d = c->in[k]->shape[a];
            count[l]++;
            if (size[l] < 0 || (l >= 52 && size[l] == 1))
                size[l] = d;
            else
                CPU_CHECK(c, d == size[l] || (l >= 52 && d == 1),
                          "label '%c' has sizes %lld and %lld",
                          l < 26 ? 'a' + l : l < 52 ? 'A' + l - 26 : '.', (long long)size[l], (long long)d);
        }
    }
    /* output labels: explicit, or the ellipsis then the letters used once, in ASCII order */
    int out[KERN_EINSUM_MAX_LABELS], no = 0, used_out[KERN_EINSUM_MAX_LABELS] = {0};
    if (arrow) {
        int has;
        no = parse_term(arrow + 2, strlen(arrow + 2), m, m, out, &has);
        CPU_CHECK(c, no >= 0, "the output term is malformed");
    } else {
        for (int j = 0; j < m; j++)
            out[no++] = 52 + j;
        for (int l = 26; l < 52; l++)
            if (count[l] == 1)
                out[no++] = l;
        for (int l = 0; l < 26; l++)
            if (count[l] == 1)
                out[no++] = l;
    }
    for (int i = 0; i < no; i++) {
        CPU_CHECK(c, count[out[i]] > 0 && !used_out[out[i]], "output label %d is unknown or repeated", i);
        used_out[out[i]] = 1;
    }
    /* kernel label order: output labels, then the contracted ones */
    kern_einsum_params p;
    memset(&p, 0, sizeof p);
    int pos[KERN_EINSUM_MAX_LABELS];
    for (int i = 0; i < no; i++)
        pos[out[i]] = i;
    p.n_labels = no;
    for (int l = 0; l < KERN_EINSUM_MAX_LABELS; l++)
        if (count[l] && !used_out[l])
            pos[l] = p.n_labels++;
    double work = 1;
    for (int l = 0; l < KERN_EINSUM_MAX_LABELS; l++)
        if (count[l]) {
            p.size[pos[l]] = size[l];
            work *= (double)size[l];
        }
    /* the direct sum visits every label combination once */
    if (work > 1e12)
        return cpu_fail(c, TOSAC_ERR_UNSUPPORTED, "the equation needs %.3g products, beyond 1e12",
                        work);
    p.n_in = nt;
    p.n_out_labels = no;
    const void *ins[KERN_EINSUM_MAX_IN];
    for (int k = 0; k < nt; k++) {
        int64_t st[TOSAC_MAX_RANK];
        kern_strides(c->in[k]->rank, c->in[k]->shape, st);
        for (int a = 0; a < c->in[k]->rank; a++) {
            int l = labels[k][a];
            if (!(c->in[k]->shape[a] == 1 && size[l] > 1))
                p.in_stride[k][pos[l]] += st[a];
        }
        ins[k] = c->in[k]->data;
    }
    CPU_CHECK(c, no <= TOSAC_MAX_RANK, "the output rank %d is beyond %d", no, TOSAC_MAX_RANK);
    int64_t ys[TOSAC_MAX_RANK];
    for (int i = 0; i < no; i++)
        ys[i] = size[out[i]];
    tosac_tensor *y;
    tosac_code rc = cpu_out(c, 0, dt, no, ys, &y);
    if (!rc)
        kern_einsum(&p, dt, ins, y->data);
    return rc;
}

const cpu_op_entry cpu_ops_linalg[] = {
    {"Einsum", op_einsum, CPU_F16_VIA_F32, NULL},
    {"Det", op_det, CPU_F16_VIA_F32, NULL},
    {NULL, NULL, 0, NULL},
};
