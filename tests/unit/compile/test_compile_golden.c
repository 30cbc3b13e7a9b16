/* Compile output is pinned (issue 10: compile got faster without changing a byte): the
 * programs `tosac compile` writes for zoo models are compared, section by section, with
 * signatures taken from the compiler before the speed work (commit 479d959): each section's
 * size and 64-bit FNV-1a hash, and the whole file's. FNV-1a detects changes, it is not a
 * security hash. What breaks it: any change to lowering, names, constant layout, the plan,
 * the measured scratch or the writers. A deliberate change of the output updates the
 * expected line: the failure message prints the new one (check the change is meant).
 * Updated since: the RUNTIME section (state bytes with the accelerated kernels' prepared
 * data, and the per-thread scratch it now records) and the REPORT section (schema_version,
 * n_delegates: docs/REPORT.md), and again the RUNTIME section (issue 9: the state holds
 * each node's prepared-block slot, the record the CPU nodes' prepared_bytes); every other
 * section as before. The
 * RUNTIME record is the same whichever kernel variant the compiling machine runs (prepared
 * data and scratch are the largest over all variants). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/isa.h"
#include "runtime/rt_program.h"
#include "util/fileio.h"

typedef struct golden {
    const char *model, *spec, *shape; /* shape: one --input-shape, or NULL */
    const char *sig;
} golden;

static const golden cases[] = {
    {"resnet18_qdq_u8s8_op13", "TOSA-1.0+INT", NULL,
         "file 11923104 5853036702a24373; "
         "STRINGS 360 364f1df524b3ae5d; "
         "SIGNATURE 208 97e418142ef0fa9e; "
         "CPU 1256 1e41a35a23dbaa71; "
         "CONSTANTS 449 a69cd2821a905eae; "
         "DELEGATE 11796332 df3cd1fea7ab99c5; "
         "PLAN 8672 cf8e52a0717566be; "
         "REPORT 115526 bc53cf2eae2eccf1; "
         "RUNTIME 32 b3262abbfa82451e"},
    {"mobilenet_v2_qdq_u8s8_op13", "TOSA-1.0+INT", NULL,
         "file 4043104 35e8df7b9562db2c; "
         "STRINGS 380 f93990e0e9fd5d69; "
         "SIGNATURE 208 efbedb9e16315f8e; "
         "CPU 1256 5c892c28a9a4bfd1; "
         "CONSTANTS 449 3b1e1947a81068db; "
         "DELEGATE 3765938 95e2ed9f0f398f01; "
         "PLAN 16880 44b0e4b871f40133; "
         "REPORT 257693 bc4c86dc79967267; "
         "RUNTIME 32 aa9975cf0d30a902"},
    {"synth_qdq_s16_op21_conv", "TOSA-1.0+INT+int16", NULL,
         "file 8720 e10bb93100acc23c; "
         "STRINGS 185 e9ab14f18ae7f2b4; "
         "SIGNATURE 208 4df13898ab5db3d4; "
         "CPU 1256 b33aa9bb30b35476; "
         "CONSTANTS 450 9df1294b050f93f4; "
         "DELEGATE 3816 97163cffc94ad799; "
         "PLAN 464 321ba3412875c505; "
         "REPORT 2045 c94942e0fd22fa7c; "
         "RUNTIME 32 e231aa5200b345d5"},
    {"synth_qdq_s8_op13_conv_dw", "TOSA-1.0+INT", NULL,
         "file 7712 9464f66302bcd7b5; "
         "STRINGS 188 58868900bc70735a; "
         "SIGNATURE 208 8e1ad5e28ad8a4b4; "
         "CPU 1256 c0675d683bfcad13; "
         "CONSTANTS 449 2acfa6cafdafa40e; "
         "DELEGATE 2808 a896327f13e463ab; "
         "PLAN 464 49a61d8a94a3ee98; "
         "REPORT 2038 733f6d989d5961b2; "
         "RUNTIME 32 7d3232e69ef6a419"},
    {"synth_qdq_s8_op13_split_matmul", "TOSA-1.0+INT", NULL,
         "file 11872 c18ddef430065b73; "
         "STRINGS 266 d0f19d11213ba558; "
         "SIGNATURE 304 e32e3da949e7970a; "
         "CPU 1756 24dbc777f2cb75cb; "
         "CONSTANTS 673 8e48c81dfa4cdc8e; "
         "DELEGATE 4095 062bda5692d621a4; "
         "PLAN 728 a9c35d9a9d6bfd27; "
         "REPORT 3750 9e7120ae142a9185; "
         "RUNTIME 32 d82ab7e3cc308533"},
    {"ppocr_mobile_v2_cls", "TOSA-1.0+FP", "x=1,3,48,192",
         "file 712944 a696086b80a19e47; "
         "STRINGS 196 a500be939a59813a; "
         "SIGNATURE 208 229edb5f165dc96d; "
         "CPU 488 575de074697d45a9; "
         "CONSTANTS 16 88201fb960ff6465; "
         "DELEGATE 617908 692c37798f6f1f3a; "
         "PLAN 13320 e39b034cf1215e69; "
         "REPORT 80507 ea18f3e0acfa5541; "
         "RUNTIME 32 34e458accbfe7f1f"},
};

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static const char *kind_name(uint32_t k)
{
    static const char *names[] = {"?", "STRINGS", "SIGNATURE", "CPU", "DELEGATE", "CONSTANTS",
                                  "PLAN", "REPORT", "RUNTIME"};
    return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* "file BYTES HASH; KIND BYTES HASH; ..." of a program file's bytes. */
static void signature(const unsigned char *d, size_t n, char *out, size_t cap)
{
    rt_header_rec h;
    assert_true(n >= sizeof h);
    memcpy(&h, d, sizeof h);
    size_t len = (size_t)snprintf(out, cap, "file %zu %016llx", n,
                                  (unsigned long long)fnv1a(d, n));
    assert_true(sizeof h + (size_t)h.n_sections * sizeof(rt_section_rec) <= n);
    for (uint32_t i = 0; i < h.n_sections && len < cap; i++) {
        rt_section_rec s;
        memcpy(&s, d + sizeof h + i * sizeof s, sizeof s);
        assert_true(s.offset <= n && s.size <= n - s.offset);
        len += (size_t)snprintf(out + len, cap - len, "; %s %llu %016llx", kind_name(s.kind),
                                (unsigned long long)s.size,
                                (unsigned long long)fnv1a(d + s.offset, (size_t)s.size));
    }
}

static void test_zoo_programs_unchanged(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    int failures = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const golden *g = &cases[c];
        char model[1024], out[1100];
        snprintf(model, sizeof model, "%s/model.onnx", tu_shared(tu_join("models", g->model)));
        snprintf(out, sizeof out, "%s/%s.tosac", dir, g->model);
        const char *args[] = {"compile", model, "--spec", g->spec, "-o", out, "-q",
                              g->shape ? "--input-shape" : NULL, g->shape, NULL};
        char *errs = NULL;
        int rc = tu_cli_argv(NULL, &errs, args);
        if (rc != 0)
            fail_msg("%s: exit %d: %s", g->model, rc, errs ? errs : "");
        free(errs);
        void *d = NULL;
        size_t n = 0;
        tosac_error err;
        if (tosac_read_file(out, &d, &n, &err))
            fail_msg("%s", err.msg);
        char sig[1024];
        signature(d, n, sig, sizeof sig);
        free(d);
        printf("%s %s: %s\n", g->model, g->spec, strcmp(sig, g->sig) ? "CHANGED" : "same");
        if (strcmp(sig, g->sig)) {
            printf("  expected %s\n  now      %s\n", g->sig, sig);
            failures++;
        }
    }
    tu_rmtree_free(dir);
    assert_int_equal(failures, 0);
}

