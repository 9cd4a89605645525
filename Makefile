# mcmix developer and user entry points.
#   make demo    install dependencies and the package (built tarball, with the
#                vignettes), run the DP-mixture demo
#   make test    install dependencies and the package (as for demo), run the
#                test suite
#                (the build and install are skipped when the installed mcmix
#                was built from the current sources, see tools/install-stamp.R;
#                make FORCE=1 ... rebuilds, and CI always rebuilds)
#   make check   R CMD build + R CMD check --as-cran on the tarball (the
#                look-ups of CRAN's package database, by the incoming and
#                the orphaned-dependency checks, are off unless
#                _R_CHECK_CRAN_INCOMING_REMOTE_=true / _R_CHECK_ORPHANED_=true:
#                machines that reach only a package mirror stop there)
#   make site    build the pkgdown site into docs/ and check every page in
#                headless Chromium (tools/check-site.R)
#   make bench   run the benchmarks in bench/ (installs the peer packages)
#   make fuzz        the bad-input campaign and the full interrupt sweep
#   make interrupts  the interrupt sweep only (every sampler, every chunk)
#   make exact   the exact-enumeration sweep at full precision (long)
#   make sanitize    build with ASan + UBSan and run the tests
#   make valgrind    run the tests under valgrind's memcheck
#   make check-hard-deps  R CMD build, then R CMD check --as-cran with only
#                the hard dependencies (Depends, Imports) in the library, as
#                CRAN's check without the suggested packages
#                (tools/check-hard-deps.sh; nothing is installed)
#   make portability builds with -Wall -Wextra -pedantic, with clang and
#                without OpenMP (private libraries), a subset of the tests
#                against each (tools/portability.sh)
R       ?= R
RSCRIPT ?= Rscript
PKG     := mcmix
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

.PHONY: all deps deps-check deps-site deps-bench install demo test check document bench \
        site clean fuzz interrupts sanitize valgrind exact portability check-hard-deps

all: test

deps:
	$(RSCRIPT) tools/install-deps.R test

deps-check:
	$(RSCRIPT) tools/install-deps.R check

deps-site:
	$(RSCRIPT) tools/install-deps.R site

deps-bench:
	$(RSCRIPT) tools/install-deps.R bench

