# Small hand-written kernels for the tests of diagnostics, conversion,
# co-clustering and plots.

# AR(1) traces with coefficients `phi` (one trace per coefficient).
diag_ar_kernel <- function(phi = c(0.5, 0.9), names = paste0("theta", seq_along(phi))) {
  p <- length(phi)
  new_kernel("ar1",
    init = function(chain) list(x = stats::rnorm(p), n_accept = 0, n_prop = 0),
    step = function(state, n, thin, offset, warmup) {
      out <- matrix(0, n, p)
      for (g in seq_len(n)) {
        state$x <- phi * state$x + stats::rnorm(p)
        out[g, ] <- state$x
      }
      state$n_prop <- state$n_prop + n
      state$n_accept <- state$n_accept + n
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      tr <- out[keep, , drop = FALSE]
      colnames(tr) <- names
      list(state = state, draws = list(traces = tr))
    }, trace_names = names)
}

# A toy "mixture" kernel: labels drawn around a planted partition of `N`
# observations in `K` groups (each label kept with probability 1 - noise,
# else moved to a random group); traces n_clusters and log_lik.
diag_label_kernel <- function(N = 30, K = 3, noise = 0.1, data = NULL) {
  truth <- rep(seq_len(K), length.out = N)
  new_kernel("toy_labels",
    init = function(chain) list(),
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      # every iteration draws its labels and its log_lik in turn, so that
      # the draws do not depend on how the run is cut into chunks
      its <- t(vapply(seq_len(n), function(g) {
        z <- truth
        flip <- stats::runif(N) < noise
        z[flip] <- sample.int(K, sum(flip), replace = TRUE)
        c(as.double(z), stats::rnorm(1L))
      }, double(N + 1L)))
      its <- its[keep, , drop = FALSE]
      labs <- its[, seq_len(N), drop = FALSE]
      storage.mode(labs) <- "integer"
      tr <- cbind(n_clusters = apply(labs, 1, function(z) length(unique(z))),
                  log_lik = its[, N + 1L])
      list(state = state, draws = list(traces = tr, labels = labs))
    }, trace_names = c("n_clusters", "log_lik"), truth = truth)
}

diag_toy_mixture_fit <- function(N = 30, K = 3, chains = 2, iter = 100, data = NULL, ...) {
  fit <- run_kernel(diag_label_kernel(N, K, ...), iter = iter, chains = chains,
                    data = data, progress = FALSE)
  fit$N <- N
  class(fit) <- c("mcmix_mixture_fit", class(fit))
  fit
}