/* The compiler measures the runtime's state and scratch on its own machine: the program must
 * not depend on which kernel variant that machine runs (each accelerated family allocates the
 * largest need of all its variants). Every available variant compiles the int8 and int16
 * convolution models to the same bytes. */
static void test_same_bytes_on_every_variant(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    const char *const models[][2] = {{"synth_qdq_s8_op13_conv_dw", "TOSA-1.0+INT"},
                                     {"synth_qdq_s16_op21_conv", "TOSA-1.0+INT+int16"},
                                     {"synth_qdq_s8_op13_split_matmul", "TOSA-1.0+INT"}};
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        void *first = NULL;
        size_t first_n = 0;
        int ran = 0;
        for (int v = 0; v < KERN_ISA_COUNT; v++) {
            if (!kern_isa_available((kern_isa)v))
                continue;
            char model[1024], out[1100];
            snprintf(model, sizeof model, "%s/model.onnx", tu_shared(tu_join("models", models[m][0])));
            snprintf(out, sizeof out, "%s/%s.%d.tosac", dir, models[m][0], v);
            setenv("TOSAC_KERNEL_ISA", kern_isa_name((kern_isa)v), 1);
            const char *args[] = {"compile", model, "--spec", models[m][1], "-o", out, "-q", NULL};
            assert_int_equal(tu_cli_argv(NULL, NULL, args), 0);
            void *d = NULL;
            size_t n = 0;
            tosac_error err;
            assert_int_equal(tosac_read_file(out, &d, &n, &err), TOSAC_OK);
            if (!first) {
                first = d;
                first_n = n;
            } else {
                if (n != first_n || memcmp(d, first, n) != 0)
                    fail_msg("%s: the program compiled with %s differs from the first variant's",
                             models[m][0], kern_isa_name((kern_isa)v));
                free(d);
            }
            ran++;
        }
        printf("%s: %d variants, one program\n", models[m][0], ran);
        free(first);
    }
    unsetenv("TOSAC_KERNEL_ISA");
    tu_rmtree_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zoo_programs_unchanged),
        cmocka_unit_test(test_same_bytes_on_every_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
