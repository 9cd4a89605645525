# MAP partitions of conjugate mixtures by annealed Gibbs sampling and
# iterated conditional modes (src/partition_map.c through src/ffi_rj.c).

#' MAP partition by annealed Gibbs sampling and ICM
#'
#' Searches for the partition of maximum posterior probability of a
#' [finite_mixture()] (symmetric weights) or [dp_mixture()] (fixed `alpha`;
#' Pitman-Yor with a fixed `discount`) of a conjugate family: collapsed Gibbs
#' sweeps (annealed as in Geman and Geman 1984) whose conditionals
#' are raised to a growing power `schedule[t]` (the inverse temperature;
#' 1 is Gibbs sampling, large values approach the mode), followed by
#' iterated conditional modes (Besag 1986: every observation moved to the
#' cluster of highest conditional probability) until no move improves the
#' posterior. Each of `restarts` runs starts from its own initial
#' partition, and the best partition found over all sweeps and runs is
#' returned.
#'
#' The criterion is the posterior of the *partition* (for a finite mixture
#' of `K` components, labellings that differ by a permutation are one
#' partition): `log p(partition) + log p(x | partition)`, with the
#' component parameters and weights integrated out.
#'
#' @param model A [finite_mixture()] with symmetric weights or a
#'   [dp_mixture()] with fixed `alpha` and `discount`, of a conjugate family.
#' @param data The data, as for [sample_posterior()].
#' @param schedule The powers of the annealed sweeps: positive numbers,
#'   `Inf` allowed (ICM sweeps); `numeric(0)` runs ICM only. The default
#'   rises geometrically from 1 to 100 over 200 sweeps.
#' @param restarts Number of runs from different initial partitions.
#' @param init Initial partitions: `"prior"` (a draw from the prior over
#'   partitions per run), `"one"` (one cluster), `"singletons"`, a vector
#'   of labels, or a `function(run)` returning one. A fixed start (`"one"`,
#'   `"singletons"` or a label vector) is that of the first run only; the
#'   other runs start from dispersed partitions (one cluster, unless that
#'   was the start given, then draws from the prior), so that restarts do
#'   not repeat one search. Give a function to choose every run's start.
#' @param max_icm Largest number of ICM sweeps after the schedule.
#' @return An object of class `mcmix_map_partition`: `labels` (the best
#'   partition, clusters numbered by first appearance), `log_post` (its log
#'   posterior, up to the constant `log p(x)`), `runs` (the best log
#'   posterior of each run), `traces` (per run, the log posterior after each
#'   sweep) and `model`.
#' @references Besag, J. (1986). On the statistical analysis of dirty
#'   pictures. *Journal of the Royal Statistical Society B* 48, 259-302.
#'
#'   Geman, S. and Geman, D. (1984). Stochastic relaxation, Gibbs
#'   distributions, and the Bayesian restoration of images. *IEEE
#'   Transactions on Pattern Analysis and Machine Intelligence* 6, 721-741.
#' @seealso [sample_posterior()], [partition()]
#' @examples
#' set.seed(1)
#' x <- c(rnorm(20, -3), rnorm(20, 3))
#' mp <- map_partition(dp_mixture(gaussian_niw(), alpha = 1), x, restarts = 3)
#' mp
#' table(mp$labels)
#' @export
map_partition <- function(model, data, schedule = exp(seq(0, log(100), length.out = 200)),
                          restarts = 5, init = "prior", max_icm = 100) {
  if (!inherits(model, c("mcmix_finite_mixture", "mcmix_dp_mixture")))
    stop(sprintf("`model` must be a finite_mixture() or dp_mixture(), not %s.",
                 describe_value(model)), call. = FALSE)
  finite <- inherits(model, "mcmix_finite_mixture")
  if (finite && !isTRUE(model$symmetric))
    stop("`model` must have symmetric Dirichlet weights (a single `alpha`) for a MAP partition.",
         call. = FALSE)
  if (!finite && (!is.numeric(model$alpha) || !is.numeric(model$discount)))
    stop("`model` must have a fixed `alpha` and `discount` (no gamma_prior() or beta_prior()) for a MAP partition.",
         call. = FALSE)
  schedule <- check_schedule(schedule)   # R/checks.R
  restarts <- check_count_max(restarts, "restarts", 1L, 1e5, "runs")
  max_icm <- check_count_max(max_icm, "max_icm", 0L, 1e6, "sweeps")
  prepared <- family_prepare(model$family, data)
  if (!isTRUE(.Call(C_ffi_family_conjugate, prepared$name)))
    stop(sprintf("`model` must have a conjugate family; '%s' is not.", prepared$name),
         call. = FALSE)
  xt <- t(prepared$x)
  storage.mode(xt) <- "double"
  N <- ncol(xt)
  K <- if (finite) model$K else N
  spec <- list(family = prepared$name, dim = as.integer(prepared$dim),
               hyper = as.double(prepared$hyper), finite = finite,
               K = as.integer(K), a = if (finite) model$alpha[1L] else 0,
               alpha = if (finite) 0 else model$alpha,
               d = if (finite) 0 else model$discount, max_icm = max_icm)
  # every run: the annealed sweeps then the ICM sweeps, N label updates each
  check_work(as.double(restarts) * (length(schedule) + max_icm) * N,
             if (restarts > 1L) "restarts" else "schedule",
             sprintf("%s runs of %s sweeps over %s observations", format_count(restarts),
                     format_count(length(schedule) + max_icm), format_count(N)),
             fix = "use fewer `restarts`, a shorter `schedule` or a lower `max_icm`",
             per = "search")   # R/chains_budget.R
  init_fun <- map_init(model, N, init)
  runs <- lapply(seq_len(restarts), function(r) {
    z <- init_fun(r)
    .Call(C_ffi_map_partition, spec, xt, as.integer(match(z, unique(z)) - 1L),
          as.double(schedule))
  })
  lp <- vapply(runs, `[[`, numeric(1), "log_post")
  best <- runs[[which.max(lp)]]
  z <- best$labels
  structure(list(labels = match(z, unique(z)), log_post = best$log_post, runs = lp,
                 traces = lapply(runs, `[[`, "trace"), model = model),
            class = "mcmix_map_partition")
}

