#!/usr/bin/env bash
# Fuzzes cfacc's extension lexer with libFuzzer, then feeds what the fuzzer
# found to the whole cfacc, which must never crash or hang on bad input
# (a clean `error:` and a non-zero status are fine; a signal is not).
#
#   bench/compiler/fuzz.sh [seconds]      default 600 (FUZZ_SECONDS)
#   BUILD=<dir>                           build tree (default: build)
#
# Prints the libFuzzer summary and one line: "fuzz: PASS ..." or
# "fuzz: FAIL ..." (exit status 1, the crashing input is kept and named).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
seconds=${1:-${FUZZ_SECONDS:-600}}
whole_files=${WHOLE_FILES:-300}

ninja -C "$build" cfacc-lexer-fuzz cfacc >/dev/null
fuzzer=$build/compiler/cfacc-lexer-fuzz
cfacc=$build/compiler/cfacc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
# Seeds: every cfa-lite source of the project and the conformance programs.
find "$top/test" "$top/examples" "$top/bench/compiler" -name '*.cfa' -o -name '*.hfa' 2>/dev/null |
  while read -r f; do cp "$f" "$work/seeds/$(echo "$f" | md5sum | cut -c1-12).cfa"; done
cat > "$work/dict" <<'DICT'
"thread"
"coroutine"
"monitor"
"main"
"new"
"delete"
"mutex"
"waitfor"
"when"
"or"
"timeout"
"else"
"join"
"condition"
"`"
"`ms"
"`s"
"{"
"}"
"("
")"
";"
"*"
"->"
"struct"
"#define"
"\x0a"
DICT

echo "fuzz: lexer for ${seconds}s"
status=0
"$fuzzer" -max_total_time="$seconds" -dict="$work/dict" -max_len=4096 -timeout=10 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$work/corpus" "$work/seeds" >"$work/fuzz.log" 2>&1 || status=$?
grep -E '^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "$work/fuzz.log" || true
if [ "$status" != 0 ]; then
  mkdir -p "$top/build/fuzz-crashes"
  cp "$work"/artifacts/* "$top/build/fuzz-crashes/" 2>/dev/null || true
  tail -40 "$work/fuzz.log"
  echo "fuzz: FAIL lexer (status $status; inputs in build/fuzz-crashes/)"
  exit 1
fi

# The whole compiler on what the fuzzer produced (a sample of it).
echo "fuzz: whole cfacc on up to $whole_files corpus files"
checked=0
for f in $(ls "$work/corpus" | head -n "$whole_files"); do
  cp "$work/corpus/$f" "$work/input.cfa"
  rc=0
  timeout 20 "$cfacc" --emit-c "$work/input.cfa" >/dev/null 2>"$work/err" || rc=$?
  if [ "$rc" -ge 124 ]; then
    mkdir -p "$top/build/fuzz-crashes"
    cp "$work/input.cfa" "$top/build/fuzz-crashes/cfacc-$f.cfa"
    head -20 "$work/err"
    echo "fuzz: FAIL cfacc exit status $rc on build/fuzz-crashes/cfacc-$f.cfa"
    exit 1
  fi
  checked=$((checked + 1))
done
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
echo "fuzz: PASS lexer ${seconds}s, ${runs:-?} inputs, no crash; cfacc ran on $checked fuzzed files, no crash"
