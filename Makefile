# mcmix developer and user entry points.
#   make demo    install dependencies and the package (built tarball, with the
#                vignettes), run the DP-mixture demo
#   make test    install dependencies and the package (as for demo), run the
#                test suite
#   make check   R CMD build + R CMD check --as-cran on the tarball
#   make bench   run the benchmarks in bench/ (installs the peer packages)
R       ?= R
RSCRIPT ?= Rscript
PKG     := mcmix
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

.PHONY: all deps deps-check deps-bench install demo test check document bench clean

all: test

deps:
	$(RSCRIPT) tools/install-deps.R test

deps-check:
	$(RSCRIPT) tools/install-deps.R check

deps-bench:
	$(RSCRIPT) tools/install-deps.R bench

# R CMD build builds the vignettes (knitr, rmarkdown and pandoc come with
# deps-check); installing the tarball makes them available to vignette().
install: deps-check
	rm -f $(TARBALL)
	$(R) CMD build --no-manual .
	$(R) CMD INSTALL --no-multiarch $(TARBALL)
	@rm -f src/*.o src/*.so

demo: install
	$(RSCRIPT) tools/demo.R demo-output

test: install
	NOT_CRAN=true $(RSCRIPT) tools/run-tests.R

document: deps-check
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = "source")'
	@rm -f src/*.o src/*.so

check: deps-check
	rm -f $(TARBALL)
	$(R) CMD build .
	_R_CHECK_FORCE_SUGGESTS_=false $(R) CMD check --as-cran --no-manual $(TARBALL)

bench: install deps-bench
	for f in bench/bench-*.R; do $(RSCRIPT) $$f || exit 1; done

clean:
	rm -rf src/*.o src/*.so $(PKG).Rcheck $(PKG)_*.tar.gz demo-output
