# Gibbs sampling over user-supplied full conditionals (pure R, through the
# common chain driver, so chains, streams, extend() work as for every
# sampler; the random numbers come from the chain's stream).

#' A Metropolis-Hastings step inside a Gibbs sampler
#'
#' Used as an element of `conditionals` in [sample_gibbs()] for a block
#' whose full conditional cannot be sampled directly: one random-walk
#' Metropolis step on the block, with the other coordinates fixed.
#'
#' @param log_density `function(theta)` of the full parameter vector,
#'   returning the log of the full conditional of the block (up to a
#'   constant), e.g. the log joint density.
#' @param scale Standard deviation of the random-walk step (one number or
#'   one per coordinate of the block).
#' @return An object of class `mcmix_mh_step`.
#' @examples
#' mh_step(function(theta) -sum(theta^2) / 2, scale = 0.5)
#' @export
mh_step <- function(log_density, scale = 1) {
  if (!is.function(log_density))
    stop(sprintf("`log_density` must be a function, not %s.",
                 describe_value(log_density)), call. = FALSE)
  check_scale_vector(scale, "scale")
  structure(list(log_density = log_density, scale = as.double(scale)),
            class = "mcmix_mh_step")
}

#' Gibbs sampler
#'
#' Runs a Gibbs sampler whose full-conditional updates are R functions.
#' Each block of coordinates is updated by its element of `conditionals`:
#' either a `function(theta)` returning a draw of the block from its full
#' conditional given the current full vector `theta`, or an [mh_step()] (a
#' Metropolis-Hastings step within Gibbs). With `scan = "systematic"` the
#' blocks are updated in order at each iteration; with `scan = "random"`
#' each iteration makes as many updates as there are blocks, each of a block
#' chosen uniformly at random.
#'
#' The acceptance counts of the MH steps are kept in the final state of each
#' chain (`n_accept`, `n_prop`, one per block, zero for blocks drawn from
#' their full conditional; kept phase), read by [acceptance()].
#'
#' The state `theta` passed to the conditionals (and to the
#' `log_density` of an [mh_step()]) carries the names of the traces, so a
#' conditional can read `theta[["b"]]` when `init` is named.
#'
#' @inheritParams sample_mh
#' @param conditionals A list with one element per block: a function or an
#'   [mh_step()].
#' @param init Initial values (a numeric vector, named for named traces), a
#'   list of one vector per chain, or a `function(chain)`.
#' @section Deprecated argument order: `conditionals` comes first, as the
#'   target comes first in the other samplers. The former order
#'   `sample_gibbs(init, conditionals)` still works, with a deprecation
#'   warning, when the first argument is initial values and the second a
#'   list of conditionals.
#' @param blocks A list of integer vectors: the coordinates of each block.
#'   By default, block `b` is coordinate `b` (one block per coordinate).
#' @param scan `"systematic"` or `"random"`.
#' @return An `mcmix_fit`.
#' @examples
#' # bivariate normal with correlation rho: exact full conditionals
#' rho <- 0.8
#' cond <- list(function(th) rnorm(1, rho * th[2], sqrt(1 - rho^2)),
#'              function(th) rnorm(1, rho * th[1], sqrt(1 - rho^2)))
#' set.seed(1)
#' fit <- sample_gibbs(cond, init = c(x = 0, y = 0), iter = 1000)
#' cor(as.matrix(fit))
#' # the state is named after `init`
#' cond2 <- list(x = function(th) rnorm(1, rho * th[["y"]], sqrt(1 - rho^2)),
#'               y = function(th) rnorm(1, rho * th[["x"]], sqrt(1 - rho^2)))
#' fit2 <- sample_gibbs(cond2, init = c(x = 0, y = 0), iter = 500)
#' @export
sample_gibbs <- function(conditionals, init, blocks = NULL,
                         scan = c("systematic", "random"),
                         iter = 1000, burnin = floor(iter / 2), thin = 1,
                         chains = 1,
                         cores = mcmix_option("cores"),
                         backend = mcmix_option("backend"),
                         progress = interactive(), ...) {
  check_dots(list(...))   # R/checks.R
  interrupt_guard()   # Ctrl-C from here on returns a fit (R/chains_signals.R)
  call <- match.call()
  if (!missing(init) && !missing(conditionals) && is_conditionals(init) &&
      !is_conditionals(conditionals)) {   # sample_gibbs(init, conditionals)
    warn_deprecated("sample_gibbs(init, conditionals)", "sample_gibbs(conditionals, init)",
                    "the conditionals come first, as the target in the other samplers")
    tmp <- init
    init <- conditionals
    conditionals <- tmp
    nm <- names(call)
    call <- as.call(c(call[[1L]], list(conditionals = call[["init"]], init = call[["conditionals"]]),
                      as.list(call)[-1L][!nm[-1L] %in% c("init", "conditionals")]))
  }
  if (missing(init))
    stop("`init` is missing: give initial values, one per coordinate updated by the conditionals.",
         call. = FALSE)
  iter <- check_count(iter, "iter", 1L)
  scan <- match_choice(scan, c("systematic", "random"), "scan")
  chains <- check_count(chains, "chains", 1L)
  free <- structure(list(dim = NA_integer_), class = "mcmix_target")
  d <- if (is.function(init)) NA_integer_ else init_dim(init, free)
  if (!is.list(conditionals) || !length(conditionals))
    stop("`conditionals` must be a non-empty list of functions or mh_step()s.",
         call. = FALSE)
  for (b in seq_along(conditionals))
    if (!is.function(conditionals[[b]]) &&
        !inherits(conditionals[[b]], "mcmix_mh_step"))
      stop(sprintf("`conditionals[[%d]]` must be a function or an mh_step(), not %s.",
                   b, describe_value(conditionals[[b]])), call. = FALSE)
  B <- length(conditionals)
  if (is.null(blocks)) {
    if (!is.na(d) && B != d)
      stop(sprintf(paste0("`conditionals` has %d elements but `init` has %d ",
                          "coordinates; give `blocks`."), B, d), call. = FALSE)
    blocks <- as.list(seq_len(B))
  }
  if (!is.list(blocks) || length(blocks) != B)
    stop(sprintf("`blocks` must be a list of %d integer vectors (one per conditional).",
                 B), call. = FALSE)
  for (b in seq_len(B)) {
    x <- blocks[[b]]
    if (!is.numeric(x) || !length(x) || anyNA(x) || any(x != floor(x)) ||
        any(x < 1) || (!is.na(d) && any(x > d)))
      stop(sprintf("`blocks[[%d]]` must hold coordinate indices between 1 and %s.",
                   b, if (is.na(d)) "length(init)" else d), call. = FALSE)
    blocks[[b]] <- as.integer(x)
    st <- conditionals[[b]]
    if (inherits(st, "mcmix_mh_step") && !length(st$scale) %in% c(1L, length(x)))
      stop(sprintf("the `scale` of `conditionals[[%d]]` must have length 1 or %d.",
                   b, length(x)), call. = FALSE)
  }
  init_fun <- init_function(init, free, chains)
  names <- param_names(init, if (is.na(d)) length(init_fun(1L)) else d)
  where <- function(b, iteration) sprintf("`conditionals[[%d]]` %s", b,
    if (iteration == 0) "at the initial value" else
      sprintf("at iteration %d", iteration))
  update <- function(state, b, adapt_count) {
    th <- state$theta
    idx <- blocks[[b]]
    st <- conditionals[[b]]
    names(th) <- names
    if (is.function(st)) {
      v <- tryCatch(st(th), error = function(e)
        stop(where(b, state$iteration), " failed: ", conditionMessage(e),
             call. = FALSE))
      if (!is.numeric(v) || length(v) != length(idx) || any(!is.finite(v)))
        stop(sprintf("%s must return %d finite number(s), but returned %s.",
                     where(b, state$iteration), length(idx), describe_value(v)),
             call. = FALSE)
      th[idx] <- v
    } else {
      ld <- function(x) {
        v <- tryCatch(st$log_density(x), error = function(e)
          stop(where(b, state$iteration), " failed: ", conditionMessage(e),
               call. = FALSE))
        if (!is.numeric(v) || length(v) != 1L || is.na(v) || v == Inf)
          stop(sprintf("the log_density of %s must return a number or -Inf, but returned %s.",
                       where(b, state$iteration), describe_value(v)), call. = FALSE)
        v
      }
      y <- th
      y[idx] <- th[idx] + st$scale * stats::rnorm(length(idx))
      ly <- ld(y)
      acc <- log(stats::runif(1)) < ly - ld(th)
      if (acc) th <- y
      if (adapt_count) {
        state$n_prop[b] <- state$n_prop[b] + 1
        state$n_accept[b] <- state$n_accept[b] + acc
      }
    }
    state$theta <- unname(th)
    state
  }
  kernel <- new_kernel("gibbs",
    init = function(chain) {
      theta <- init_fun(chain)
      if (length(theta) != length(names) || any(unlist(blocks) > length(theta)))
        stop("`init` does not match `blocks`.", call. = FALSE)
      counts <- stats::setNames(double(B), paste0("block", seq_len(B)))
      list(theta = theta, iteration = 0, n_accept = counts, n_prop = counts)
    },
    step = function(state, n, thin, offset, warmup) {
      keep <- if (warmup) integer() else
        which((offset + seq_len(n)) %% thin == 0)
      out <- matrix(NA_real_, length(keep), length(names),
                    dimnames = list(NULL, names))
      row <- 0L
      for (i in seq_len(n)) {
        state$iteration <- state$iteration + 1
        order <- if (scan == "systematic") seq_len(B) else
          sample.int(B, B, replace = TRUE)
        for (b in order) state <- update(state, b, !warmup)
        if (i %in% keep) {
          row <- row + 1L
          out[row, ] <- state$theta
        }
      }
      list(state = state, draws = list(traces = out))
    },
    trace_names = names)
  run_fit(kernel, iter, burnin, thin, chains, cores, backend, progress,
              model = list(type = "gibbs", conditionals = conditionals,
                           blocks = blocks, scan = scan), call = call,
              kind = "gibbs")
}

# A list of conditionals: functions or mh_step()s.
is_conditionals <- function(x)
  is.list(x) && !is.object(x) && length(x) > 0L &&
    all(vapply(x, function(e) is.function(e) || inherits(e, "mcmix_mh_step"), logical(1)))
