/* Internal: one version's worth of generated specification data (spec_tables_1_*.c). */
#ifndef TOSAC_SPEC_TABLES_H
#define TOSAC_SPEC_TABLES_H

#include "tosac/spec.h"

/* <profile_extension>: which profiles it may be used with (TOSA_FEAT_INT / _FP bits). */
typedef struct tosa_spec_ext_info {
    tosa_ext ext;
    uint32_t profiles;
} tosa_spec_ext_info;

/* <enumval> of an <enum>; ext is the tosa_ext the value needs, or -1. */
typedef struct tosa_spec_enum_val {
    const char *enum_name;
    const char *name;
    int value;
    int ext;
} tosa_spec_enum_val;

typedef struct tosa_spec_version_table {
    int major, minor, patch;
    bool draft;
    int n_exts;
    const tosa_spec_ext_info *exts;
    tosa_spec_levels levels[2];     /* indexed by tosa_level */
    int n_enum_vals;
    const tosa_spec_enum_val *enum_vals;
    int n_ops;
    const tosa_spec_op *ops;
} tosa_spec_version_table;

extern const tosa_spec_version_table tosa_spec_table_1_0;
extern const tosa_spec_version_table tosa_spec_table_1_1;

/* The table for major.minor; NULL for versions we do not know. */
const tosa_spec_version_table *tosa_spec_table_for(int major, int minor);
/* The extension's entry in a version table; NULL if the version lacks it. */
const tosa_spec_ext_info *tosa_spec_table_ext(const tosa_spec_version_table *t, tosa_ext ext);

#endif
