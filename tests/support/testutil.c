#define _GNU_SOURCE
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fileio.h"

const char *tu_shared(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", TOSAC_SHARED_DIR, rel);
    return buf;
}

const char *tu_source(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", TOSAC_SOURCE_DIR, rel);
    return buf;
}

char *tu_mkdtemp(void)
{
    char *p = strdup("/tmp/tosac-test-XXXXXX");
    if (!p || !mkdtemp(p)) {
        fprintf(stderr, "mkdtemp failed\n");
        abort();
    }
    return p;
}

void tu_rmtree(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", path, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
}

void tu_rmtree_free(char *path)
{
    tu_rmtree(path);
    free(path);
}

const char *tu_join(const char *dir, const char *rel)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, rel);
    return buf[k];
}

static char *slurp_fd(int fd)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n + 1024 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return buf;
}

int tu_cli_argv(char **out, char **errout, const char *const *args)
{
    int n = 0;
    while (args[n])
        n++;
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    argv[0] = (char *)TOSAC_CLI_PATH;
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    char outname[] = "/tmp/tosac-out-XXXXXX", errname[] = "/tmp/tosac-err-XXXXXX";
    int ofd = mkstemp(outname), efd = mkstemp(errname);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        execv(TOSAC_CLI_PATH, argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    free(argv);
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    char *o = slurp_fd(ofd), *e = slurp_fd(efd);
    close(ofd);
    close(efd);
    unlink(outname);
    unlink(errname);
    if (out)
        *out = o;
    else
        free(o);
    if (errout)
        *errout = e;
    else
        free(e);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

void tu_cli_expect_exit2(const char *needle, const char *const *args)
{
    char *errs = NULL;
    assert_int_equal(tu_cli_argv(NULL, &errs, args), 2);
    if (!strstr(errs, needle))
        fail_msg("stderr '%s' lacks '%s'", errs, needle);
    assert_int_equal(tu_count_lines(errs), 1);
    free(errs);
}

int tu_cli(char **out, char **errout, ...)
{
    const char *args[64];
    int n = 0;
    va_list ap;
    va_start(ap, errout);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && n < 63)
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return tu_cli_argv(out, errout, args);
}

static uint64_t tu_rng = 0x9e3779b97f4a7c15ull;

void tu_seed(uint64_t seed)
{
    tu_rng = seed ? seed : 0x9e3779b97f4a7c15ull; /* xorshift must not start at 0 */
}

uint32_t tu_rand(void)
{
    tu_rng ^= tu_rng >> 12;
    tu_rng ^= tu_rng << 25;
    tu_rng ^= tu_rng >> 27;
    return (uint32_t)((tu_rng * 2685821657736338717ull) >> 32);
}

uint32_t tu_below(uint32_t n)
{
    return n ? tu_rand() % n : 0;
}

void *tu_memdup(const void *p, size_t len)
{
    void *c = malloc(len ? len : 1);
    if (!c)
        abort();
    if (len)
        memcpy(c, p, len);
    return c;
}

int tu_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

char *tu_slurp(const char *path)
{
    void *buf = NULL;
    size_t len;
    tosac_error err;
    tosac_error_clear(&err);
    if (tosac_read_file(path, &buf, &len, &err))
        fail_msg("%s", err.msg);
    return buf;
}

float tu_max_abs_diff(const tosac_tensor *a, const tosac_tensor *b)
{
    assert_int_equal(tosac_tensor_numel(a), tosac_tensor_numel(b));
    const float *x = a->data, *y = b->data;
    float m = 0;
    for (int64_t e = 0; e < tosac_tensor_numel(a); e++)
        m = fmaxf(m, fabsf(x[e] - y[e]));
    return m;
}

float tu_output_step(const tosac_program *p, int k)
{
    const ir_graph *g = tosac_program_cpu(p)->graph;
    char name[256];
    snprintf(name, sizeof name, "%s_quantized", g->tensors[g->outputs[k]].name);
    int t = ir_graph_find_tensor(g, name);
    assert_true(t >= 0);
    assert_non_null(g->tensors[t].quant);
    return g->tensors[t].quant->scale[0];
}
