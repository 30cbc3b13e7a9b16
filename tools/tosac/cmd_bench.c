/* tosac bench (PROGRAM | MODEL.onnx | GRAPH.tosa) [--input [NAME=]FILE.npy ...] [--runs N]
 *             [--warmup N] [--threads N] [--reference] [--input-shape NAME=D0,D1,...]
 * Runs the file on its inputs (random inputs of the declared type for any not given) and prints
 * one figure a line, `name: value unit`. Preparation (planning, allocation) happens once, before
 * the timed runs, as a deployed runtime would do it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli_graph_io.h"
#include "cli_runtime.h"
#include "cpu/cpu_exec.h"
#include "interp/interp_state.h"
#include "kernels/isa.h"
#include "tosac/npy.h"
#include "tosac/onnx.h"

#define BENCH_MAX_INPUTS 64
#define BENCH_MAX_SHAPES 16

static const char usage[] =
    "usage: tosac bench (PROGRAM | MODEL.onnx | GRAPH.tosa) [--input [NAME=]FILE.npy ...]\n"
    "                   [--runs N] [--warmup N] [--threads N] [--reference]\n"
    "                   [--input-shape NAME=D0,D1,...]\n"
    "Times repeated runs after one preparation; inputs not given are random values of the\n"
    "declared type and shape. Prints: runs, warmup, threads, kernels, median_ms, min_ms,\n"
    "mean_ms, max_ms, cpu_ms (the process's CPU time per timed run, every thread's),\n"
    "peak_rss_kib (one `name: value unit` a line).\n"
    "Programs only: --threads N runs the accelerated kernels on N threads (default 1);\n"
    "--reference runs every delegate operator on the reference interpreter. kernels: the\n"
    "kernel variant in use (TOSAC_KERNEL_ISA=portable|avx2|avx512vnni forces one), or\n"
    "reference.\n"
    "Example:\n"
    "  tosac bench model.prog --input input=sample.npy --runs 50 --threads 2\n";

typedef struct bench_args {
    const char *file;
    cli_input inputs[BENCH_MAX_INPUTS];
    int n_inputs;
    const char *shapes[BENCH_MAX_SHAPES];
    int n_shapes;
    long runs, warmup;
    int threads, reference;
} bench_args;

static tosac_code parse_count(const char *opt, const char *v, long lo, long hi, long *out,
                              tosac_error *err)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < lo || n > hi)
        return tosac_fail(err, TOSAC_ERR_INPUT, "%s takes a whole number from %ld to %ld, not '%s'",
                          opt, lo, hi, v);
    *out = n;
    return TOSAC_OK;
}

static tosac_code parse_args(int argc, char **argv, bench_args *a, tosac_error *err)
{
    memset(a, 0, sizeof *a);
    a->runs = 20;
    a->warmup = 2;
    a->threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int takes = !strcmp(s, "--input") || !strcmp(s, "-i") || !strcmp(s, "--runs") ||
                    !strcmp(s, "--warmup") || !strcmp(s, "--threads") ||
                    !strcmp(s, "--input-shape");
        if (takes && i + 1 >= argc)
            return tosac_fail(err, TOSAC_ERR_INPUT, "%s needs a value", s);
        tosac_code rc = TOSAC_OK;
        if (!strcmp(s, "--input") || !strcmp(s, "-i")) {
            if (a->n_inputs == BENCH_MAX_INPUTS)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d inputs", BENCH_MAX_INPUTS);
            cli_parse_input(argv[++i], &a->inputs[a->n_inputs++]);
        } else if (!strcmp(s, "--input-shape")) {
            if (a->n_shapes == BENCH_MAX_SHAPES)
                return tosac_fail(err, TOSAC_ERR_INPUT, "more than %d --input-shape",
                                  BENCH_MAX_SHAPES);
            a->shapes[a->n_shapes++] = argv[++i];
        } else if (!strcmp(s, "--runs")) {
            rc = parse_count(s, argv[++i], 1, 1000000, &a->runs, err);
        } else if (!strcmp(s, "--warmup")) {
            rc = parse_count(s, argv[++i], 0, 1000000, &a->warmup, err);
        } else if (!strcmp(s, "--threads")) {
            rc = cli_rt_parse_threads(argv[++i], &a->threads, err);
        } else if (!strcmp(s, "--reference")) {
            a->reference = 1;
        } else if (s[0] == '-') {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unknown option '%s' for bench", s);
        } else if (!a->file) {
            a->file = s;
        } else {
            return tosac_fail(err, TOSAC_ERR_INPUT, "unexpected argument '%s'", s);
        }
        if (rc)
            return rc;
    }
    return a->file ? TOSAC_OK : tosac_fail(err, TOSAC_ERR_INPUT, "bench needs a file");
}

/* What one graph input must be: name, dtype, static shape. */
typedef struct bench_slot {
    const char *name;
    tosac_dtype dtype;
    int rank;
    const int64_t *shape;
} bench_slot;

