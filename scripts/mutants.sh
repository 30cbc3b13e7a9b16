#!/bin/sh
# Deliberate bugs, one at a time: does the test suite catch each of them?
#
#   sh scripts/mutants.sh                 every mutant of tests/mutants/mutants.txt
#   sh scripts/mutants.sh NAME...         only these
#   sh scripts/mutants.sh --full [NAME...] each mutant against the whole default ctest suite
#   sh scripts/mutants.sh --check [BUILD] no build: every mutant's text still applies, and with
#                                         a build folder every test it names exists there
#                                         (ctest mutants_list_fresh runs this)
#   sh scripts/mutants.sh --list          names, files and the tests that should catch each
#
# Each mutant replaces one exact piece of one line of one file (its `from` must occur exactly
# once in that file). The mutants are applied to a scratch copy of this working tree
# ($TOSAC_MUTANTS_DIR/tree, built in tree/build; default build-mutants/ of this tree, which
# git ignores: the copy's relative layout is the usual one's, so ccache with a base_dir
# above both serves the unchanged library objects from the main build), never to the tree
# itself; the copy is synced by content before the run (files that differ are copied with a
# fresh time stamp, so make rebuilds them), the build is incremental and uses ccache when it
# is installed, and each mutated file is put back (fresh time stamp again) before the next.
#
# Without --full a mutant runs only its `tests` (ctest names, space-separated: the tests that
# are meant to catch it), which is what makes a run of every mutant affordable on a small machine; with
# --full it runs the whole default suite (`ctest -j2`) and the table lists every test that
# failed. Without --full only the CLI and the named unit tests are rebuilt (a mutant whose
# tests include a suite's ctest, such as backend_matrix_fp, rebuilds everything). A mutant is caught when at least one test fails; one that does not build is an
# error in the list. Exit status: 0 when every selected mutant was caught, 1 otherwise.
# The table (markdown) is printed and written to $TOSAC_MUTANTS_DIR/table.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIST=$ROOT/tests/mutants/mutants.txt
WORK=${TOSAC_MUTANTS_DIR:-$ROOT/build-mutants}
SHARED=${TOSAC_SHARED_DIR:-/work/shared}
JOBS=${JOBS:-2}
MODE=run
FULL=0
CHECK_BUILD=""
case "${1:-}" in
--check) MODE=check; shift; CHECK_BUILD=${1:-}; [ $# -gt 0 ] && shift ;;
--list) MODE=list; shift ;;
--full) FULL=1; shift ;;
-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
esac

# The list as records "name<TAB>file<TAB>from<TAB>to<TAB>tests<TAB>why", one a line: blocks
# of "key value" lines separated by blank lines; '#' lines are comments.
records() {
    awk 'function flush() {
             if (name != "") printf "%s\t%s\t%s\t%s\t%s\t%s\n", name, file, from, to, tests, why
             name = file = from = to = tests = why = ""
         }
         /^#/ { next }
         /^[ \t]*$/ { flush(); next }
         { key = $1; val = $0; sub(/^[^ \t]+[ \t]+/, "", val)
           if (key == "name") name = val; else if (key == "file") file = val
           else if (key == "from") from = val; else if (key == "to") to = val
           else if (key == "tests") tests = val; else if (key == "why") why = val
           else { printf "mutants.txt: unknown key %s\n", key > "/dev/stderr"; exit 2 } }
         END { flush() }' "$LIST"
}

# How often `from` occurs in file (occurrences, not lines).
occurrences() {
    awk -v pat="$2" 'BEGIN { n = 0 }
        { s = $0; while ((i = index(s, pat)) > 0) { n++; s = substr(s, i + length(pat)) } }
        END { print n }' "$1"
}

# Writes file with its one occurrence of `from` replaced by `to` to stdout.
apply() {
    awk -v pat="$2" -v rep="$3" '{ i = index($0, pat)
        if (i > 0 && !done) { $0 = substr($0, 1, i - 1) rep substr($0, i + length(pat)); done = 1 }
        print }' "$1"
}

selected() { # name: is it among the command-line names (all when none given)?
    [ -z "$WANT" ] && return 0
    for w in $WANT; do [ "$w" = "$1" ] && return 0; done
    return 1
}

TAB=$(printf '\t')
WANT="$*"
records >"${TMPDIR:-/tmp}/mutants.$$" || exit 2
RECS=${TMPDIR:-/tmp}/mutants.$$
MUTATED="" # the scratch file a mutant is applied to, put back however the script ends
trap 'rm -f "$RECS"; [ -n "$MUTATED" ] && cp "$WORK/orig" "$MUTATED"' EXIT
trap 'exit 130' INT TERM

# --check: every mutant well-formed, its file present, its text there exactly once, and the
# replacement different; names unique; at least 20 mutants.
bad=0
n=0
names=""
while IFS="$TAB" read -r name file from to tests why; do
    n=$((n + 1))
    for f in "$name" "$file" "$from" "$to" "$tests" "$why"; do
        [ -n "$f" ] || { echo "mutant '$name': a key is missing (name file from to tests why)"; bad=1; }
    done
    case " $names " in *" $name "*) echo "mutant '$name': name used twice"; bad=1 ;; esac
    names="$names $name"
    if [ ! -f "$ROOT/$file" ]; then
        echo "mutant '$name': $file does not exist"; bad=1; continue
    fi
    k=$(occurrences "$ROOT/$file" "$from")
    [ "$k" = 1 ] || { echo "mutant '$name': '$from' occurs $k times in $file (must be once)"; bad=1; }
    [ "$from" != "$to" ] || { echo "mutant '$name': from and to are equal"; bad=1; }
