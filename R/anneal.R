#' Simulated annealing
#'
#' Searches for the mode of a target (or the maximum, or minimum, of an
#' objective function) by simulated annealing (Kirkpatrick et al. 1983): a
#' random-walk Metropolis chain on \eqn{f(\theta)^{1/T_k}} whose
#' temperature \eqn{T_k} decreases, by default geometrically,
#' \eqn{T_k = T_0 c^k} with \eqn{c} chosen so that the last temperature is
#' `t_final`. A proposal \eqn{\theta' = \theta + s z} is accepted with
#' probability \eqn{\min(1, \exp((\log f(\theta') - \log f(\theta)) / T_k))}.
#' The best point visited is returned. The loop is compiled; compiled
#' targets run at C speed.
#'
#' @param target The log density (or objective) to maximise: an R function
#'   of the parameter vector, a [target()], or a compiled target.
#' @param init Starting point (numeric vector).
#' @param iter Number of iterations (at most 1e8).
#' @param ... `n_iter`, the former name of `iter` (deprecated).
#' @param t0,t_final First and last temperature of the geometric schedule.
#'   By default `t0` is set from the problem: the temperature at which a
#'   typical worsening move from `init` is accepted with probability 0.8
#'   (Kirkpatrick et al. 1983; the mean worsening of the target over 100
#'   trial moves of the initial step size divided by `-log(0.8)`; Ben-Ameur
#'   2004), and `t_final` is `1e-3` (or `t0 / 1000` if that is smaller).
#' @param temperatures Optional vector of `iter` temperatures (overrides
#'   `t0` and `t_final`).
#' @param scale Random-walk standard deviation (a number, or one per
#'   coordinate), kept fixed. By default (`NULL`) the step sizes adapt to
#'   the temperature as in Corana et al. (1987): the run is cut into 50
#'   stages and after each stage every step size is widened when more than
#'   60% of the moves were accepted and narrowed when fewer than 40% were,
#'   starting from `0.1 * max(1, abs(init))` per coordinate.
#' @param minimize If `TRUE`, `target` is an objective to minimise (an R
#'   function); annealing runs on its negative.
#' @return An object of class `mcmix_anneal`: `par` (best point), `value`
#'   (target, or objective, at `par`), `path` (matrix of the chain, one row
#'   per iteration), `values`, `temperatures`, `accept_rate`, `scale` (the
#'   step sizes of the last stage).
#' @references Kirkpatrick, S., Gelatt, C. D. and Vecchi, M. P. (1983).
#'   Optimization by simulated annealing. *Science* 220, 671-680.
#'   Corana, A., Marchesi, M., Martini, C. and Ridella, S. (1987). Minimizing
#'   multimodal functions of continuous variables with the simulated
#'   annealing algorithm. *ACM TOMS* 13, 262-280. Ben-Ameur, W. (2004).
#'   Computing the initial temperature of simulated annealing. *Comput.
#'   Optim. Appl.* 29, 369-385.
#' @examples
#' # a bimodal density with its higher mode at (2, 2)
#' f <- function(x) log(0.3 * exp(-sum((x + 2)^2)) + 0.7 * exp(-sum((x - 2)^2)))
#' set.seed(1)
#' a <- anneal(f, init = c(-2, -2), iter = 5000, t0 = 5, scale = 1.5)
#' print(a, digits = 3)
#' # the Rastrigin function from a local minimum, with the default settings
#' rastrigin <- function(x) 10 + x^2 - 10 * cos(2 * pi * x)
#' set.seed(1)
#' anneal(rastrigin, init = 3.3, minimize = TRUE)$par
#' @export
anneal <- function(target, init, iter = 10000, t0 = NULL, t_final = NULL,
                   temperatures = NULL, scale = NULL, minimize = FALSE, ...) {
  call <- match.call()
  iter_arg <- renamed_arg(list(...), "n_iter", "iter", "anneal")   # R/conditions.R
  if (!is.null(iter_arg)) iter <- iter_arg$value
  minimize <- check_flag(minimize, "minimize")
  if (minimize) {
    if (!is.function(target))
      stop("`target` must be an R function when `minimize = TRUE`.", call. = FALSE)
    f <- target
    target <- function(theta) -f(theta)
  }
  tg <- as_target(target, "target")
  init <- check_init(init, tg, "init")
  d <- length(init)
  tg$dim <- d
  adaptive <- is.null(scale)
  if (adaptive) {
    scale <- 0.1 * pmax(1, abs(init))
  } else if (!is.numeric(scale) || !(length(scale) %in% c(1L, d)) ||
             any(!is.finite(scale)) || any(scale <= 0)) {
    stop(sprintf("`scale` must be a positive number or %d positive numbers, not %s.",
                 d, describe_value(scale)), call. = FALSE)
  }
  scale <- rep_len(as.double(scale), d)
  value0 <- target_probe(tg, init, "init")
  if (is.null(temperatures)) {
    iter <- check_count_max(iter, if (is.null(iter_arg)) "iter" else "n_iter", 1L, 1e8,
                            "iterations")
    t0 <- if (is.null(t0)) anneal_t0(tg, init, value0, scale)
          else check_number(t0, "t0", 0, open_lower = TRUE)
    t_final <- if (is.null(t_final)) min(1e-3, t0 / 1000)
               else check_number(t_final, "t_final", 0, open_lower = TRUE)
    temperatures <- t0 * (t_final / t0)^(seq_len(iter) / iter)
  } else {
    if (!is.numeric(temperatures) || !length(temperatures) ||
        any(!is.finite(temperatures)) || any(temperatures <= 0))
      stop(sprintf("`temperatures` must be a vector of positive numbers, not %s.",
                   describe_value(temperatures)), call. = FALSE)
    if (length(temperatures) > 1e8)
      stop(sprintf("`temperatures` must have at most 1e8 values (iterations), not %.0f.",
                   as.double(length(temperatures))), call. = FALSE)
    temperatures <- as.double(temperatures)
  }
  n <- length(temperatures)
  stages <- if (adaptive) split(seq_len(n), ceiling(seq_len(n) * min(50L, n) / n))
            else list(seq_len(n))
  run <- function(theta, idx, sc)
    with_target_io(d, function(io) .Call(C_ffi_anneal_run, tg, io, theta,
                                         list(temperatures = temperatures[idx], scale = sc)))
  theta <- init
  best <- list(par = init, value = value0)
  path <- matrix(0, n, d)
  values <- numeric(n)
  accepted <- 0
  for (idx in stages) {
    r <- run(theta, idx, scale)
    path[idx, ] <- r$path
    values[idx] <- r$values
    accepted <- accepted + r$accepted
    if (r$value > best$value) best <- list(par = r$par, value = r$value)
    theta <- r$path[length(idx), ]
    if (adaptive) scale <- corana_step(scale, r$accepted / length(idx))
  }
  nm <- param_names(init, d)
  par <- best$par
  names(par) <- nm
  colnames(path) <- nm
  sgn <- if (minimize) -1 else 1
  structure(list(par = par, value = sgn * best$value, path = path,
                 values = sgn * values, temperatures = temperatures,
                 accept_rate = accepted / n, scale = scale,
                 minimize = minimize, call = call),
            class = "mcmix_anneal")
}