# The initial partition of run r. A fixed start (a label vector, "one" or
# "singletons") is the start of run 1 only: the other runs start from
# dispersed partitions, one cluster (unless that was the start given) then
# draws from the prior, so that restarts explore different basins of the
# search rather than repeat one (annealing from one poor partition can end
# in the same local mode every time).
map_init <- function(model, N, init) {
  if (identical(init, "singletons"))
    # the first sweeps cost N x K = N^2 label evaluations
    check_work(as.double(N)^2, "init", sprintf("a start from %s singletons", format_count(N)),
               fix = "use `init = \"prior\"` or fewer observations", per = "sweep")   # R/chains_budget.R
  finite <- inherits(model, "mcmix_finite_mixture")
  a0 <- if (finite) NA_real_ else model$alpha
  fixed <- is.numeric(init) || identical(init, "one") || identical(init, "singletons")
  f <- if (identical(init, "singletons")) function(r, a0) seq_len(N)
       else mixture_init(model, N, init)      # R/mixture.R: checks and "prior"/"one"
  one <- !identical(init, "one")
  prior <- mixture_init(model, N, "prior")
  function(r) {
    z <- if (!fixed || r == 1L) f(r, a0)
         else if (r == 2L && one) integer(N)
         else prior(r, a0)
    # the singletons start is the one start with more than K clusters that
    # the search takes (its first sweeps reduce them)
    if (finite && !(r == 1L && identical(init, "singletons")) && length(unique(z)) > model$K)
      stop(sprintf("`init` has more than K = %d clusters.", model$K), call. = FALSE)
    z
  }
}

#' @export
print.mcmix_map_partition <- function(x, ...) {
  cat("MAP partition by annealed Gibbs and ICM\n")
  cat("  observations: ", length(x$labels), ", clusters: ", max(x$labels), "\n", sep = "")
  cat("  cluster sizes: ", paste(tabulate(x$labels), collapse = " "), "\n", sep = "")
  cat("  log posterior: ", format(x$log_post, digits = 8), " (up to log p(x))\n", sep = "")
  cat("  runs: ", length(x$runs), ", reaching the best: ",
      sum(abs(x$runs - x$log_post) < 1e-8 * max(1, abs(x$log_post))), "\n", sep = "")
  invisible(x)
}

#' Plot the search of a MAP partition
#'
#' Draws the log posterior after each sweep of every run of
#' [map_partition()] (annealed Gibbs sweeps, then ICM sweeps), with the best
#' value found as a horizontal line.
#'
#' @param x An object returned by [map_partition()].
#' @param ... Further graphical parameters for [graphics::matplot()].
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' mp <- map_partition(dp_mixture(gaussian_niw()), c(rnorm(10), rnorm(10, 5)),
#'                     restarts = 2)
#' plot(mp)
#' @export
plot.mcmix_map_partition <- function(x, ...) {
  tr <- x$traces
  n <- max(1L, lengths(tr))
  m <- vapply(tr, function(v) c(v, rep(NA_real_, n - length(v))), numeric(n))
  m[!is.finite(m)] <- NA_real_
  graphics::matplot(seq_len(n), matrix(m, n), type = "l", lty = 1, xlab = "sweep",
                    ylab = "log posterior (up to log p(x))", ...)
  graphics::abline(h = x$log_post, lty = 2)
  invisible(x)
}
