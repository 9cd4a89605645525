#!/usr/bin/env Rscript
## The main demo: a Dirichlet process mixture of Gaussians fitted to the
## galaxy velocities of MASS::galaxies; prints a summary and writes plots.
args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args)) args[[1L]] else "demo-output"
suppressPackageStartupMessages(library(mcmix))
mcmix:::run_demo(outdir)
