#!/bin/sh
# Build mcmix with AddressSanitizer + UndefinedBehaviorSanitizer into a
# private library and run the test suite (or the files matching
# MCMIX_TEST_FILTER) with the sanitizer runtimes preloaded into R.
# Fails on any sanitizer report.   Usage: tools/sanitize.sh [library_dir]
set -e
LIB=${1:-$(pwd)/.sanitize-lib}
CC=${CC:-gcc}
mkdir -p "$LIB"
MV="$LIB/Makevars"
FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g -O1"
printf 'CFLAGS=%s\nLDFLAGS=-fsanitize=address,undefined\n' "$FLAGS" > "$MV"
R_MAKEVARS_USER="$MV" R CMD INSTALL --preclean --no-multiarch --library="$LIB" . > "$LIB/install.log" 2>&1 ||
  { cat "$LIB/install.log"; exit 1; }
rm -f src/*.o src/*.so
LOG="$LIB/tests.log"
PRE="$($CC -print-file-name=libasan.so) $($CC -print-file-name=libubsan.so)"
set +e
LD_PRELOAD="$PRE" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0 \
  UBSAN_OPTIONS=print_stacktrace=1 \
  R_LIBS="$LIB" NOT_CRAN=true Rscript tools/run-tests.R > "$LOG" 2>&1
status=$?
set -e
tail -n 3 "$LOG"
if grep -q "runtime error:\|ERROR: AddressSanitizer\|SUMMARY: UndefinedBehaviorSanitizer" "$LOG"; then
  echo "sanitizer reports (see $LOG):"
  grep -A 12 "runtime error:\|ERROR: AddressSanitizer" "$LOG" | head -n 60
  exit 1
fi
[ $status -eq 0 ] || { echo "tests failed under the sanitizers (see $LOG)"; exit 1; }
echo "sanitize: clean"
