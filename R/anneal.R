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
#' @param n_iter Number of iterations (at most 1e8).
#' @param t0,t_final First and last temperature of the geometric schedule.
#' @param temperatures Optional vector of `n_iter` temperatures (overrides
#'   `t0` and `t_final`).
#' @param scale Random-walk standard deviation (a number, or one per
#'   coordinate).
#' @param minimize If `TRUE`, `target` is an objective to minimise (an R
#'   function); annealing runs on its negative.
#' @return An object of class `mcmix_anneal`: `par` (best point), `value`
#'   (target, or objective, at `par`), `path` (matrix of the chain, one row
#'   per iteration), `values`, `temperatures`, `accept_rate`.
#' @references Kirkpatrick, S., Gelatt, C. D. and Vecchi, M. P. (1983).
#'   Optimization by simulated annealing. *Science* 220, 671-680.
#' @examples
#' # a bimodal density with its higher mode at (2, 2)
#' f <- function(x) log(0.3 * exp(-sum((x + 2)^2)) + 0.7 * exp(-sum((x - 2)^2)))
#' set.seed(1)
#' a <- anneal(f, init = c(-2, -2), n_iter = 5000, t0 = 5, scale = 1.5)
#' a$par
#' @export
anneal <- function(target, init, n_iter = 1000, t0 = 1, t_final = 1e-3,
                   temperatures = NULL, scale = 0.1, minimize = FALSE) {
  call <- match.call()
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
  if (is.null(temperatures)) {
    n_iter <- check_count_max(n_iter, "n_iter", 1L, 1e8, "iterations")
    t0 <- mdl_number(t0, "t0", 0, open_lower = TRUE)
    t_final <- mdl_number(t_final, "t_final", 0, open_lower = TRUE)
    temperatures <- t0 * (t_final / t0)^(seq_len(n_iter) / n_iter)
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
  if (!is.numeric(scale) || !(length(scale) %in% c(1L, d)) ||
      any(!is.finite(scale)) || any(scale <= 0))
    stop(sprintf("`scale` must be a positive number or %d positive numbers, not %s.",
                 d, describe_value(scale)), call. = FALSE)
  target_probe(tg, init, "init")
  spec <- list(temperatures = temperatures, scale = rep_len(as.double(scale), d))
  r <- with_target_io(d, function(io) .Call(C_ffi_anneal_run, tg, io, init, spec))
  nm <- param_names(init, d)
  names(r$par) <- nm
  colnames(r$path) <- nm
  sgn <- if (minimize) -1 else 1
  structure(list(par = r$par, value = sgn * r$value, path = r$path,
                 values = sgn * r$values, temperatures = temperatures,
                 accept_rate = r$accepted / length(temperatures),
                 minimize = minimize, call = call),
            class = "mcmix_anneal")
}

#' @export
print.mcmix_anneal <- function(x, digits = 4, ...) {
  cat("Simulated annealing: ", length(x$temperatures), " iterations, temperature ",
      format(x$temperatures[1L], digits = 3), " -> ",
      format(x$temperatures[length(x$temperatures)], digits = 3),
      ", acceptance ", format(x$accept_rate, digits = 3), "\n", sep = "")
  cat(if (x$minimize) "minimum " else "maximum ", format(x$value, digits = digits + 2),
      " at\n", sep = "")
  print(x$par, digits = digits)
  invisible(x)
}
