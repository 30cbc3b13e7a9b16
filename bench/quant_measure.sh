# Sourced by bench/quant_methods.sh and bench/quant_holdout.sh (POSIX sh, no shebang):
# quant_measure_sample MODEL SAMPLE runs the program $T/p.tosac on zoo sample SAMPLE of MODEL
# and compares every output with onnxruntime's float one ($Z/MODEL/expected/SAMPLE): cosines of
# outputs of more than one element are appended to $T/cos, the largest |difference| of
# one-value outputs kept in $sc ("-" before any), outputs counted in $n, those whose argmax
# over the last axis agrees on every row in $agree.
quant_measure_sample() {
  qm_args=""
  for qm_f in "$Z/$1/inputs/$2"/*.npy; do qm_args="$qm_args --input $(basename "$qm_f" .npy)=$qm_f"; done
  rm -rf "$T/out"; mkdir "$T/out"
  # shellcheck disable=SC2086
  "$TOSAC" run "$T/p.tosac" $qm_args --output-dir "$T/out" >/dev/null 2>&1
  for qm_e in "$Z/$1/expected/$2"/*.npy; do
    "$TOSAC" compare "$qm_e" "$T/out/$(basename "$qm_e")" >"$T/cmp" 2>/dev/null || true
    if grep -q '^elements: 1$' "$T/cmp"; then
      sc=$(awk -v m="$sc" '/^max_abs_diff/{print (m == "-" || $2 > m) ? $2 : m}' "$T/cmp")
    else
      awk '/^cosine/{c = $2} END {print (c == "" ? "nan" : c)}' "$T/cmp" >>"$T/cos"
    fi
    n=$((n + 1))
    [ "$(awk '/^argmax_agree/{split($2, a, "/"); print (a[1] == a[2])}' "$T/cmp")" = 1 ] &&
      agree=$((agree + 1))
  done
  return 0
}