# R CMD build builds the vignettes (knitr, rmarkdown and pandoc come with
# deps-check); installing the tarball makes them available to vignette().
# Skipped when the installed mcmix carries the stamp of the current sources
# (tools/install-stamp.R; not under CI=true); FORCE=1 always rebuilds.
install: deps-check
	@if [ -z "$(FORCE)" ] && $(RSCRIPT) tools/install-stamp.R check; then :; else \
	  rm -f $(TARBALL) && \
	  $(R) CMD build --no-manual . && \
	  $(R) CMD INSTALL --no-multiarch $(TARBALL) && \
	  $(RSCRIPT) tools/install-stamp.R write; fi
	@rm -f src/*.o src/*.so

demo: install
	$(RSCRIPT) tools/demo.R demo-output

test: install
	NOT_CRAN=true $(RSCRIPT) tools/run-tests.R

# The pkgdown site (docs/): reference, articles with their plots; then every
# page is loaded in headless Chromium and its internal links and images are
# checked. Fails on any pkgdown warning or broken page.
site: deps-site install
	$(RSCRIPT) tools/check-site.R docs

document: deps-check
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = "source")'
	@rm -f src/*.o src/*.so

check: deps-check
	# the Suggests that only peer comparisons use: BNPmix (patched on R < 4.4)
	# and topicmodels (needs GSL), so that the check sees every declared package
	$(RSCRIPT) bench/install-peers.R
	$(RSCRIPT) tools/install-deps.R peers
	rm -f $(TARBALL)
	$(R) CMD build .
	_R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_REMOTE_=$${_R_CHECK_CRAN_INCOMING_REMOTE_:-false} \
	  _R_CHECK_ORPHANED_=$${_R_CHECK_ORPHANED_:-false} \
	  $(R) CMD check --as-cran --no-manual $(TARBALL)

# Examples, tests and vignettes skip what needs a suggested package.
check-hard-deps:
	sh tools/check-hard-deps.sh

bench: install deps-bench
	for f in bench/bench-*.R; do $(RSCRIPT) $$f || exit 1; done

# The test files with a full form (exact_iter(), exact_full() of
# tests/testthat/helper-full-mode.R; test-docs.R checks the list): the exact
# sweeps, and the exact-posterior and calibration checks that the default
# suite runs with a third of the iterations or not at all.
EXACT_FILES := exact-sweep|impute-exact|^subcluster$$|dp-algorithms-exact|^rjmcmc$$|evidence-smc|^sharded$$

# Every DP algorithm x family kind x prior x missing-value mode against the
# exact posterior over the partitions of 8 rows, at full precision, the
# samplers' state verified after every move and the sub-cluster sampler's
# size thresholds lowered too (tests/testthat/test-exact-sweep.R); the HDP
# and LDA samplers likewise (test-exact-sweep-models.R). Comma-separated
# restrictions: MCMIX_EXACT_SWEEP_KINDS (family kinds), MCMIX_EXACT_SWEEP_ALGS
# (algorithms), MCMIX_EXACT_SWEEP_NA (missing-value modes),
# MCMIX_EXACT_SWEEP_N (row counts, default 8). Also the full forms of the
# files in EXACT_FILES above.
exact: install
	NOT_CRAN=true MCMIX_EXACT_SWEEP=full MCMIX_TEST_FILTER='$(EXACT_FILES)' \
	  MCMIX_EXACT_SWEEP_KINDS='$(MCMIX_EXACT_SWEEP_KINDS)' \
	  MCMIX_EXACT_SWEEP_ALGS='$(MCMIX_EXACT_SWEEP_ALGS)' \
	  MCMIX_EXACT_SWEEP_NA='$(MCMIX_EXACT_SWEEP_NA)' \
	  MCMIX_EXACT_SWEEP_N='$(MCMIX_EXACT_SWEEP_N)' $(RSCRIPT) tools/run-tests.R

# Fault campaigns (tools/fuzz.R, tools/interrupts.R; see the README). The
# campaign runs under a virtual-memory limit so that runaway allocation
# fails instead of swapping. FUZZ_BASE: example calls per function or
# method; FUZZ_TIMEOUT: CPU seconds per call.
FUZZ_BASE    ?= 1
FUZZ_TIMEOUT ?= 20
FUZZ_VMEM_KB ?= 8000000
fuzz: install interrupts
	ulimit -v $(FUZZ_VMEM_KB); NOT_CRAN=true $(RSCRIPT) tools/fuzz.R $(FUZZ_BASE) $(FUZZ_TIMEOUT)

interrupts: install
	NOT_CRAN=true $(RSCRIPT) tools/interrupts.R

# Sanitizers and valgrind; MCMIX_TEST_FILTER (a regular expression on test
# file names) runs a subset, e.g. make valgrind MCMIX_TEST_FILTER='chains|hdp';
# make valgrind VALGRIND_SHARD=3/8 the third of eight parts (tools/VALGRIND.md).
sanitize: deps
	MCMIX_TEST_FILTER='$(MCMIX_TEST_FILTER)' sh tools/sanitize.sh

valgrind: deps
	MCMIX_TEST_FILTER='$(MCMIX_TEST_FILTER)' VALGRIND_SHARD='$(VALGRIND_SHARD)' sh tools/valgrind.sh

# The configurations of other platforms (tools/portability.sh): gcc with
# -Wall -Wextra -pedantic (no warning from the package's files), clang with
# OpenMP, and OpenMP switched off; each in its own library under
# .portability-lib-*, with the tests matching MCMIX_TEST_FILTER (default:
# portability, threads, lda, rng, sampler-nuts, mixture-exact).
# PORTABILITY_CONFIGS restricts the configurations, CLANG names the compiler.
portability: deps
	MCMIX_TEST_FILTER='$(MCMIX_TEST_FILTER)' CLANG='$(CLANG)' sh tools/portability.sh $(PORTABILITY_CONFIGS)

clean:
	rm -rf src/*.o src/*.so $(PKG).Rcheck $(PKG)_*.tar.gz demo-output \
	  .sanitize-lib .valgrind-lib .portability-lib-* .harddeps fuzz-results*.csv interrupt-sweep.csv docs
