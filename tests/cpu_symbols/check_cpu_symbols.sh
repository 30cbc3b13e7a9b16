#!/bin/sh
# The CPU operator layer links into the runtime, which has no allocator, no stdio and no
# compiler: fail when an object of that layer (src/cpu/cpu_ops_*.c, cpu_util.c,
# cpu_registry.c, cpu_geometry.c, src/ir/ir_lookup.c, the operator-semantics layer
# src/onnxop/*.c) has an undefined symbol that is neither
# defined by another object of the layer nor in the allow list below (runtime-library
# functions: src/util's errors, dtypes, shape checks and the element reader util/elem.c).
# usage: check_cpu_symbols.sh SOURCE_DIR ARCHIVE...
set -eu
src=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
{
    for f in "$src"/src/cpu/cpu_ops_*.c; do basename "$f"; done
    printf '%s\n' cpu_util.c cpu_registry.c cpu_geometry.c ir_lookup.c
    for f in "$src"/src/onnxop/*.c; do basename "$f"; done
} | sort > "$tmp/want"
# "archive:member.c.o: ADDR T sym" / "archive:member.c.o:          U sym"
for a in "$@"; do nm -A "$a" 2>/dev/null || true; done |
    awk -F: 'NF >= 3 { m = $2; sub(/\.o(bj)?$/, "", m); rest = $3; for (i = 4; i <= NF; i++) rest = rest ":" $i;
                       n = split(rest, w, " "); if (n >= 2) print m, w[n - 1], w[n] }' > "$tmp/all"
awk 'NR == FNR { want[$1] = 1; next } ($1 in want)' "$tmp/want" "$tmp/all" > "$tmp/layer"
awk '{ print $1 }' "$tmp/layer" | sort -u > "$tmp/found"
if ! cmp -s "$tmp/want" "$tmp/found"; then
    echo "check_cpu_symbols: objects missing from $*:" >&2
    comm -23 "$tmp/want" "$tmp/found" >&2
    exit 1
fi
awk '$2 != "U" { print $3 }' "$tmp/layer" | sort -u > "$tmp/defined"
awk '$2 == "U" { print $1, $3 }' "$tmp/layer" | sort -u > "$tmp/undef"
allow='^(mem(cpy|move|set|cmp|chr)|__mem[a-z]+_chk|str(cmp|ncmp|len|chr|rchr|str|cpy|ncpy)'
allow="$allow"'|kern_[a-z0-9_]+|onnx_dtype_to_tosac'
allow="$allow"'|tosac_(fail|vfail|error_clear|dtype_[a-z_]+|shape_check|shape_numel|shape_str|tensor_numel|tensor_(int|f64)_at|elem_[a-z0-9_]+|f64_to_i64_sat)'
allow="$allow"'|(floor|ceil|round|trunc|sqrt|exp|exp2|expm1|log|log2|log1p|log10|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|fabs|fmod|remainder|nearbyint|rint|lrint|llrint|lround|llround|fmax|fmin|frexp|ldexp|modf|cbrt|hypot|copysign|nextafter|tgamma|lgamma)f?'
allow="$allow"'|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_|__(asan|ubsan|sanitizer|lsan)_[a-zA-Z0-9_]+|__(u?div|u?mod|mul)[a-z]*[0-9])$'
bad=$(awk -v allow="$allow" 'NR == FNR { def[$1] = 1; next } !($2 in def) && $2 !~ allow' "$tmp/defined" "$tmp/undef")
if [ -n "$bad" ]; then
    echo "check_cpu_symbols: the CPU operator layer calls outside the runtime (object symbol):" >&2
    echo "$bad" >&2
    exit 1
fi
echo "check_cpu_symbols: $(wc -l < "$tmp/found") objects, no allocator, stdio or compiler symbol"
