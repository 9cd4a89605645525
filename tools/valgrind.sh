#!/bin/sh
# Run the test suite (or the files matching MCMIX_TEST_FILTER; valgrind
# makes R about 50 times slower) under valgrind's memcheck against the
# package installed in R_LIBS. Fails on any invalid read/write, use of
# uninitialised values or definitely lost block in mcmix's code.
# Usage: tools/valgrind.sh [library_dir]
# VALGRIND_SHARD=i/n runs the i-th of n parts of the suite: the test files
# whose name's CRC (cksum) is i - 1 modulo n, a split that does not move
# when files are added (run the parts in turn, or in parallel with one
# library_dir each; tools/VALGRIND.md keeps the record of the parts run).
# VALGRIND_ORIGINS=yes tracks where uninitialised values come from (about
# twice as slow; the default, no, still reports every such use: rerun the
# file that shows one with yes to find its origin).
# VALGRIND_REUSE=yes keeps a package already installed in library_dir (to
# run files one at a time); VALGRIND_LOGDIR puts the logs there instead.
set -e
if [ -n "$VALGRIND_SHARD" ]; then
  i=${VALGRIND_SHARD%/*}; n=${VALGRIND_SHARD#*/}
  names=""
  for f in tests/testthat/test-*.R; do
    b=$(basename "$f" .R); b=${b#test-}
    c=$(printf %s "$b" | cksum | cut -d' ' -f1)
    [ $((c % n)) -eq $((i - 1)) ] && names="$names|$b"
  done
  MCMIX_TEST_FILTER="^(${names#|})\$"
  export MCMIX_TEST_FILTER
  echo "valgrind part $VALGRIND_SHARD: $MCMIX_TEST_FILTER"
fi
LIB=${1:-$(pwd)/.valgrind-lib}
mkdir -p "$LIB"
if [ "$VALGRIND_REUSE" != yes ] || [ ! -d "$LIB/mcmix" ]; then
  R CMD INSTALL --preclean --no-multiarch --library="$LIB" . > "$LIB/install.log" 2>&1 ||
    { cat "$LIB/install.log"; exit 1; }
  rm -f src/*.o src/*.so
fi
OUT=${VALGRIND_LOGDIR:-$LIB}
mkdir -p "$OUT"
LOG="$OUT/valgrind.log"
# (a copy, sourced through -e: R -f reads its file as it goes, and forked
# workers sharing that file's offset made it read past the end)
cp tools/run-tests.R "$OUT/run-tests.R"
set +e
R_LIBS="$LIB" NOT_CRAN=true R --vanilla -d "valgrind --tool=memcheck --leak-check=full --track-origins=${VALGRIND_ORIGINS:-no} --log-file=$LOG" \
  -e "source('$OUT/run-tests.R')" > "$OUT/tests.log" 2>&1
status=$?
set -e
tail -n 3 "$OUT/tests.log"
# errors whose stack goes through mcmix.so
if awk '/^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|[0-9,]+ bytes in [0-9,]+ blocks are definitely)/{e=1; buf=$0; next}
        e && /^==[0-9]+==    (at|by) / {buf=buf "\n" $0; if ($0 ~ /mcmix\.so/) {print buf; found=1; e=0}; next}
        {e=0} END {exit found ? 0 : 1}' "$LOG" > "$OUT/mcmix-errors.txt"; then
  echo "valgrind reports in mcmix (see $LOG):"; head -n 60 "$OUT/mcmix-errors.txt"; exit 1
fi
[ $status -eq 0 ] || { echo "tests failed under valgrind (see $OUT/tests.log)"; exit 1; }
grep "ERROR SUMMARY" "$LOG" | tail -n 1
echo "valgrind: clean"
