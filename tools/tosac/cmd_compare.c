/* tosac compare REFERENCE.npy RESULT.npy [--atol X | --qtol N --scale S] [--rtol X]
 * How close a result is to a reference (e.g. a quantized program's output to the float
 * model's): one figure a line, `name: value`. Exit 0 within tolerance, 1 outside it (like
 * cmp), 2 when the files cannot be compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cli.h"
#include "compare_dumps.h"
#include "tosac/npy.h"

static const char usage[] =
    "usage: tosac compare REFERENCE.npy RESULT.npy [--atol X | --qtol N --scale S] [--rtol X]\n"
    "Prints max_abs_diff, max_rel_diff (relative to max |reference|), mean_abs_diff,\n"
    "argmax_agree (over the last axis), cosine (similarity), sqnr_db (10 log10 of signal\n"
    "over error energy; inf when equal), and within_tolerance: every element satisfies\n"
    "|result - reference| <= atol + rtol * |reference| (defaults: atol 1e-3, rtol 1e-3).\n"
    "--qtol N --scale S: a tolerance of N output quantization steps of size S\n"
    "(atol = 1e-3 + N * S). Exit 0 within tolerance, 1 outside, 2 cannot compare.\n"
    "\n"
    "       tosac compare DIR_REF DIR_RESULT [--sqnr-below DB]\n"
    "Two folders of tosac run --dump-intermediates: for every tensor of DIR_REF, in its\n"
    "order of execution, that DIR_RESULT also has (by tensor name; a program's quantized\n"
    "values are there dequantized under the float model's names): sqnr_db, cosine,\n"
    "max_abs_diff, then the first tensor whose SQNR is below DB (default 20): the first\n"
    "layer that goes wrong. Exit 0 none below, 1 one below, 2 cannot compare.\n"
    "Example:\n"
    "  tosac compare expected/logits.npy out/logits.npy --qtol 2 --scale 0.0253\n"
    "  tosac compare ref/ q/ --sqnr-below 25\n";

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int parse_tol(const char *opt, const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || !(d >= 0) || isinf(d))
        return cli_error(TOSAC_ERR_INPUT, "%s takes a non-negative number, not '%s'", opt, v);
    *out = d;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    double atol = 1e-3, rtol = 1e-3, qtol = -1, scale = -1, sqnr_below = NAN;
    bool atol_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double *slot = strcmp(a, "--atol") == 0   ? &atol
                       : strcmp(a, "--rtol") == 0 ? &rtol
                       : strcmp(a, "--qtol") == 0 ? &qtol
                       : strcmp(a, "--scale") == 0 ? &scale
                                                   : NULL;
        if (strcmp(a, "--sqnr-below") == 0) {
            char *end;
            double v = i + 1 < argc ? strtod(argv[i + 1], &end) : NAN;
            if (i + 1 >= argc || argv[i + 1][0] == '\0' || *end != '\0' || !isfinite(v))
                return cli_error(TOSAC_ERR_INPUT, "--sqnr-below takes a number of dB");
            sqnr_below = v;
            i++;
        } else if (slot) {
            if (i + 1 >= argc)
                return cli_error(TOSAC_ERR_INPUT, "%s needs a value", a);
            int rc = parse_tol(a, argv[i + 1], slot);
            if (rc)
                return rc;
            atol_given |= slot == &atol;
            i++;
        } else if (argv[i][0] == '-') {
            return cli_error(TOSAC_ERR_INPUT, "unknown option '%s' for compare", argv[i]);
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            return cli_error(TOSAC_ERR_INPUT, "unexpected argument '%s'", argv[i]);
        }
    }
    if (nfiles != 2)
        return cli_error(TOSAC_ERR_INPUT, "compare needs two .npy files (try 'tosac compare --help')");
    if (is_dir(files[0]) || is_dir(files[1])) {
        if (!is_dir(files[0]) || !is_dir(files[1]))
            return cli_error(TOSAC_ERR_INPUT, "compare takes two .npy files or two dump "
                             "folders, not one of each");
        if (qtol >= 0 || scale >= 0 || atol_given || rtol != 1e-3)
            return cli_error(TOSAC_ERR_INPUT, "--atol/--rtol/--qtol/--scale compare two .npy "
                             "files; folders take --sqnr-below DB");
        tosac_error derr;
        tosac_error_clear(&derr);
        int r = compare_dump_dirs(files[0], files[1], isnan(sqnr_below) ? 20.0 : sqnr_below,
                                  &derr);
        return r < 0 ? cli_report(&derr) : r;
    }
    if (!isnan(sqnr_below))
        return cli_error(TOSAC_ERR_INPUT, "--sqnr-below compares two dump folders");
    if ((qtol >= 0) != (scale >= 0))
        return cli_error(TOSAC_ERR_INPUT, "--qtol N and --scale S go together (atol = 1e-3 + N * S)");
    if (qtol >= 0 && atol_given)
        return cli_error(TOSAC_ERR_INPUT, "--atol and --qtol both set the absolute tolerance");
    if (qtol >= 0)
        atol = 1e-3 + qtol * scale;
    tosac_error err;
    tosac_error_clear(&err);
    tosac_tensor ref, res;
    memset(&res, 0, sizeof res);
    if (tosac_npy_read(files[0], &ref, &err))
        return cli_report(&err);
    if (tosac_npy_read(files[1], &res, &err)) {
        tosac_tensor_free(&ref);
        return cli_report(&err);
    }
    int status = 0;
    char s1[160], s2[160];
    tosac_shape_str(ref.rank, ref.shape, s1, sizeof s1);
    tosac_shape_str(res.rank, res.shape, s2, sizeof s2);
    int same_shape = ref.rank == res.rank && strcmp(s1, s2) == 0;
    if (!same_shape) {
        status = cli_error(TOSAC_ERR_INPUT, "shapes differ: %s has %s, %s has %s", files[0], s1,
                           files[1], s2);
    } else {
        int64_t n = tosac_tensor_numel(&ref);
        double max_abs = 0, max_ref = 0, sum_abs = 0, dot = 0, ref2 = 0, res2 = 0, err2 = 0;
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) {
            double a = tosac_tensor_f64_at(&ref, i), b = tosac_tensor_f64_at(&res, i);
            double d = fabs(a - b);
            if (isnan(a) != isnan(b))
                d = INFINITY;
            else if (isnan(a))
                d = 0;
            if (d > max_abs)
                max_abs = d;
            if (fabs(a) > max_ref && !isnan(a))
                max_ref = fabs(a);
            sum_abs += d;
            if (!isnan(a) || !isnan(b)) { /* both NaN: equal, no energy */
                dot += a * b;
                ref2 += a * a;
                res2 += b * b;
                err2 += (a - b) * (a - b);
            }
            if (!(d <= atol + rtol * fabs(a)))
                bad++;
        }
        /* argmax over the last axis: what a classifier's answer is */
        int64_t inner = ref.rank ? ref.shape[ref.rank - 1] : 1, rows = inner ? n / inner : 0;
        int64_t agree = 0;
        for (int64_t r = 0; r < rows; r++) {
            int64_t ia = 0, ib = 0;
            for (int64_t k = 1; k < inner; k++) {
                int64_t base = r * inner;
                if (tosac_tensor_f64_at(&ref, base + k) > tosac_tensor_f64_at(&ref, base + ia))
                    ia = k;
                if (tosac_tensor_f64_at(&res, base + k) > tosac_tensor_f64_at(&res, base + ib))
                    ib = k;
            }
            agree += ia == ib;
        }
        printf("shape: %s\nelements: %lld\n", s1, (long long)n);
        printf("max_abs_diff: %.6g\nmax_rel_diff: %.6g\nmean_abs_diff: %.6g\n", max_abs,
               max_ref > 0 ? max_abs / max_ref : max_abs, n ? sum_abs / (double)n : 0.0);
        printf("argmax_agree: %lld/%lld\n", (long long)agree, (long long)rows);
        /* all-zero vectors: cosine 1 when both are, 0 when one is; SQNR inf when equal */
        double cosine = ref2 > 0 && res2 > 0 ? dot / (sqrt(ref2) * sqrt(res2))
                        : ref2 == res2        ? 1.0
                                              : 0.0;
        double sqnr = err2 == 0 ? INFINITY : ref2 == 0 ? -INFINITY : 10 * log10(ref2 / err2);
        printf("cosine: %.6g\nsqnr_db: %.6g\n", cosine, sqnr);
        printf("outside_tolerance: %lld\n", (long long)bad);
        printf("within_tolerance: %s (atol %g + rtol %g * |reference|)\n", bad ? "no" : "yes",
               atol, rtol);
        status = bad ? 1 : 0;
    }
    tosac_tensor_free(&ref);
    tosac_tensor_free(&res);
    return status;
}
