/* tosac_format: the printf subset of our messages, without stdio (see format.h).
 * Floats: a double is mant * 2^e2; its exact decimal expansion is the integer
 * mant * 2^e2 (e2 >= 0) or mant * 5^-e2 scaled by 10^e2 (e2 < 0), computed in base-1e9
 * limbs (at most 767 digits, for the smallest numbers), then rounded once at the requested
 * digit, half to even on an exact tie. */
#include "util/format.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t cap, n; /* n: length of the whole output so far, written or not */
} out;

static void put(out *o, char c)
{
    if (o->n + 1 < o->cap)
        o->buf[o->n] = c;
    o->n++;
}

static void put_n(out *o, char c, size_t count)
{
    while (count--)
        put(o, c);
}

static void put_s(out *o, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        put(o, s[i]);
}

typedef struct spec {
    int left, zero, plus, space, alt;
    size_t width;
    int prec; /* -1: none given */
} spec;

/* Padding of a field of `total` characters: spaces before (right-justified, or '0' not
 * applicable), zeros after the prefix (zero_ok: a number the '0' flag applies to), or spaces
 * after ('-'). */
static size_t fill(const spec *sp, size_t total) { return sp->width > total ? sp->width - total : 0; }

static void field_start(out *o, const spec *sp, size_t total, int zero_ok, const char *pre,
                        size_t npre)
{
    size_t f = fill(sp, total);
    int zeros = zero_ok && sp->zero && !sp->left;
    if (!sp->left && !zeros)
        put_n(o, ' ', f);
    put_s(o, pre, npre);
    if (zeros)
        put_n(o, '0', f);
}

static void field_end(out *o, const spec *sp, size_t total)
{
    if (sp->left)
        put_n(o, ' ', fill(sp, total));
}

static size_t sign_prefix(const spec *sp, int neg, char *pre)
{
    if (neg)
        pre[0] = '-';
    else if (sp->plus)
        pre[0] = '+';
    else if (sp->space)
        pre[0] = ' ';
    else
        return 0;
    return 1;
}

static void fmt_int(out *o, const spec *sp, uint64_t mag, int neg, int is_signed, unsigned base,
                    int upper)
{
    const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char dig[24], pre[3];
    size_t nd = 0, npre = is_signed ? sign_prefix(sp, neg, pre) : 0;
    int nonzero = mag != 0;
    while (mag) {
        dig[nd++] = xd[mag % base];
        mag /= base;
    }
    size_t prec = sp->prec < 0 ? 1 : (size_t)sp->prec;
    size_t nzero = prec > nd ? prec - nd : 0;
    if (sp->alt && base == 16 && nonzero) {
        pre[npre++] = '0';
        pre[npre++] = upper ? 'X' : 'x';
    }
    if (sp->alt && base == 8 && nzero == 0 && (nd == 0 || dig[nd - 1] != '0'))
        nzero = 1; /* '#' with o: the first digit is 0 */
    size_t total = npre + nzero + nd;
    field_start(o, sp, total, sp->prec < 0, pre, npre);
    put_n(o, '0', nzero);
    while (nd)
        put(o, dig[--nd]);
    field_end(o, sp, total);
}

/* ---- floats ---- */

#define LIMB_BASE 1000000000u
#define MAX_LIMBS 96 /* 767 digits at most (2^53 * 5^1074) */

static void limbs_mul(uint32_t *l, int *n, uint64_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < *n; i++) {
        uint64_t t = (uint64_t)l[i] * m + carry;
        l[i] = (uint32_t)(t % LIMB_BASE);
        carry = t / LIMB_BASE;
    }
    while (carry) {
        l[(*n)++] = (uint32_t)(carry % LIMB_BASE);
        carry /= LIMB_BASE;
    }
}

/* The exact decimal digits of mant * 2^e2 (mant > 0) into dig (no leading zero); *e10 is
 * the power of ten of the first digit. Returns the digit count. */
static int exact_digits(uint64_t mant, int e2, char *dig, int *e10)
{
    uint32_t l[MAX_LIMBS];
    int n = 0;
    l[n++] = (uint32_t)(mant % LIMB_BASE);
    if (mant >= LIMB_BASE)
        l[n++] = (uint32_t)(mant / LIMB_BASE);
    for (int r = e2; r > 0; r -= 32)
        limbs_mul(l, &n, (uint64_t)1 << (r > 32 ? 32 : r));
    int k = e2 < 0 ? -e2 : 0; /* value = N / 10^k with N = mant * 5^k */
    for (int r = k; r > 0; r -= 13) {
        uint64_t p = 1;
        for (int i = 0; i < (r > 13 ? 13 : r); i++)
            p *= 5;
        limbs_mul(l, &n, p);
    }
    int nd = 0;
    uint32_t top = l[n - 1];
    char tmp[10];
    int nt = 0;
    do {
        tmp[nt++] = (char)('0' + top % 10);
        top /= 10;
    } while (top);
    while (nt)
        dig[nd++] = tmp[--nt];
    for (int i = n - 2; i >= 0; i--, nd += 9) /* nine digits per lower limb */
        for (int j = 8, v = (int)l[i]; j >= 0; j--, v /= 10)
            dig[nd + j] = (char)('0' + v % 10);
    *e10 = nd - 1 - k;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    return nd;
}

