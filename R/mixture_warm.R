# The warm start of a Dirichlet process mixture (`init = "subsample"`,
# the default of the sub-cluster sampler on large data): the chain starts
# from the partition that the small-data sampler finds on a subsample,
# with every observation allocated to the cluster of largest size times
# posterior predictive (src/mixture_warm.c through ffi_dp_warm_allocate()).
#
# Why: started from one cluster, the sub-cluster sampler's first 2-means
# splits cut a true cluster through its middle when it lies between
# others; restricted Gibbs then blurs the two halves into overlapping
# pieces, whose merge has log acceptance -10 to -200 (the reverse split
# reproduces the particular blurred pieces with probability about
# exp(-gain)). An exact sampler leaves such a state only by luck. On a
# subsample, collapsed Gibbs scans with sequentially allocated split-merge
# moves (Dahl 2003; the small-data default) move single points and do not
# keep the cut; the clusters they find start the chain on all the data.
# Only the starting state changes: the sampler that runs from it is
# unchanged, so its exactness is untouched.
#
# Settings (options, read when the model is run):
#   mcmix.warm_start_n       observations from which the sub-cluster sampler
#                            starts this way when `init` is not given (5e4);
#   mcmix.warm_start_m       size of the subsample (2e4; evenly spaced
#                            observations round(seq(1, N, length.out = m)));
#   mcmix.warm_start_sweeps  sweeps of the small-data sampler on it, from
#                            one cluster (100).
# Everything random comes from the chain's own stream (the kernel's init
# runs inside it, R/chains.R), and the allocation is deterministic, so the
# start is the same for any number of threads, cores or backend.

# The settings of a warm start on N observations: list(m, sweeps, label).
warm_start_settings <- function(N) {
  m <- min(N, mcmix_option("warm_start_m"))
  sweeps <- mcmix_option("warm_start_sweeps")
  list(m = m, sweeps = sweeps,
       label = sprintf("subsample (%d of %d observations, %d sweeps of \"split_merge\")",
                       m, N, sweeps))
}

# Smallest cluster of the subsample's partition (of m observations) that
# is kept in the start: 5 members, or 0.1% of the subsample.
warm_start_min_size <- function(m) max(5, ceiling(m / 1000))

# Whether the sub-cluster sampler starts from a subsample by default.
warm_start_default <- function(N) {
  n0 <- mcmix_option("warm_start_n")
  is.numeric(N) && length(N) == 1L && N >= n0
}

# function(x, rows) giving the kernel's init(chain) on the engine's data
# (mixture_engine_data(), R/mixture.R): `spec` the DP kernel's spec (its
# family, dim, hyper and threads), `state0(labels)` the fresh chain state
# of given labels, `sm_control` the "split_merge" settings for the
# subsample, `warm` from warm_start_settings().
warm_start_init_on <- function(spec, state0, sm_control, warm) {
  force(spec)
  force(state0)
  force(sm_control)
  force(warm)
  function(x, rows) {
    N <- if (rows) nrow(x) else ncol(x)
    function(chain) {
      idx <- unique(round(seq(1, N, length.out = warm$m)))
      xs <- if (rows) x[idx, , drop = FALSE] else x[, idx, drop = FALSE]
      sub <- warm_start_subsample(spec, state0, sm_control, warm, xs, rows)
      xs <- NULL
      sub_idx <- as.integer(idx[sub$keep] - 1L)
      lab <- sub$lab
      spec$x_rows <- rows
      # no OpenMP threads in a forked process (see in_forked_child())
      if (isTRUE(spec$control$threads > 1) && in_forked_child()) spec$control$threads <- 1
      # the labels, written in place by ranges (an interrupt is served
      # between them): a fresh vector that nothing else refers to
      z <- vector("integer", N)
      step <- 1e6
      for (lo in seq(0, N - 1, by = step))
        .Call(C_ffi_dp_warm_allocate, spec, x, sub_idx, lab, c(lo, min(N, lo + step)), z)
      state0(drop_empty_labels(z, sub$K))
    }
  }
}

# The partition of the subsample xs (rows of observations, or columns when
# rows is FALSE) by "split_merge": list(keep, lab, K), keep the subsample's
# members of the clusters of at least warm_start_min_size() (a cluster of a
# few tail points of the subsample has a broad predictive that would take
# the tails of a true cluster on all the data: a piece the sampler would
# have to dissolve), lab their 0-based labels among the K kept clusters.
warm_start_subsample <- function(spec, state0, sm_control, warm, xs, rows = TRUE) {
  m <- if (rows) nrow(xs) else ncol(xs)
  sp <- spec
  sp$algorithm <- "split_merge"
  sp$control <- sm_control
  sp$x_rows <- rows
  sp$workspace <- NULL
  sp$store_labels <- FALSE
  sp["online"] <- list(NULL)
  state <- state0(integer(m))
  # in chunks of a few sweeps: an interrupt is served between them
  done <- 0L
  while (done < warm$sweeps) {
    n <- min(10L, warm$sweeps - done)
    state <- .Call(C_ffi_dp_step, sp, xs, state, chunk_ctrl(n, 1L, done, TRUE))$state
    done <- done + n
  }
  lab <- state$labels
  size <- tabulate(lab + 1L)
  big <- which(size >= warm_start_min_size(m))
  if (!length(big)) big <- which.max(size)
  keep <- (lab + 1L) %in% big
  list(keep = keep, lab = match(lab[keep] + 1L, big) - 1L, K = length(big))
}

# Labels 0 .. K-1 with the unused ones removed (renumbered in order): a
# cluster of the subsample can receive no observation when every point
# near it is more probable under a larger neighbour; the samplers take no
# empty cluster. Without an unused label, z itself: no copy of z is made
# (tabulate() counts labels 1 .. K-1 and skips the zeros; z + 1L would
# cost 4 bytes per observation, 40 MB at N = 1e7).
drop_empty_labels <- function(z, K) {
  cnt <- tabulate(z, K - 1L)
  used <- c(length(z) > sum(cnt), cnt > 0L)
  if (all(used)) return(z)
  (cumsum(used) - 1L)[z + 1L]
}

# "subsample" chosen by default (marked, so that data the warm start does
# not take fall back to one cluster instead of an error).
warm_start_mark <- function(init) structure(init, warm_default = TRUE)

is_warm_start <- function(init)
  is.character(init) && length(init) == 1L && identical(as.vector(init), "subsample")

# `init` as the kernel takes it: "subsample" only for a DP mixture of a
# conjugate family without imputed cells (missing values of a joint
# Gaussian block are filled in at every sweep, the warm start would see
# them empty); chosen by default it falls back to "one" there.
warm_start_check <- function(init, model, imputes) {
  if (!is_warm_start(init)) return(init)
  why <- if (!inherits(model, "mcmix_dp_mixture")) "a dp_mixture() model"
         else if (!family_is_conjugate(model$family)) "a conjugate family"
         else if (imputes) "data without missing values in a joint Gaussian block"
  if (is.null(why)) return("subsample")
  if (isTRUE(attr(init, "warm_default"))) return("one")
  stop_input(sprintf("`init = \"subsample\"` needs %s; use `init = \"one\"` or \"prior\".",
                     why), "init")
}
