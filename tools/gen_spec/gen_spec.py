#!/usr/bin/env python3
"""Generate src/spec/spec_tables_1_0.c and spec_tables_1_1.c from the TOSA spec XML.

Usage: tools/gen_spec/gen_spec.py [--check]   (run from anywhere; paths are repo-relative)
  --check  regenerate in memory and exit 1 if a committed file differs.

Only the Python standard library is used. The output is committed: the build never runs this.
See tools/gen_spec/README.md for how the XML is interpreted (type sets, DEDUCE-EXT, ...).
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
VERSIONS = [("spec/tosa-1.0.2.xml", "src/spec/spec_tables_1_0.c", "1_0"),
            ("spec/tosa.xml", "src/spec/spec_tables_1_1.c", "1_1")]

# XML element type -> tosac_dtype. tensor_size_t (the element of shape_t values) is SHAPE;
# "-" (no tensor, e.g. RESHAPE_BLOCK_SCALED without scales) is UNKNOWN.
DTYPES = {
    "i4_t": "I4", "i8_t": "I8", "i16_t": "I16", "i32_t": "I32", "i48_t": "I48",
    "i64_t": "I64", "bool_t": "BOOL", "fp16_t": "F16", "bf16_t": "BF16", "fp32_t": "F32",
    "fp8e4m3_t": "FP8E4M3", "fp8e5m2_t": "FP8E5M2", "shape_t": "SHAPE",
    "tensor_size_t": "SHAPE", "fp6e2m3_t": "FP6E2M3", "fp6e3m2_t": "FP6E3M2",
    "fp4e2m1_t": "FP4E2M1", "fp8ue8m0_t": "FP8UE8M0", "mxint8_t": "MXINT8", "-": "UNKNOWN",
}
# Members of the set alias bs32_fp8ue8m0_set_t: block-scaled formats (blocks of 32 values,
# one fp8ue8m0 scale per block), each with the extension that names its format.
BS32_MEMBERS = [("FP4E2M1", "EXT-MX-FP4E2M1"), ("FP6E2M3", "EXT-MX-FP6E2M3"),
                ("FP6E3M2", "EXT-MX-FP6E3M2"), ("FP8E4M3", "EXT-MX-FP8E4M3"),
                ("FP8E5M2", "EXT-MX-FP8E5M2"), ("MXINT8", "EXT-MX-INT8")]
# DEDUCE-EXT: the requirement is deduced from the concrete types. Integer types up to 32 bits
# add nothing (the row's explicit profile covers them, as for GATHER/ROW_GATHER).
DEDUCE_PLAIN = {"I64": "EXT-INT64", "BF16": "EXT-BF16", "FP8E4M3": "EXT-FP8E4M3",
                "FP8E5M2": "EXT-FP8E5M2", "F16": "PRO-FP", "F32": "PRO-FP", "I4": "EXT-INT4",
                "FP4E2M1": "EXT-MX-FP4E2M1", "FP6E2M3": "EXT-MX-FP6E2M3",
                "FP6E3M2": "EXT-MX-FP6E3M2", "MXINT8": "EXT-MX-INT8",
                "FP8UE8M0": "EXT-MX-COMMON"}
NOT_TYPES = {"mode", "version_added", "TABLE_SIZE"}  # typesupport attributes that are not types
MAX_TYPES, MAX_ALTS = 8, 4


def feat_c(name):
    if name == "PRO-INT":
        return "P_INT"
    if name == "PRO-FP":
        return "P_FP"
    if not name.startswith("EXT-"):
        raise SystemExit("unknown profile/extension %r" % name)
    return "X(%s)" % name[4:].replace("-", "_")


def mask_c(alt):
    return " | ".join(feat_c(n) for n in sorted(alt, key=feat_order))


def feat_order(name):
    return (0 if name.startswith("PRO-") else 1, name)


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rank_value(text):
    text = text.strip()
    m = re.fullmatch(r"MAX_RANK(?:\s*-\s*(\d+))?", text)
    if m:
        k = int(m.group(1) or 0)
        return "TOSA_RANK_MAX_RANK" + (" - %d" % k if k else "")
    return str(int(text))


def expand_row(ts, type_names, where):
    """All concrete combinations of one <typesupport>: list of (values, alts, added) where
    values maps type name -> (dtype, block_scaled)."""
    fixed = {}
    for k, v in ts.attrib.items():
        if k in NOT_TYPES:
            continue
        if k not in type_names:
            raise SystemExit("%s: attribute %s is not in <types>" % (where, k))
        if v not in DTYPES:
            raise SystemExit("%s: unknown type %r" % (where, v))
        fixed[k] = (DTYPES[v], False)
    sets = {}
    for s in ts.findall("type_set"):
        members = []
        for v in s.get("values").split():
            if v == "bs32_fp8ue8m0_set_t":
                members += [(dt, True) for dt, _ in BS32_MEMBERS]
            elif v in DTYPES:
                members.append((DTYPES[v], False))
            else:
                raise SystemExit("%s: unknown set value %r" % (where, v))
        sets[s.get("name")] = members
    binds = ts.findall("type_bind")
    free = [b for b in binds if not b.get("same_as") and not b.get("access_elem_type")]
    dependent = [b for b in binds if b.get("same_as") or b.get("access_elem_type")]
    combos = [dict(fixed)]
    for b in free:
        combos = [dict(c, **{b.get("type"): m}) for c in combos for m in sets[b.get("set")]]
    for c in combos:
        for b in dependent:
            if b.get("same_as"):
                c[b.get("type")] = c[b.get("same_as")]
            else:  # access element type: fp32 for block-scaled values, else the type itself
                dt, bs = c[b.get("access_elem_type")]
                c[b.get("type")] = ("F32", False) if bs else (dt, False)
    # A zero point's type follows its tensor's (fp32 for block-scaled); it adds no requirement.
    derived = {b.get("type") for b in dependent if b.get("access_elem_type")}
    out = []
    for c in combos:
        missing = [t for t in type_names if t not in c]
        if missing:
            raise SystemExit("%s: no value for %s" % (where, missing))
        alts = []
        for p in ts.findall("op_profile"):
            names = [p.get(a) for a in ("name", "and_name", "and_name2") if p.get(a)]
            alt = set()
            for n in names:
                if n == "DEDUCE-EXT":
                    alt |= deduce(c, derived)
                else:
                    alt.add(n)
            if not alt:
                raise SystemExit("%s: DEDUCE-EXT deduced nothing for %s" % (where, c))
            alts.append(frozenset(alt))
        added = tuple(int(x) for x in ts.get("version_added").split("."))
        out.append((c, alts, added))
    return out


def deduce(combo, skip):
    need = set()
    for name, (dt, bs) in combo.items():
        if name in skip:
            continue
        if bs:
            need.add("EXT-MX-COMMON")
            need.add(dict(BS32_MEMBERS)[dt])
        elif dt in DEDUCE_PLAIN:
            need.add(DEDUCE_PLAIN[dt])
    return need


def minimal(alts):
    """Drop duplicate alternatives and ones that need a superset of another's features."""
    uniq = []
    for a in alts:
        if a not in uniq:
            uniq.append(a)
    return [a for a in uniq if not any(b < a for b in uniq)]