/* Keep the first n digits (n may be <= 0: fewer than none), rounding half to even. */
static void round_digits(char *dig, int *nd, int *e10, long n)
{
    if (n >= *nd)
        return;
    if (n < 0) {
        *nd = 0;
        return;
    }
    int sticky = 0;
    for (int i = (int)n + 1; i < *nd && !sticky; i++)
        sticky = dig[i] != '0';
    char next = dig[n];
    int up = next > '5' ||
             (next == '5' && (sticky || (n > 0 && ((dig[n - 1] - '0') & 1))));
    *nd = (int)n;
    if (!up)
        return;
    int i = (int)n - 1;
    while (i >= 0 && dig[i] == '9')
        i--;
    if (i >= 0) {
        dig[i]++;
        *nd = i + 1;
    } else { /* 99.96 -> 100.0 */
        dig[0] = '1';
        *nd = 1;
        (*e10)++;
    }
}

typedef struct fdigits {
    const char *dig;
    int nd, e10;
} fdigits;

static char digit_at(const fdigits *f, long i) { return i >= 0 && i < f->nd ? f->dig[i] : '0'; }

static void fmt_float(out *o, const spec *sp, double v, char conv)
{
    int upper = conv >= 'A' && conv <= 'Z';
    char c = (char)(conv | 0x20);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int bexp = (int)(bits >> 52 & 0x7ff);
    uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    char pre[1];
    size_t npre = sign_prefix(sp, (int)(bits >> 63), pre);
    if (bexp == 0x7ff) {
        const char *s = frac ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
        field_start(o, sp, npre + 3, 0, pre, npre);
        put_s(o, s, 3);
        field_end(o, sp, npre + 3);
        return;
    }
    char dig[MAX_LIMBS * 9 + 2];
    fdigits f = {dig, 0, 0};
    uint64_t mant = bexp ? frac | (uint64_t)1 << 52 : frac;
    if (mant)
        f.nd = exact_digits(mant, bexp ? bexp - 1075 : -1074, dig, &f.e10);
    long prec = sp->prec < 0 ? 6 : sp->prec;
    int style_e = c == 'e';
    if (c == 'e')
        round_digits(dig, &f.nd, &f.e10, prec + 1);
    else if (c == 'f')
        round_digits(dig, &f.nd, &f.e10, f.e10 + 1 + prec);
    else { /* g: P significant digits; f style when -4 <= X < P */
        long p = prec ? prec : 1;
        round_digits(dig, &f.nd, &f.e10, p);
        int x = f.nd ? f.e10 : 0;
        style_e = !(p > x && x >= -4);
        prec = style_e ? p - 1 : p - 1 - x;
        if (!sp->alt)
            while (prec > 0 && digit_at(&f, style_e ? prec : f.e10 + prec) == '0')
                prec--;
    }
    if (!f.nd)
        f.e10 = 0; /* zero, or rounded to zero */
    int point = prec > 0 || sp->alt;
    char ex[6];
    size_t nex = 0;
    if (style_e) {
        int x = f.e10 < 0 ? -f.e10 : f.e10;
        ex[nex++] = upper ? 'E' : 'e';
        ex[nex++] = f.e10 < 0 ? '-' : '+';
        if (x >= 100)
            ex[nex++] = (char)('0' + x / 100);
        ex[nex++] = (char)('0' + x / 10 % 10);
        ex[nex++] = (char)('0' + x % 10);
    }
    size_t nint = style_e || f.e10 < 0 ? 1 : (size_t)f.e10 + 1;
    size_t total = npre + nint + (size_t)point + (size_t)prec + nex;
    field_start(o, sp, total, 1, pre, npre);
    if (style_e || f.e10 >= 0)
        for (size_t i = 0; i < nint; i++)
            put(o, digit_at(&f, (long)i));
    else
        put(o, '0');
    if (point)
        put(o, '.');
    for (long j = 1; j <= prec; j++)
        put(o, digit_at(&f, style_e ? j : f.e10 + j));
    put_s(o, ex, nex);
    field_end(o, sp, total);
}

/* ---- the format string ---- */

enum { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T, LEN_LD };