/* Deterministic pseudo-random values (xorshift) so repeated benches see the same data. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static tosac_code random_input(const bench_slot *sl, uint64_t *seed, tosac_tensor *t,
                               tosac_error *err)
{
    for (int d = 0; d < sl->rank; d++)
        if (sl->shape[d] < 0)
            return tosac_fail(err, TOSAC_ERR_INPUT,
                              "input '%s' has a dynamic dimension: give --input %s=FILE.npy or "
                              "--input-shape %s=D0,D1,...",
                              sl->name, sl->name, sl->name);
    tosac_code rc = tosac_tensor_alloc(t, sl->dtype, sl->rank, sl->shape, err);
    if (rc)
        return rc;
    int64_t n = tosac_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_rand(seed);
        switch (sl->dtype) {
        case TOSAC_DT_F32: ((float *)t->data)[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 2 - 1); break;
        case TOSAC_DT_F64: ((double *)t->data)[i] = (double)(r >> 11) / 9007199254740992.0 * 2 - 1; break;
        case TOSAC_DT_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)(r & 1); break;
        case TOSAC_DT_F16: /* 0x3800..0x3bff: values in [0.5, 1) — finite and harmless */
        case TOSAC_DT_BF16:
            ((uint16_t *)t->data)[i] = (uint16_t)((sl->dtype == TOSAC_DT_F16 ? 0x3800 : 0x3f00) |
                                                  (r & 0xff));
            break;
        case TOSAC_DT_I48: ((int64_t *)t->data)[i] = (int64_t)(r >> 17) - ((int64_t)1 << 46); break;
        case TOSAC_DT_I4: ((int8_t *)t->data)[i] = (int8_t)((int)(r % 15) - 7); break;
        default: memcpy((char *)t->data + (size_t)i * tosac_dtype_size(sl->dtype), &r,
                        tosac_dtype_size(sl->dtype));
        }
    }
    return TOSAC_OK;
}

/* Binds given files by name (or in order) and fills the rest with random data. */
static tosac_code bind_inputs(const bench_args *a, const bench_slot *slots, int n,
                              tosac_tensor *vals, tosac_error *err)
{
    int next = 0;
    for (int k = 0; k < a->n_inputs; k++) {
        const cli_input *in = &a->inputs[k];
        int s = -1;
        if (in->name) {
            for (int i = 0; i < n; i++)
                if (strcmp(slots[i].name, in->name) == 0)
                    s = i;
            if (s < 0) {
                const char *names[64];
                char list[300];
                for (int i = 0; i < n && i < 64; i++)
                    names[i] = slots[i].name;
                return tosac_fail(err, TOSAC_ERR_INPUT, "there is no input named '%s' (inputs: %s)",
                                  in->name, cli_name_list(names, n < 64 ? n : 64, list, sizeof list));
            }
        } else {
            while (next < n && vals[next].data)
                next++;
            s = next;
        }
        if (s >= n)
            return tosac_fail(err, TOSAC_ERR_INPUT, "more --input files than graph inputs (%d)", n);
        if (vals[s].data)
            return tosac_fail(err, TOSAC_ERR_INPUT, "input '%s' is given twice", slots[s].name);
        tosac_code rc = tosac_npy_read(in->path, &vals[s], err);
        if (rc)
            return rc;
        rc = cli_check_input(in->path, slots[s].name, &vals[s], slots[s].dtype, slots[s].rank,
                             slots[s].shape, err);
        if (rc)
            return rc;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) {
        if (vals[i].data)
            continue;
        tosac_code rc = random_input(&slots[i], &seed, &vals[i], err);
        if (rc)
            return rc;
    }
    return TOSAC_OK;
}