done <"$RECS"
if [ -n "$CHECK_BUILD" ]; then
    ctest --test-dir "$CHECK_BUILD" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p' >"$RECS.tests"
    while IFS="$TAB" read -r name file from to tests why; do
        for t in $tests; do
            grep -qx "$t" "$RECS.tests" || { echo "mutant '$name': no ctest named $t in $CHECK_BUILD"; bad=1; }
        done
    done <"$RECS"
    rm -f "$RECS.tests"
fi
[ "$n" -ge 20 ] || { echo "only $n mutants (at least 20 wanted)"; bad=1; }
if [ -n "$WANT" ]; then
    for w in $WANT; do
        case " $names " in *" $w "*) ;; *) echo "no mutant named '$w'"; bad=1 ;; esac
    done
fi
if [ "$MODE" = check ]; then
    [ "$bad" = 0 ] && echo "$n mutants, every one applies to the current source"
    exit "$bad"
fi
[ "$bad" = 0 ] || exit 2
if [ "$MODE" = list ]; then
    while IFS="$TAB" read -r name file from to tests why; do
        selected "$name" && printf '%-28s %-44s %s\n' "$name" "$file" "$tests"
    done <"$RECS"
    exit 0
fi

# The scratch copy: tracked and untracked (not ignored) files of this tree, synced by content.
SRC=$WORK/tree
BUILD=$SRC/build
mkdir -p "$BUILD"
echo "mutants: syncing $ROOT into $SRC"
(cd "$ROOT" && git ls-files -co --exclude-standard) | while IFS= read -r f; do
    [ -f "$ROOT/$f" ] || continue
    if ! cmp -s "$ROOT/$f" "$SRC/$f" 2>/dev/null; then
        mkdir -p "$SRC/$(dirname "$f")"
        cp "$ROOT/$f" "$SRC/$f"
    fi
done
LAUNCH=""
command -v ccache >/dev/null 2>&1 && LAUNCH=-DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTOSAC_SHARED_DIR="$SHARED" \
    $LAUNCH >"$WORK/configure.log" 2>&1 || { echo "configure failed: $WORK/configure.log"; exit 2; }
echo "mutants: building the unmutated copy"
cmake --build "$BUILD" -j "$JOBS" >"$WORK/build.log" 2>&1 ||
    { echo "the unmutated copy does not build: $WORK/build.log"; exit 2; }

TABLE=$WORK/table.md
{
    echo "| mutant | file | change | caught by | seconds |"
    echo "|---|---|---|---|---|"
} >"$TABLE"
missed=0
total=0
while IFS="$TAB" read -r name file from to tests why; do
    selected "$name" || continue
    total=$((total + 1))
    t0=$(date +%s)
    dst=$SRC/$file
    cp "$dst" "$WORK/orig"
    MUTATED=$dst
    apply "$WORK/orig" "$from" "$to" >"$dst"
    echo "mutants: $name ($file)"
    # Without --full only what the mutant's tests run is rebuilt: the CLI (tests drive it) and
    # the tests' own executables, when each is a target of its name (unit tests); else all.
    targets=""
    if [ "$FULL" = 0 ]; then
        targets="--target tosac_cli"
        for t in $tests; do
            if [ -x "$BUILD/tests/$t" ]; then targets="$targets $t"; else targets=""; break; fi
        done
    fi
    # shellcheck disable=SC2086 # targets is "--target NAME..." or nothing
    if ! cmake --build "$BUILD" -j "$JOBS" $targets >"$WORK/build-$name.log" 2>&1; then
        result="DOES NOT BUILD ($WORK/build-$name.log)"
        missed=$((missed + 1))
    else
        if [ "$FULL" = 1 ]; then
            set --
        else
            set -- -R "^($(echo $tests | tr ' ' '|'))\$"
        fi
        ctest --test-dir "$BUILD" -j "$JOBS" --timeout 600 --output-on-failure "$@" \
            >"$WORK/ctest-$name.log" 2>&1 || true
        failed=$(sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (.*/\1/p' "$WORK/ctest-$name.log" | tr '\n' ' ')
        # the cmocka tests that failed inside them (names only, each once)
        cases=$(sed -n 's/^\[  FAILED  \] \(test_[A-Za-z0-9_]*\)$/\1/p' "$WORK/ctest-$name.log" |
            sort -u | tr '\n' ' ' | sed 's/ *$//; s/ /, /g')
        ran=$(sed -n 's/.*tests passed, [0-9]* tests failed out of \([0-9]*\).*/\1/p' "$WORK/ctest-$name.log")
        if [ -n "$failed" ]; then
            result=$(echo "$failed" | sed 's/ *$//; s/ /, /g')
            [ -z "$cases" ] || result="$result ($cases)"
        elif [ -z "$ran" ]; then
            result="NO TEST RAN (regex '$tests')"
            missed=$((missed + 1))
        else
            result="MISSED ($ran tests passed)"
            missed=$((missed + 1))
        fi
    fi
    cp "$WORK/orig" "$dst" # a fresh time stamp: make rebuilds the restored file
    MUTATED=""
    secs=$(($(date +%s) - t0))
    echo "  -> $result (${secs}s)"
    esc_from=$(printf '%s' "$from" | sed 's/|/\\|/g')
    esc_to=$(printf '%s' "$to" | sed 's/|/\\|/g')
    echo "| \`$name\` | \`$file\` | \`$esc_from\` -> \`$esc_to\` | $result | $secs |" >>"$TABLE"
done <"$RECS"
cmake --build "$BUILD" -j "$JOBS" >"$WORK/build.log" 2>&1 || true

echo
cat "$TABLE"
echo
if [ "$missed" = 0 ]; then
    echo "mutants: all $total caught"
else
    echo "mutants: $missed of $total NOT caught"
fi
[ "$missed" = 0 ]
