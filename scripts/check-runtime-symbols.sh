#!/bin/sh
# check-runtime-symbols.sh LIB.a: the runtime library calls no allocator and no stdio.
#
# Lists the symbols LIB.a leaves undefined (nm -u over every object, minus what the archive
# defines itself) and fails, naming them grouped by object file, on any outside the allow list:
#   - C11 <string.h> functions that are pure functions of their arguments: mem{cpy,move,set,
#     cmp,chr}, str{len,cmp,ncmp,chr,rchr,str,spn,cspn} (also their _FORTIFY_SOURCE __*_chk
#     forms). Not strdup (allocates), strtok/strerror (hidden state), strcoll (locale);
#   - libm (<math.h> functions with their f/l forms, sincos that gcc makes of sin+cos, and
#     the classification helpers some libcs expand isnan/signbit to);
#   - compiler runtime helpers: libgcc/compiler-rt arithmetic (__aeabi_*, __divdi3, __muldc3,
#     ...), __stack_chk_*, __cpu_model/__cpu_indicator_init (__builtin_cpu_supports),
#     _GLOBAL_OFFSET_TABLE_, and ASan/UBSan/coverage hooks when sanitized.
# Everything else fails: malloc/calloc/realloc/free, the printf family, FILE and stdio,
# pthread, getenv, errno, abort/exit/__assert_fail (the runtime reports errors, never stops the
# process), and qsort/bsearch: nothing in the runtime needs them, and a Cortex-M image should
# not carry newlib's qsort for one call site. NM (default nm) names the nm to use, e.g.
# NM=arm-none-eabi-nm for the cross-compiled library.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 LIB.a" >&2
    exit 2
fi
lib=$1
nm=${NM:-nm}
if [ ! -f "$lib" ]; then
    echo "check-runtime-symbols: $lib: no such file" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/allow" <<'ALLOW'
(__)?(memcpy|memmove|memset|memcmp|memchr)(_chk)?
(__)?(strlen|strcmp|strncmp|strchr|strrchr|strstr|strspn|strcspn)(_chk)?
(acos|asin|atan|atan2|cos|sin|tan|acosh|asinh|atanh|cosh|sinh|tanh|sincos)[fl]?
(exp|exp2|expm1|frexp|ilogb|ldexp|log|log10|log1p|log2|logb|modf|scalbn|scalbln)[fl]?
(cbrt|fabs|hypot|pow|sqrt|erf|erfc|lgamma|tgamma|ceil|floor|nearbyint|rint|lrint|llrint)[fl]?
(round|lround|llround|trunc|fmod|remainder|remquo|copysign|nan|nextafter|nexttoward)[fl]?
(fdim|fmax|fmin|fma)[fl]?
__(fpclassify|isinf|isnan|signbit|finite)[fld]?
__aeabi_[a-z0-9_]+
__(u?div|u?mod|udivmod|mul|neg|ashl|ashr|lshr|u?cmp|clz|ctz|popcount|parity|ffs|bswap)[a-z]*[0-9]
__(extend|trunc|fixuns|fix|floatun|float|add|sub|div|eq|ne|lt|le|gt|ge|unord|pow)[a-z]*[0-9]
__mul[sdxt]c3|__div[sdxt]c3
__stack_chk_(fail|guard)
__cpu_model|__cpu_features2|__cpu_indicator_init
_GLOBAL_OFFSET_TABLE_
__(asan|ubsan|sanitizer|sancov|lsan|msan)_[A-Za-z0-9_]+
ALLOW

"$nm" -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/defined"
# "obj sym" for every undefined (U) or weak undefined (w) reference
"$nm" -u "$lib" 2>/dev/null |
    awk '/:$/ { obj = substr($0, 1, length($0) - 1); next }
         NF == 2 && ($1 == "U" || $1 == "w") { print $2, obj }' | sort -u >"$tmp/undef"
awk 'NR == FNR { def[$1] = 1; next } !($1 in def)' "$tmp/defined" "$tmp/undef" >"$tmp/external"
cut -d' ' -f1 "$tmp/external" | sort -u | grep -Evx -f "$tmp/allow" >"$tmp/bad" || true

if [ ! -s "$tmp/bad" ]; then
    echo "check-runtime-symbols: $lib: every undefined symbol is allowed"
    exit 0
fi
echo "check-runtime-symbols: $lib: $(wc -l <"$tmp/bad") undefined symbols outside the allow list:"
awk 'NR == FNR { bad[$1] = 1; next } ($1 in bad) { s[$2] = s[$2] " " $1 }
     END { for (o in s) print "  " o ":" s[o] }' "$tmp/bad" "$tmp/external" | sort
exit 1
