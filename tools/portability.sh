#!/bin/sh
# Build mcmix in the configurations of other platforms, each into its own
# private library (never the system library), and run a subset of the
# tests against each:
#   warn    gcc with -Wall -Wextra -pedantic: fails on any warning from
#           the package's own files (src/, inst/include/)
#   clang   clang (CLANG, default clang, else clang-14) with OpenMP and
#           the same warning flags, as on macOS and CRAN's clang machines
#   noomp   OpenMP switched off (SHLIB_OPENMP_CFLAGS empty), as with
#           Apple's clang: threads fall back to 1 with the same draws
# Usage: tools/portability.sh [config ...]   (default: warn clang noomp)
# PORTABILITY_LIB: prefix of the libraries (default .portability-lib);
# MCMIX_TEST_FILTER: the test files run (a regular expression, see
# tools/run-tests.R). Builds run one compiler at a time (MAKEFLAGS).
set -e
PREFIX=${PORTABILITY_LIB:-$(pwd)/.portability-lib}
FILTER=${MCMIX_TEST_FILTER:-^(portability|threads|lda|rng|sampler-nuts|mixture-exact)$}
CONFIGS=${*:-warn clang noomp}
WFLAGS="-g -O2 -Wall -Wextra -pedantic"
if [ -z "$CLANG" ]; then
  if command -v clang > /dev/null 2>&1; then CLANG=clang; else CLANG=clang-14; fi
fi
status=0
summary=""
for cfg in $CONFIGS; do
  LIB="$PREFIX-$cfg"
  rm -rf "$LIB"
  mkdir -p "$LIB"
  MV="$LIB/Makevars"
  case $cfg in
    warn)  printf 'CFLAGS=%s\n' "$WFLAGS" > "$MV" ;;
    clang) command -v "$CLANG" > /dev/null 2>&1 ||
             { echo "portability: $CLANG not found (set CLANG=...)"; exit 1; }
           printf 'CC=%s\nCFLAGS=%s\nSHLIB_OPENMP_CFLAGS=-fopenmp\n' "$CLANG" "$WFLAGS" > "$MV" ;;
    noomp) printf 'SHLIB_OPENMP_CFLAGS=\n' > "$MV" ;;
    *) echo "portability: unknown configuration '$cfg' (warn, clang, noomp)"; exit 1 ;;
  esac
  echo "== $cfg: building into $LIB"
  if ! MAKEFLAGS=-j1 R_MAKEVARS_USER="$MV" R CMD INSTALL --preclean --no-docs --no-multiarch \
       --library="$LIB" . > "$LIB/install.log" 2>&1; then
    rm -f src/*.o src/*.so
    tail -n 30 "$LIB/install.log"
    echo "portability: $cfg does not build (see $LIB/install.log)"
    exit 1
  fi
  rm -f src/*.o src/*.so
  # warnings located in the package's files (compiler lines "file.c:12:3: warning:")
  grep -E '^([A-Za-z0-9_./-]+)\.[ch]:[0-9]+(:[0-9]+)?: warning:' "$LIB/install.log" |
    grep -v '^/usr/' | sort -u > "$LIB/warnings.txt" || true
  nw=$(wc -l < "$LIB/warnings.txt")
  if [ "$cfg" != noomp ] && [ "$nw" -gt 0 ]; then
    echo "portability: $cfg: $nw warnings from the package's files:"
    cat "$LIB/warnings.txt"
    status=1
  fi
  echo "== $cfg: tests matching $FILTER"
  if R_LIBS="$LIB" NOT_CRAN=true MCMIX_TEST_FILTER="$FILTER" Rscript tools/run-tests.R \
       > "$LIB/tests.log" 2>&1; then res=ok; else res=FAILED; status=1; fi
  tail -n 1 "$LIB/tests.log"
  summary="$summary
$cfg: $nw warnings, tests $res ($(tail -n 1 "$LIB/tests.log"))"
done
echo "portability:$summary"
exit $status