static double clock_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One prepared graph of any kind: run(ctx) executes it once on the bound inputs. */
typedef struct bench_target {
    tosac_code (*run)(struct bench_target *t, tosac_error *err);
    const tosac_tensor *inputs;
    int n_inputs;
    interp_state *interp;
    cpu_plan *plan;
    cli_rt program;
    tosac_tensor *outputs;
    int n_outputs;
} bench_target;

static tosac_code run_interp(bench_target *t, tosac_error *err)
{
    return interp_execute(t->interp, t->inputs, t->n_inputs, err);
}

static void free_outputs(bench_target *t)
{
    for (int i = 0; i < t->n_outputs; i++)
        tosac_tensor_free(&t->outputs[i]);
}

static tosac_code run_cpu(bench_target *t, tosac_error *err)
{
    free_outputs(t);
    return cpu_plan_run(t->plan, t->inputs, t->n_inputs, t->outputs, t->n_outputs, err);
}

/* The inputs are copied in on every run: the arena reuses their buffers once they are read. */
static tosac_code run_prog(bench_target *t, tosac_error *err)
{
    tosac_code rc = TOSAC_OK;
    for (int i = 0; i < t->n_inputs && !rc; i++)
        rc = cli_rt_set_input(t->program.rt, i, &t->inputs[i], err);
    return rc ? rc : tosac_rt_invoke(t->program.rt, err);
}

static tosac_code time_runs(const bench_args *a, bench_target *t, tosac_error *err)
{
    double *ms = calloc((size_t)a->runs, sizeof *ms);
    if (!ms)
        return tosac_fail(err, TOSAC_ERR_INTERNAL, "out of memory");
    tosac_code rc = TOSAC_OK;
    for (long i = 0; i < a->warmup && !rc; i++)
        rc = t->run(t, err);
    double sum = 0, cpu0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < a->runs && !rc; i++) {
        double t0 = now_ms();
        rc = t->run(t, err);
        ms[i] = now_ms() - t0;
        sum += ms[i];
    }
    double cpu = (clock_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (double)a->runs;
    if (!rc) {
        qsort(ms, (size_t)a->runs, sizeof *ms, cmp_double);
        double median = a->runs % 2 ? ms[a->runs / 2]
                                    : (ms[a->runs / 2 - 1] + ms[a->runs / 2]) / 2;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("runs: %ld\nwarmup: %ld\nthreads: %d\n", a->runs, a->warmup, a->threads);
        printf("kernels: %s\n", t->interp || a->reference ? "reference"
                                                          : kern_isa_name(kern_isa_active()));
        printf("median_ms: %.4f\nmin_ms: %.4f\nmean_ms: %.4f\nmax_ms: %.4f\n", median, ms[0],
               sum / (double)a->runs, ms[a->runs - 1]);
        printf("cpu_ms: %.4f\n", cpu);
        printf("peak_rss_kib: %ld\n", ru.ru_maxrss);
    }
    free(ms);
    return rc;
}

/* Slots of an IR graph's inputs (ONNX models and programs). */
static bench_slot *ir_slots(const ir_graph *g)
{
    bench_slot *s = calloc((size_t)g->n_inputs + 1, sizeof *s);
    for (int i = 0; s && i < g->n_inputs; i++) {
        const ir_tensor *t = &g->tensors[g->inputs[i]];
        s[i] = (bench_slot){t->name, t->dtype, t->rank < 0 ? 0 : t->rank, t->shape};
    }
    return s;
}