def op_rows(op, type_names, where):
    rows = {}  # (types, bs) -> [alts, added]; insertion order = XML order
    for ts in op.findall("typesupport"):
        for combo, alts, added in expand_row(ts, type_names, where):
            types = tuple(combo[t][0] for t in type_names)
            bs = sum(1 << i for i, t in enumerate(type_names) if combo[t][1])
            key = (types, bs)
            if key in rows:
                rows[key][0] = minimal(rows[key][0] + alts)
                rows[key][1] = min(rows[key][1], added)
            else:
                rows[key] = [minimal(alts), added]
    for key, (alts, _) in rows.items():
        if len(alts) > MAX_ALTS:
            raise SystemExit("%s: more than %d alternatives" % (where, MAX_ALTS))
    return rows


def known_ops():
    with open(os.path.join(ROOT, "include/tosac/tosa.h")) as f:
        return set(re.findall(r"\bTOSA_OP_([A-Z0-9_]+)\b", f.read()))


def gen(xml_rel, suffix):
    root = ET.parse(os.path.join(ROOT, xml_rel)).getroot()
    ver = root.find("version")
    major, minor, patch = (int(ver.get(k)) for k in ("major", "minor", "patch"))
    draft = ver.get("draft") == "true"
    enum_ops = known_ops()
    L = []
    w = L.append
    w("/* Generated by tools/gen_spec/gen_spec.py from %s (TOSA %d.%d.%d%s). Do not edit:"
      % (xml_rel, major, minor, patch, " draft" if draft else ""))
    w(" * change the generator and run it again. Data derived from the TOSA specification,")
    w(" * used under the TOSA Specification License (spec/LICENSE-TOSA-SPEC.txt). */")
    w('#include "spec/spec_tables.h"')
    w("")
    w("#define P_INT TOSA_FEAT_INT")
    w("#define P_FP TOSA_FEAT_FP")
    w("#define X(e) TOSA_FEAT_EXT(TOSA_EXT_##e)")
    w("#define T(d) TOSAC_DT_##d")
    w("")
    op_entries = []
    for group in root.find("operators").findall("operatorgroup"):
        for op in group.findall("operator"):
            name = op.find("name").text.strip()
            where = "%s %s" % (xml_rel, name)
            tnode = op.find("types")
            # TABLE_SIZE is listed with the types but is a length (256 / 513), implied by table_t
            type_names = ([t.get("name") for t in tnode if t.get("name") not in NOT_TYPES]
                          if tnode is not None else [])
            if len(type_names) > MAX_TYPES:
                raise SystemExit("%s: more than %d types" % (where, MAX_TYPES))
            w("static const tosa_spec_arg args_%s[] = {" % name)
            args = op.find("arguments").findall("argument")
            for a in args:
                r = a.find("rank")
                rank = ("true, %s, %s" % (rank_value(r.get("min")), rank_value(r.get("max")))
                        if r is not None else "false, 0, 0")
                w("    {%s, TOSA_ARG_%s, %s, %s, %s, %s, %s}," % (
                    cstr(a.get("name")), a.get("category").upper(), cstr(a.get("type")),
                    cstr(a.get("tensor-element-type")), cstr(a.get("shape")), rank,
                    "true" if a.find("ctc") is not None else "false"))
            w("};")
            if type_names:
                w("static const char *const types_%s[] = {%s};"
                  % (name, ", ".join(cstr(t) for t in type_names)))
            rows = op_rows(op, type_names, where)
            w("static const tosa_spec_row rows_%s[] = {" % name)
            for (types, bs), (alts, added) in rows.items():
                tl = ", ".join("T(%s)" % t for t in types) or "T(UNKNOWN)"
                al = ", ".join(mask_c(a) for a in alts)
                w("    {{%s}, 0x%x, %d, {%s}, %d, %d}," % (tl, bs, len(alts), al, added[0], added[1]))
            w("};")
            w("")
            op_enum = "TOSA_OP_" + name if name in enum_ops else "TOSA_OP_UNKNOWN"
            op_entries.append("    {%s, %s, %s, %d, args_%s, %d, %s, %d, rows_%s}," % (
                cstr(name), op_enum, cstr(group.get("name")), len(args), name, len(type_names),
                "types_" + name if type_names else "NULL", len(rows), name))
    w("static const tosa_spec_op ops[] = {")
    L.extend(op_entries)
    w("};")
    w("")
    w("static const tosa_spec_ext_info exts[] = {")
    for e in root.find("profile_extensions").findall("profile_extension"):
        profs = [p.text.strip() for p in e.findall("profile_supported")]
        w("    {TOSA_EXT_%s, %s}," % (e.get("name")[4:].replace("-", "_"),
                                     " | ".join(feat_c(p) for p in profs)))
    w("};")
    w("")
    w("static const tosa_spec_enum_val enum_vals[] = {")
    for en in root.iter("enum"):
        for v in en.findall("enumval"):
            ext = v.get("extension")
            w("    {%s, %s, %s, %s}," % (cstr(en.get("name")), cstr(v.get("name")), v.get("value"),
                                       "TOSA_EXT_" + ext[4:].replace("-", "_") if ext else "-1"))
    w("};")
    w("")
    levels = {lv.get("name"): lv for lv in root.find("levels").findall("level")}
    fields = ["max_rank", "max_kernel", "max_stride", "max_scale", "max_log2_size",
              "max_nesting", "max_tensor_list_size", "max_shape_len"]
    w("const tosa_spec_version_table tosa_spec_table_%s = {" % suffix)
    w("    %d, %d, %d, %s," % (major, minor, patch, "true" if draft else "false"))
    w("    (int)(sizeof exts / sizeof exts[0]), exts,")
    w("    {")
    for lname in ("none", "8K"):
        lv = levels[lname]
        w("        {%s}, /* %s */" % (", ".join(lv.get(f, "0") for f in fields), lname))
    w("    },")
    w("    (int)(sizeof enum_vals / sizeof enum_vals[0]), enum_vals,")
    w("    (int)(sizeof ops / sizeof ops[0]), ops,")
    w("};")
    return "\n".join(L) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for xml_rel, out_rel, suffix in VERSIONS:
        text = gen(xml_rel, suffix)
        path = os.path.join(ROOT, out_rel)
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                stale.append(out_rel)
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
