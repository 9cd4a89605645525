#!/usr/bin/env bash
# Install the working tree into a private library without touching src/ of
# the tree (the build happens in a copy), so several builds can run at once.
# Usage: tools/dev-install.sh LIBDIR [--roxygen]
set -eu
lib=${1:?usage: tools/dev-install.sh LIBDIR [--roxygen]}
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$lib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/mcmix"
tar -C "$top" --exclude=.git --exclude='*.o' --exclude='*.so' --exclude=mcmix.Rcheck \
    --exclude=bench --exclude=demo-output -cf - . | tar -C "$tmp/mcmix" -xf -
if [ "${2:-}" = "--roxygen" ]; then
  (cd "$tmp/mcmix" && Rscript -e 'roxygen2::roxygenise(roclets = c("rd", "namespace"), load_code = "source")' >/dev/null)
fi
R CMD INSTALL --no-test-load --library="$lib" "$tmp/mcmix" 2>&1 | grep -Ev '^\*|^installing|^gcc|^Warning: replacing' || true
Rscript -e "library(mcmix, lib.loc = '$lib'); cat('mcmix loaded from', '$lib', '\n')"
