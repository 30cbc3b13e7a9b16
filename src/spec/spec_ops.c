/* Questions about operators, types, levels and enum values, answered from the generated
 * tables of the spec's version. */
#include <string.h>

#include "spec/spec_tables.h"

static const tosa_spec_version_table *table_of(const tosa_spec *spec)
{
    return spec ? tosa_spec_table_for(spec->major, spec->minor) : NULL;
}

int tosa_spec_op_count(const tosa_spec *spec)
{
    const tosa_spec_version_table *t = table_of(spec);
    return t ? t->n_ops : 0;
}

const tosa_spec_op *tosa_spec_op_at(const tosa_spec *spec, int i)
{
    const tosa_spec_version_table *t = table_of(spec);
    return t && i >= 0 && i < t->n_ops ? &t->ops[i] : NULL;
}

const tosa_spec_op *tosa_spec_find_op(const tosa_spec *spec, tosa_op op)
{
    const tosa_spec_version_table *t = table_of(spec);
    if (!t || op == TOSA_OP_UNKNOWN)
        return NULL;
    for (int i = 0; i < t->n_ops; i++)
        if (t->ops[i].op == op)
            return &t->ops[i];
    return NULL;
}

const tosa_spec_op *tosa_spec_find_op_by_name(const tosa_spec *spec, const char *name)
{
    const tosa_spec_version_table *t = table_of(spec);
    if (!t || !name)
        return NULL;
    for (int i = 0; i < t->n_ops; i++)
        if (strcmp(t->ops[i].name, name) == 0)
            return &t->ops[i];
    return NULL;
}

int tosa_spec_op_type_index(const tosa_spec_op *op, const char *type_name)
{
    for (int i = 0; op && type_name && i < op->n_types; i++)
        if (strcmp(op->type_names[i], type_name) == 0)
            return i;
    return -1;
}

const tosa_spec_levels *tosa_spec_level_limits(const tosa_spec *spec)
{
    const tosa_spec_version_table *t = table_of(spec);
    return t ? &t->levels[spec->level == TOSA_LEVEL_8K ? 1 : 0] : NULL;
}

int tosa_spec_rank_value(const tosa_spec *spec, int rank)
{
    const tosa_spec_levels *l = tosa_spec_level_limits(spec);
    if (rank > TOSA_RANK_MAX_RANK / 2 && l)
        return (int)l->max_rank - (TOSA_RANK_MAX_RANK - rank);
    return rank;
}

/* The operator whose row table holds row (rows are static arrays of the version table). */
static const tosa_spec_op *owner_of(const tosa_spec *spec, const tosa_spec_row *row)
{
    const tosa_spec_version_table *t = table_of(spec);
    for (int i = 0; t && i < t->n_ops; i++)
        if (row >= t->ops[i].rows && row < t->ops[i].rows + t->ops[i].n_rows)
            return &t->ops[i];
    return NULL;
}

bool tosa_spec_row_legal(const tosa_spec *spec, const tosa_spec_row *row)
{
    uint32_t have = tosa_spec_features(spec);
    for (int i = 0; i < row->n_alts; i++)
        if ((row->alts[i] & have) == row->alts[i])
            return !tosa_spec_is_u55_subset(spec) ||
                   !tosa_spec_u55_refusal(owner_of(spec, row), row);
    return false;
}

static bool rows_match(const tosa_spec *spec, const tosa_spec_op *op, const tosac_dtype *types,
                       int n_types, unsigned block_scaled)
{
    if (!op || n_types != op->n_types || (n_types > 0 && !types))
        return false;
    for (int r = 0; r < op->n_rows; r++) {
        const tosa_spec_row *row = &op->rows[r];
        if (row->block_scaled != block_scaled)
            continue;
        if (n_types && memcmp(row->types, types, (size_t)n_types * sizeof *types) != 0)
            continue;
        if (tosa_spec_row_legal(spec, row))
            return true;
    }
    return false;
}

bool tosa_op_legal(const tosa_spec *spec, tosa_op op, const tosac_dtype *types, int n_types)
{
    return rows_match(spec, tosa_spec_find_op(spec, op), types, n_types, 0);
}

bool tosa_op_legal_named(const tosa_spec *spec, const char *op_name, const tosac_dtype *types,
                         int n_types, unsigned block_scaled)
{
    return rows_match(spec, tosa_spec_find_op_by_name(spec, op_name), types, n_types,
                      block_scaled);
}

bool tosa_spec_op_allowed(const tosa_spec *spec, const tosa_spec_op *op)
{
    for (int r = 0; op && r < op->n_rows; r++)
        if (tosa_spec_row_legal(spec, &op->rows[r]))
            return true;
    return false;
}

static const tosa_spec_enum_val *find_enum_val(const tosa_spec *spec, const char *enum_name,
                                               int value)
{
    const tosa_spec_version_table *t = table_of(spec);
    for (int i = 0; t && enum_name && i < t->n_enum_vals; i++)
        if (t->enum_vals[i].value == value && strcmp(t->enum_vals[i].enum_name, enum_name) == 0)
            return &t->enum_vals[i];
    return NULL;
}

bool tosa_spec_enum_legal(const tosa_spec *spec, const char *enum_name, int value)
{
    const tosa_spec_enum_val *v = find_enum_val(spec, enum_name, value);
    return v && (v->ext < 0 || tosa_spec_has_ext(spec, (tosa_ext)v->ext));
}

const char *tosa_spec_enum_value_name(const tosa_spec *spec, const char *enum_name, int value)
{
    const tosa_spec_enum_val *v = find_enum_val(spec, enum_name, value);
    return v ? v->name : NULL;
}
