#!/bin/sh
# Run the test suite (or the files matching MCMIX_TEST_FILTER; valgrind
# makes R about 50 times slower) under valgrind's memcheck against the
# package installed in R_LIBS. Fails on any invalid read/write, use of
# uninitialised values or definitely lost block in mcmix's code.
# Usage: tools/valgrind.sh [library_dir]
set -e
LIB=${1:-$(pwd)/.valgrind-lib}
mkdir -p "$LIB"
R CMD INSTALL --preclean --no-multiarch --library="$LIB" . > "$LIB/install.log" 2>&1 ||
  { cat "$LIB/install.log"; exit 1; }
rm -f src/*.o src/*.so
LOG="$LIB/valgrind.log"
set +e
R_LIBS="$LIB" NOT_CRAN=true R --vanilla -d "valgrind --tool=memcheck --leak-check=full --track-origins=yes --log-file=$LOG" \
  -f tools/run-tests.R > "$LIB/tests.log" 2>&1
status=$?
set -e
tail -n 3 "$LIB/tests.log"
# errors whose stack goes through mcmix.so
if awk '/^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|[0-9,]+ bytes in [0-9,]+ blocks are definitely)/{e=1; buf=$0; next}
        e && /^==[0-9]+==    (at|by) / {buf=buf "\n" $0; if ($0 ~ /mcmix\.so/) {print buf; found=1; e=0}; next}
        {e=0} END {exit found ? 0 : 1}' "$LOG" > "$LIB/mcmix-errors.txt"; then
  echo "valgrind reports in mcmix (see $LOG):"; head -n 60 "$LIB/mcmix-errors.txt"; exit 1
fi
[ $status -eq 0 ] || { echo "tests failed under valgrind (see $LIB/tests.log)"; exit 1; }
grep "ERROR SUMMARY" "$LOG" | tail -n 1
echo "valgrind: clean"
