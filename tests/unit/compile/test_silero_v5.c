/* Silero VAD v5 end to end (issue 8, defect 9: the CPU path failed on it with "output
 * 'If_0_else_branch__Inline_0__/decoder/rnn/Squeeze_2_output_0' is not a dense tensor", exit
 * 2). The model (25 If nodes, LSTMs inside the branches, opset 16) and onnxruntime's outputs
 * are in tests/data/silero_vad_v5 (see its README); the inputs are the shared silero samples
 * (models/silero_vad_op18_ifless/inputs: same names and shapes). Everything runs through the
 * CLI: `tosac run` of the model, `tosac compile` under TOSA-1.0+FP and, quantized a8w8, under
 * TOSA-1.0+INT, and three chained calls carrying the state. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tosac/npy.h"
#include "util/json.h"

#define MODEL "tests/data/silero_vad_v5/model.onnx"
#define INPUTS "models/silero_vad_op18_ifless/inputs"
#define REFS "tests/data/silero_vad_v5"

static const char *const samples[] = {"01", "06", "07"};
static const char *const outs[2] = {"output", "stateN"};

/* Float32 against onnxruntime's float run: the same operations summed in another order (convs
 * over 128 channels, LSTM gates over 128 + 128 terms) differ in the last bits; the
 * probability is in [0, 1] (measured 1.2e-7), the LSTM state is not bounded by 1 and drifts
 * more (measured 3.8e-6). */
static const float float_tol[2] = {1e-5f, 1e-4f};

/* `tosac run FILE` on one call: input and sr from shared sample `sample`, state from
 * `state` (a path), outputs into dir; the run must exit 0 with nothing on stderr. */
static void run(const char *file, const char *sample, const char *state, const char *dir)
{
    char in[4200], sr[4200], st[4200], f[4096];
    snprintf(st, sizeof st, "state=%s", state); /* first: state may be tu_shared's buffer */
    snprintf(f, sizeof f, INPUTS "/%s/input.npy", sample);
    snprintf(in, sizeof in, "input=%s", tu_shared(f));
    snprintf(f, sizeof f, INPUTS "/%s/sr.npy", sample);
    snprintf(sr, sizeof sr, "sr=%s", tu_shared(f));
    const char *args[] = {"run", file, "--input", in, "--input", st, "--input", sr,
                          "--output-dir", dir, NULL};
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, args);
    if (rc != 0 || errs[0])
        fail_msg("tosac run %s on sample %s: exit %d: %s", file, sample, rc, errs);
    free(errs);
}

/* The first n_out outputs in dir against ref_dir (relative to the source tree):
 * max |diff| <= tol[k]. */
static void check(const char *dir, const char *ref_dir, int n_out, const float *tol,
                  const char *what)
{
    for (int k = 0; k < n_out; k++) {
        tosac_tensor got, want;
        tosac_error err;
        char f[4200], r[4200];
        snprintf(f, sizeof f, "%s/%s.npy", dir, outs[k]);
        snprintf(r, sizeof r, "%s/%s.npy", ref_dir, outs[k]);
        assert_int_equal(tosac_npy_read(f, &got, &err), TOSAC_OK);
        if (tosac_npy_read(tu_source(r), &want, &err) != TOSAC_OK)
            fail_msg("%s: %s", what, err.msg); /* missing data fails, never skips */
        float d = tu_max_abs_diff(&got, &want);
        if (!(d <= tol[k]))
            fail_msg("%s %s: max |diff| %g > %g", what, outs[k], d, tol[k]);
        tosac_tensor_free(&got);
        tosac_tensor_free(&want);
    }
}

/* One call per sample (its own state), then the stream: samples 02, 03, 04 in a row, zero
 * state first (sample 00's), each call's stateN the next call's state, against onnxruntime's
 * same chain (the script's stream/<k>/): the state carries over at every step. */
static void check_samples_and_stream(const char *file, const char *ref, const float tol[2],
                                     const char *dir)
{
    char f[4096], r[4096], what[256];
    for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
        snprintf(f, sizeof f, INPUTS "/%s/state.npy", samples[s]);
        const char *out = tu_join(dir, samples[s]);
        run(file, samples[s], tu_shared(f), out);
        snprintf(r, sizeof r, REFS "/%s/%s", ref, samples[s]);
        snprintf(what, sizeof what, "%s sample %s", file, samples[s]);
        check(out, r, 2, tol, what);
    }
    char state[4096];
    snprintf(state, sizeof state, "%s", tu_shared(INPUTS "/00/state.npy"));
    for (int k = 0; k < 3; k++) {
        char sample[16], sub[32];
        snprintf(sample, sizeof sample, "%02d", 2 + k);
        snprintf(sub, sizeof sub, "stream%d", k);
        const char *out = tu_join(dir, sub);
        run(file, sample, state, out);
        snprintf(r, sizeof r, REFS "/%s/stream/%d", ref, k);
        snprintf(what, sizeof what, "%s stream call %d", file, k);
        check(out, r, 2, tol, what);
        snprintf(state, sizeof state, "%s/stateN.npy", out);
    }
}