static tosac_code apply_input_shapes(const bench_args *a, ir_model *m, tosac_error *err)
{
    for (int i = 0; i < a->n_shapes; i++) {
        char name[256];
        int rank;
        int64_t dims[TOSAC_MAX_RANK];
        tosac_code rc = ir_parse_input_shape(a->shapes[i], name, sizeof name, &rank, dims, err);
        if (!rc)
            rc = ir_model_set_input_shape(m, name, rank, dims, err);
        if (rc)
            return rc;
    }
    return a->n_shapes ? ir_model_infer_shapes(m, err) : TOSAC_OK;
}

int cmd_bench(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return 0;
    }
    tosac_error err;
    tosac_error_clear(&err);
    bench_args a;
    cli_file_kind kind = CLI_FILE_UNKNOWN;
    tosac_code rc = parse_args(argc, argv, &a, &err);
    if (!rc)
        rc = cli_detect_file(a.file, &kind, &err);
    if (!rc && kind != CLI_FILE_PROGRAM && (a.threads > 1 || a.reference))
        rc = tosac_fail(&err, TOSAC_ERR_INPUT, "%s applies to programs, not to %s",
                        a.reference ? "--reference" : "--threads",
                        kind == CLI_FILE_TOSA ? "TOSA graphs (the reference interpreter)"
                                              : "ONNX models");
    if (rc)
        return cli_report(&err);

    bench_target t;
    memset(&t, 0, sizeof t);
    tosa_graph *tg = NULL;
    ir_model *model = NULL;
    bench_slot *slots = NULL;
    tosac_tensor *vals = NULL;
    int n = 0;
    if (kind == CLI_FILE_TOSA) {
        rc = tosa_graph_read_file(a.file, &tg, &err);
        if (!rc)
            rc = interp_prepare(tg, &t.interp, &err);
        if (!rc) {
            const tosa_block *b = tosa_graph_main_block(tg);
            n = b->n_inputs;
            slots = calloc((size_t)n + 1, sizeof *slots);
            for (int i = 0; slots && i < n; i++) {
                const tosa_tensor *bt = &b->tensors[b->inputs[i]];
                slots[i] = (bench_slot){bt->name, bt->dtype, bt->rank, bt->shape};
            }
            t.run = run_interp;
        }
    } else if (kind == CLI_FILE_ONNX) {
        rc = onnx_import_file(a.file, &model, &err);
        if (!rc)
            rc = apply_input_shapes(&a, model, &err);
        if (!rc)
            rc = cpu_plan_create(model->graph, ir_model_opset(model, ""), &t.plan, &err);
        if (!rc) {
            n = model->graph->n_inputs;
            slots = ir_slots(model->graph);
            t.n_outputs = model->graph->n_outputs;
            t.run = run_cpu;
        }
    } else {
        rc = cli_rt_open(a.file, &(cli_rt_opts){a.threads, a.reference}, &t.program, &err);
        if (!rc) {
            n = tosac_rt_n_inputs(t.program.rt);
            slots = calloc((size_t)n + 1, sizeof *slots);
            for (int i = 0; slots && i < n; i++) {
                const tosac_tensor *in = tosac_rt_input(t.program.rt, i);
                slots[i] = (bench_slot){tosac_rt_input_name(t.program.rt, i), in->dtype,
                                        in->rank, in->shape};
            }
            t.run = run_prog;
        }
    }
    if (!rc) {
        vals = calloc((size_t)n + 1, sizeof *vals);
        t.outputs = calloc((size_t)t.n_outputs + 1, sizeof *t.outputs);
        if (!slots || !vals || !t.outputs)
            rc = tosac_fail(&err, TOSAC_ERR_INTERNAL, "out of memory");
    }
    if (!rc)
        rc = bind_inputs(&a, slots, n, vals, &err);
    if (!rc) {
        t.inputs = vals;
        t.n_inputs = n;
        rc = time_runs(&a, &t, &err);
    }
    free_outputs(&t);
    free(t.outputs);
    for (int i = 0; vals && i < n; i++)
        tosac_tensor_free(&vals[i]);
    free(vals);
    free(slots);
    if (t.interp)
        interp_state_free(t.interp);
    cpu_plan_free(t.plan);
    cli_rt_close(&t.program);
    tosa_graph_free(tg);
    ir_model_free(model);
    return rc ? cli_report(&err) : 0;
}
