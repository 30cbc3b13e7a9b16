#!/bin/sh
# Compile time against model size: synthetic QDQ networks (bench_synth_model: residual Conv
# blocks, 9 ONNX nodes each) of about 10 to 10,000 nodes, each compiled by the whole process
# `tosac compile MODEL --spec TOSA-1.0+INT -o P` RUNS times. Prints per size the median wall
# time, the median CPU time of the process (user + system: on a shared machine the wall time
# also counts waiting for a core), the CPU time per node, which stays roughly flat when compile
# is linear in the size, and the largest peak RSS of the runs.
#   bench/compile_series.sh [BUILD_DIR [RUNS [SIZES...]]]   (defaults: build 5 "10 30 ... 10000")
# With MODELS="a.onnx b.onnx" in the environment the same columns are printed for those models
# (nodes column: -) after the series, e.g. the zoo's resnet18 and mobilenet_v2 QDQ models.
set -eu
B=${1:-build}
RUNS=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
SIZES=${*:-10 30 100 300 1000 3000 10000}
T=$B/tosac
G=$B/bench/bench_synth_model
[ -x "$T" ] && [ -x "$G" ] || { echo "build $T and $G first (cmake --build $B --target tosac_cli bench_synth_model)" >&2; exit 2; }
command -v python3 > /dev/null && [ -x /usr/bin/time ] ||
    { echo "python3 and GNU time (/usr/bin/time) are needed: CPU time and peak RSS" >&2; exit 2; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
median() { sort -n "$1" | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# runs MODEL RUNS times; prints "wall_ms cpu_ms peak_rss_kb" (medians; the largest RSS). The
# child's rusage (os.wait4: microseconds, where GNU time's %U/%S round to 10 ms; it includes
# GNU time itself, well under a millisecond), the RSS from GNU time's %M.
measure() {
    python3 - "$T" "$1" "$RUNS" "$D/m.tosac" "$D/rss" <<'PY'
import os, subprocess, sys, time
tosac, model, runs, out, rss_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
wall, cpu, rss = [], [], 0
for _ in range(runs):
    # GNU time reports the peak RSS (a child of python inherits python's high-water mark)
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file, tosac, "compile", model,
                          "--spec", "TOSA-1.0+INT", "-o", out, "-q"])
    _, status, ru = os.wait4(p.pid, 0)
    wall.append((time.perf_counter() - t0) * 1000)
    if status != 0:
        sys.exit("tosac compile %s failed" % model)
    cpu.append((ru.ru_utime + ru.ru_stime) * 1000)
    rss = max(rss, int(open(rss_file).read().split()[-1]))
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
print("%.3f %.3f %d" % (med(wall), med(cpu), rss))
PY
}
printf '%8s %9s %10s %10s %12s %12s\n' nodes onnx_KB wall_ms cpu_ms cpu_us/node peak_RSS_MB
for n in $SIZES; do
    nodes=$("$G" "$n" "$D/m.onnx")
    kb=$(( $(wc -c < "$D/m.onnx") / 1024 ))
    set -- $(measure "$D/m.onnx")
    awk -v n="$nodes" -v kb="$kb" -v w="$1" -v c="$2" -v r="$3" \
        'BEGIN{printf "%8d %9d %10.1f %10.1f %12.1f %12.1f\n", n, kb, w, c, c * 1000 / n, r / 1024}'
done
for m in ${MODELS:-}; do
    kb=$(( $(wc -c < "$m") / 1024 ))
    set -- $(measure "$m")
    awk -v kb="$kb" -v w="$1" -v c="$2" -v r="$3" -v name="$m" \
        'BEGIN{printf "%8s %9d %10.1f %10.1f %12s %12.1f  %s\n", "-", kb, w, c, "-", r / 1024, name}'
done
