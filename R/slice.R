# Slice sampling (src/sampler_slice.c).

#' Slice sampler
#'
#' Coordinate-wise slice sampling with stepping out and shrinkage (Neal
#' 2003). Coordinates listed in `discrete` take integer values and are
#' updated by the integer version of the algorithm (stepping out and
#' shrinkage over the integers, through a continuous auxiliary variable whose
#' density is the target at its integer part).
#'
#' The number of evaluations of the log density is kept in the final state
#' of each chain (`n_eval`). A point where the log density is `NaN` or
#' `+Inf` is taken as outside the slice (so outside the support), and
#' counted in `n_nonfinite` (see [target()]).
#'
#' @inheritParams sample_mh
#' @param width Initial width of the slice interval: one number, or one per
#'   coordinate (between 1e-100 and 1e100).
#' @param max_steps Maximum number of stepping-out steps (Neal's `m`; at
#'   most 10000).
#' @param discrete `FALSE`, `TRUE` (all coordinates are integers), or the
#'   indices of the integer-valued coordinates.
#' @return An `mcmix_fit`.
#' @seealso [sample_mh()]
#' @examples
#' set.seed(1)
#' fit <- sample_slice(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 500)
#' colMeans(as.matrix(fit))
#' # a distribution on 0..4
#' p <- c(0.1, 0.1, 0.4, 0.2, 0.1)
#' ld <- function(k) if (k < 0 || k > 4) -Inf else log(p[k + 1])
#' fit <- sample_slice(ld, init = 2, iter = 500, discrete = TRUE)
#' table(as.matrix(fit))
#' @export
sample_slice <- function(target, init, iter = 1000, burnin = floor(iter / 2),
                         thin = 1, chains = 1, width = 1, max_steps = 100,
                         discrete = FALSE,
                         cores = mcmix_option("cores"),
                         backend = mcmix_option("backend"),
                         progress = interactive(), ...) {
  check_dots(list(...))   # R/checks.R
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  if (missing(init)) init <- random_init(target)   # R/sampler.R
  su <- sampler_setup(target, init, iter, burnin, chains)   # R/sampler.R
  iter <- su$iter; tg <- su$tg; chains <- su$chains; burnin <- su$burnin; d <- su$d
  width <- check_positive(width, "width", d)
  if (any(width < 1e-100 | width > 1e100))
    stop(sprintf("`width` must be between 1e-100 and 1e100, not %s.",
                 format(width[width < 1e-100 | width > 1e100][1L])), call. = FALSE)
  max_steps <- check_count_max(max_steps, "max_steps", 1L, 1e4,
                               "stepping-out steps per coordinate and iteration")
  disc <- if (is.logical(discrete) && length(discrete) == 1L && !is.na(discrete)) {
    rep(discrete, d)
  } else if (is.numeric(discrete) && length(discrete) && !anyNA(discrete) &&
             all(discrete == floor(discrete)) && all(discrete >= 1 & discrete <= d) &&
             !anyDuplicated(discrete)) {
    seq_len(d) %in% discrete
  } else {
    stop(sprintf(paste0("`discrete` must be TRUE, FALSE or indices of ",
                        "coordinates between 1 and %d, not %s."),
                 d, describe_value(discrete)), call. = FALSE)
  }
  init_fun0 <- init_function(init, tg, chains)
  init_fun <- function(chain) {
    v <- init_fun0(chain)
    if (any(disc) && any(v[disc] != floor(v[disc])))
      stop("`init` must be whole numbers in the `discrete` coordinates.",
           call. = FALSE)
    v
  }
  spec <- list(width = width, discrete = as.integer(disc),
               max_steps = as.double(max_steps))
  run_target_sampler("slice",
    function(t, io, st, run, sp) .Call(C_ffi_slice_run, t, io, st, run, sp),
    tg, d, init, init_fun,
    init_state = function(theta)
      list(theta = theta, logd = target_probe(tg, theta), iteration = 0,
           n_eval = 0, n_nonfinite = 0),
    spec, iter, burnin, thin, chains, cores, backend, progress,
    model = list(type = "slice", target = tg), call = call)
}