/* (1) + (4) on the CPU executor: before the fix the first `tosac run` exited 2 ("... is not a
 * dense tensor"), which run() turns into a failure. */
static void test_cpu_run_matches_onnxruntime(void **st)
{
    (void)st;
    char *dir = tu_mkdtemp();
    char model[4096];
    snprintf(model, sizeof model, "%s", tu_source(MODEL));
    check_samples_and_stream(model, "float", float_tol, dir);
    tu_rmtree_free(dir);
}

/* `"key": N` of the report's top level. */
static int64_t report_int(const char *path, const char *key)
{
    char *text = tu_slurp(path);
    tosac_json *r = NULL;
    tosac_error err;
    assert_int_equal(tosac_json_parse(text, strlen(text), &r, &err), TOSAC_OK);
    int64_t v = -1;
    assert_true(tosac_json_int(tosac_json_get(r, key), &v));
    tosac_json_free(r);
    free(text);
    return v;
}

/* `tosac compile MODEL opts... -o dir/name` (opts NULL-terminated, at most 12) must exit 0;
 * the program's path goes to prog, its stderr is returned (malloc'd). */
static char *compile(const char *dir, const char *name, const char *const *opts,
                     char prog[4096])
{
    char model[4096];
    snprintf(model, sizeof model, "%s", tu_source(MODEL));
    snprintf(prog, 4096, "%s", tu_join(dir, name));
    const char *args[16] = {"compile", model};
    int n = 2;
    for (; *opts; opts++) {
        assert_true(n < 13);
        args[n++] = *opts;
    }
    args[n++] = "-o";
    args[n++] = prog;
    args[n] = NULL;
    char *errs = NULL;
    int rc = tu_cli_argv(NULL, &errs, args);
    if (rc != 0)
        fail_msg("compile %s: exit %d: %s", name, rc, errs);
    return errs;
}

/* (2) + (4): the float model under TOSA-1.0+FP with the shapes fixed (input and state have
 * dynamic dimensions) compiles, delegates, and the program computes what onnxruntime does. */
static void test_fp_program_matches_onnxruntime(void **st)
{
    (void)st;
    char *dir = tu_mkdtemp();
    char prog[4096], rep[4096];
    snprintf(rep, sizeof rep, "%s", tu_join(dir, "fp.json"));
    const char *opts[] = {"--spec", "TOSA-1.0+FP", "--input-shape", "input=1,576",
                          "--input-shape", "state=2,1,128", "--report", rep, NULL};
    char *errs = compile(dir, "fp.prog", opts, prog);
    /* delegates in the top graph and in the If bodies; the summary line counts both */
    int64_t top = report_int(rep, "n_delegates"), body = report_int(rep, "body_delegates");
    assert_true(top > 0 && body > 0);
    char want[128];
    snprintf(want, sizeof want, "compiled: %lld delegates (%lld in control-flow bodies)",
             (long long)(top + body), (long long)body);
    if (!strstr(errs, want))
        fail_msg("expected '%s' in: %s", want, errs);
    free(errs);
    check_samples_and_stream(prog, "float", float_tol, dir);
    tu_rmtree_free(dir);
}

/* (3) + (4): quantized a8w8 under TOSA-1.0+INT, calibrated on the shared silero samples.
 * Against onnxruntime running the QDQ model `tosac quantize` writes (same calibration):
 * within one step of each output's quantization (float work in the If bodies, which the
 * quantizer does not enter, summed in another order may cross one rounding boundary of the
 * output's Q; measured: 0). Against the float model: the int8 boundary Q/DQ of input, state
 * and outputs move the probability by up to 0.077 (sample 07, measured), so <= 0.1; the
 * state moves by several of its steps and is not bounded here. */
static void test_a8w8_int_program(void **st)
{
    (void)st;
    char *dir = tu_mkdtemp();
    char prog[4096], calib[4096];
    snprintf(calib, sizeof calib, "%s", tu_shared(INPUTS));
    /* the stored QDQ run was calibrated by min/max */
    const char *opts[] = {"--spec", "TOSA-1.0+INT", "--quantize", "a8w8", "--calib", calib,
                          "--calib-method", "minmax", "--quiet", NULL};
    free(compile(dir, "int.prog", opts, prog));
    tosac_program *p = NULL;
    tosac_error err;
    assert_int_equal(tosac_program_read_file(prog, &p, &err), TOSAC_OK);
    float step[2] = {tu_output_step(p, 0), tu_output_step(p, 1)};
    tosac_program_free(p);
    assert_true(step[0] > 0 && step[1] > 0);
    check_samples_and_stream(prog, "a8w8", step, dir);
    static const float to_float[1] = {0.1f};
    char out[4096], ref[4096], what[64];
    for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
        snprintf(out, sizeof out, "%s", tu_join(dir, samples[s]));
        snprintf(ref, sizeof ref, REFS "/float/%s", samples[s]);
        snprintf(what, sizeof what, "a8w8 vs float, sample %s", samples[s]);
        check(out, ref, 1, to_float, what); /* output only */
    }
    tu_rmtree_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_run_matches_onnxruntime),
        cmocka_unit_test(test_fp_program_matches_onnxruntime),
        cmocka_unit_test(test_a8w8_int_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
