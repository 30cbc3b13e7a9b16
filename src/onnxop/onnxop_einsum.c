/* Einsum equation parsing (onnxop_einsum.h). */
#include "onnxop/onnxop_einsum.h"

#include <string.h>

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

#define FAIL(...) return onnxop_fail(err, n, TOSAC_ERR_INPUT, __VA_ARGS__)

tosac_code onnx_einsum_of(const ir_node *n, int n_in, const int *ranks,
                          const int64_t *const *shapes, onnx_einsum *e, tosac_error *err)
{
    memset(e, 0, sizeof *e);
    const char *eq = ir_node_attr_string(n, "equation", NULL);
    if (!eq)
        FAIL("equation is required");
    if (n_in < 1 || n_in > ONNX_EINSUM_MAX_IN)
        FAIL("1 to %d inputs are supported", ONNX_EINSUM_MAX_IN);
    char buf[512];
    size_t bl = 0;
    for (const char *q = eq; *q; q++)
        if (*q != ' ') {
            if (bl + 1 >= sizeof buf)
                FAIL("equation is too long");
            buf[bl++] = *q;
        }
    buf[bl] = '\0';
    const char *arrow = strstr(buf, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - buf) : bl;
    /* split the inputs' terms */
    const char *term[ONNX_EINSUM_MAX_IN];
    size_t tlen[ONNX_EINSUM_MAX_IN];
    int nt = 0;
    for (size_t i = 0, start = 0; i <= lhs_len; i++)
        if (i == lhs_len || buf[i] == ',') {
            if (nt >= n_in)
                FAIL("the equation has more terms than the %d inputs", n_in);
            term[nt] = buf + start;
            tlen[nt++] = i - start;
            start = i + 1;
        }
    if (nt != n_in)
        FAIL("the equation has %d terms for %d inputs", nt, n_in);
    e->n_in = nt;
    int m = 0, ell[ONNX_EINSUM_MAX_IN];
    for (int k = 0; k < nt; k++) {
        ell[k] = ranks[k] - count_letters(term[k], tlen[k]);
        if (ell[k] < 0)
            FAIL("term %d has more labels than input rank %d", k, ranks[k]);
        if (ell[k] > m)
            m = ell[k];
    }
    e->ell_rank = m;
    for (int l = 0; l < ONNX_EINSUM_MAX_LABELS; l++)
        e->size[l] = -1;
    for (int k = 0; k < nt; k++) {
        int has;
        int nl = parse_term(term[k], tlen[k], ell[k], m, e->labels[k], &has);
        if (nl < 0 || nl != ranks[k] || (!has && ell[k] != 0))
            FAIL("term %d is malformed or does not match input rank %d", k, ranks[k]);
        for (int a = 0; a < nl; a++) {
            int l = e->labels[k][a];
            int64_t d = shapes[k][a];
            e->count[l]++;
            if (e->size[l] < 0 || (l >= 52 && e->size[l] == 1))
                e->size[l] = d;
            else if (!(d == e->size[l] || (l >= 52 && d == 1)))
                FAIL("label '%c' has sizes %lld and %lld",
                     l < 26 ? 'a' + l : l < 52 ? 'A' + l - 26 : '.', (long long)e->size[l],
                     (long long)d);
        }
    }
    /* output labels: explicit, or the ellipsis then the letters used once, in ASCII order */
    int out[ONNX_EINSUM_MAX_LABELS], no = 0, used_out[ONNX_EINSUM_MAX_LABELS] = {0};
    if (arrow) {
        int has;
        no = parse_term(arrow + 2, strlen(arrow + 2), m, m, out, &has);
        if (no < 0)
            FAIL("the output term is malformed");
    } else {
        for (int j = 0; j < m; j++)
            out[no++] = 52 + j;
        for (int l = 26; l < 52; l++)
            if (e->count[l] == 1)
                out[no++] = l;
        for (int l = 0; l < 26; l++)
            if (e->count[l] == 1)
                out[no++] = l;
    }
    if (no > TOSAC_MAX_RANK)
        return onnxop_fail(err, n, TOSAC_ERR_UNSUPPORTED, "the output rank %d is beyond %d", no,
                           TOSAC_MAX_RANK);
    for (int i = 0; i < no; i++) {
        if (e->count[out[i]] == 0 || used_out[out[i]])
            FAIL("output label %d is unknown or repeated (it names an index no input has, or "
                 "one twice)", i);
        used_out[out[i]] = 1;
        e->out[i] = out[i];
        e->y[i] = e->size[out[i]];
    }
    e->n_out = no;
    return TOSAC_OK;
}