static int read_num(const char **p)
{
    int v = 0;
    while (**p >= '0' && **p <= '9') {
        if (v < 100000000)
            v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

static void fmt_str(out *o, const spec *sp, const char *s)
{
    if (!s)
        s = sp->prec < 0 || sp->prec >= 6 ? "(null)" : ""; /* as glibc */
    size_t len = 0;
    while (s[len] && (sp->prec < 0 || len < (size_t)sp->prec))
        len++;
    field_start(o, sp, len, 0, NULL, 0);
    put_s(o, s, len);
    field_end(o, sp, len);
}

size_t tosac_vformat(char *buf, size_t cap, const char *fmt, va_list ap_in)
{
    out o = {buf, cap, 0};
    va_list ap;
    va_copy(ap, ap_in);
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            put(&o, *p++);
            continue;
        }
        const char *start = p++;
        spec sp = {0, 0, 0, 0, 0, 0, -1};
        for (;; p++) {
            if (*p == '-')
                sp.left = 1;
            else if (*p == '0')
                sp.zero = 1;
            else if (*p == '+')
                sp.plus = 1;
            else if (*p == ' ')
                sp.space = 1;
            else if (*p == '#')
                sp.alt = 1;
            else
                break;
        }
        if (*p == '*') {
            int w = va_arg(ap, int);
            p++;
            if (w < 0) {
                sp.left = 1;
                w = w == INT_MIN ? INT_MAX : -w;
            }
            sp.width = (size_t)w;
        } else
            sp.width = (size_t)read_num(&p);
        if (*p == '.') {
            p++;
            if (*p == '*') {
                int pr = va_arg(ap, int);
                p++;
                sp.prec = pr < 0 ? -1 : pr;
            } else
                sp.prec = read_num(&p);
        }
        int len = LEN_NONE;
        switch (*p) {
        case 'h': len = p[1] == 'h' ? LEN_HH : LEN_H; p += p[1] == 'h' ? 2 : 1; break;
        case 'l': len = p[1] == 'l' ? LEN_LL : LEN_L; p += p[1] == 'l' ? 2 : 1; break;
        case 'z': len = LEN_Z; p++; break;
        case 'j': len = LEN_J; p++; break;
        case 't': len = LEN_T; p++; break;
        case 'L': len = LEN_LD; p++; break;
        default: break;
        }
        char conv = *p;
        if (conv)
            p++;
        switch (conv) {
        case 'd':
        case 'i': {
            int64_t v;
            switch (len) {
            case LEN_HH: v = (signed char)va_arg(ap, int); break;
            case LEN_H: v = (short)va_arg(ap, int); break;
            case LEN_L: v = va_arg(ap, long); break;
            case LEN_LL: v = va_arg(ap, long long); break;
            case LEN_Z:
            case LEN_T: v = va_arg(ap, ptrdiff_t); break;
            case LEN_J: v = va_arg(ap, intmax_t); break;
            default: v = va_arg(ap, int); break;
            }
            uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            fmt_int(&o, &sp, mag, v < 0, 1, 10, 0);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uint64_t v;
            switch (len) {
            case LEN_HH: v = (unsigned char)va_arg(ap, unsigned); break;
            case LEN_H: v = (unsigned short)va_arg(ap, unsigned); break;
            case LEN_L: v = va_arg(ap, unsigned long); break;
            case LEN_LL: v = va_arg(ap, unsigned long long); break;
            case LEN_Z: v = va_arg(ap, size_t); break;
            case LEN_T: v = (uint64_t)va_arg(ap, ptrdiff_t); break;
            case LEN_J: v = va_arg(ap, uintmax_t); break;
            default: v = va_arg(ap, unsigned); break;
            }
            fmt_int(&o, &sp, v, 0, 0, conv == 'u' ? 10 : conv == 'o' ? 8 : 16, conv == 'X');
            break;
        }
        case 'c': {
            char ch = (char)va_arg(ap, int);
            field_start(&o, &sp, 1, 0, NULL, 0);
            put(&o, ch);
            field_end(&o, &sp, 1);
            break;
        }
        case 's': fmt_str(&o, &sp, va_arg(ap, const char *)); break;
        case 'p': {
            const void *ptr = va_arg(ap, const void *);
            if (!ptr) {
                sp.prec = -1;
                fmt_str(&o, &sp, "(nil)");
                break;
            }
            sp.alt = 1;
            fmt_int(&o, &sp, (uint64_t)(uintptr_t)ptr, 0, 0, 16, 0);
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G': {
            double v = len == LEN_LD ? (double)va_arg(ap, long double) : va_arg(ap, double);
            fmt_float(&o, &sp, v, conv);
            break;
        }
        case '%': put(&o, '%'); break;
        default: /* not supported (%n, %a) or a broken directive: shown as written */
            put_s(&o, start, (size_t)(p - start));
            break;
        }
    }
    va_end(ap);
    if (cap)
        buf[o.n < cap ? o.n : cap - 1] = '\0';
    return o.n;
}

size_t tosac_format(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = tosac_vformat(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