# Initial temperature from the problem: worsening moves of the target from
# `init` (100 trial random-walk moves of step `scale`) are accepted with
# probability 0.8 on average at T0 = mean worsening / -log(0.8).
anneal_t0 <- function(tg, init, value0, scale) {
  worse <- numeric()
  for (i in seq_len(100L)) {
    v <- tryCatch(target_eval(tg, init + scale * stats::rnorm(length(init))),
                  error = function(e) NA_real_)
    if (is.finite(v) && v < value0) worse <- c(worse, value0 - v)
  }
  if (!length(worse)) return(1)
  max(mean(worse) / -log(0.8), 1e-8)
}

# Corana et al. (1987) step update from the acceptance rate a of a stage:
# widen above 0.6, narrow below 0.4 (their c = 2).
corana_step <- function(scale, a) {
  if (a > 0.6) scale * (1 + 2 * (a - 0.6) / 0.4)
  else if (a < 0.4) scale / (1 + 2 * (0.4 - a) / 0.4)
  else scale
}

#' @export
print.mcmix_anneal <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  cat("Simulated annealing: ", length(x$temperatures), " iterations, temperature ",
      format(x$temperatures[1L], digits = 3), " -> ",
      format(x$temperatures[length(x$temperatures)], digits = 3),
      ", acceptance ", format(x$accept_rate, digits = 3), "\n", sep = "")
  cat(if (x$minimize) "minimum " else "maximum ", format(x$value, digits = digits + 2),
      " at\n", sep = "")
  print(x$par, digits = digits)
  invisible(x)
}
