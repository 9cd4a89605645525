# The convergence guard of print() and summary() of a fit (R/summary.R):
# where a fit has several chains, one warning (class
# "mcmix_warning_convergence") lists the traces whose chains disagree or
# never move, so that a sampler stuck in one part of the support (a
# reducible Gibbs sampler, a poor start) is not read as an answer.
#
# A trace is flagged when
#   * its rank-normalised split R-hat (Vehtari et al. 2021, [rhat()]) is
#     above `guard_rhat_max` = 1.1 (the usual "do not trust" threshold;
#     summary() also notes R-hat above 1.01); or
#   * it is constant within every chain but not the same in all chains
#     (an indicator that never moves, with chains that disagree: R-hat is
#     not defined there, the within-chain variance being zero).
# Chains with fewer than `guard_min_draws` kept draws are not judged.

guard_rhat_max <- 1.1
guard_min_draws <- 20L

# The flagged traces of `fit`, as "name (reason)" strings (empty when the
# fit has one chain, too few draws, or nothing to flag).
fit_guard_flags <- function(fit) {
  if (!inherits(fit, "mcmix_fit") || length(fit$chains) < 2L) return(character())
  q <- tryCatch(diag_input(fit, quiet = TRUE), error = function(e) NULL)
  if (!length(q) || ncol(q[[1L]]) < 2L || nrow(q[[1L]]) < guard_min_draws) return(character())
  out <- character()
  for (nm in names(q)) {
    m <- q[[nm]]
    if (anyNA(m) || any(!is.finite(m))) next
    lo <- apply(m, 2L, min)
    hi <- apply(m, 2L, max)
    if (all(lo == hi)) {
      if (length(unique(lo)) > 1L)
        out <- c(out, sprintf("%s (constant within each chain, different between chains)", nm))
      next
    }
    r <- .Call(C_ffi_diag_stats, m, unname(diag_codes["rhat"]))
    if (is.finite(r) && r > guard_rhat_max)
      out <- c(out, sprintf("%s (R-hat %.2f)", nm, r))
  }
  out
}

# Warn once (one warning for all flagged traces) when the guard flags any.
fit_guard <- function(fit) {
  flags <- fit_guard_flags(fit)
  if (length(flags)) {
    msg <- sprintf(paste0("The %d chains disagree for %s; the draws do not represent the ",
                          "posterior yet: run longer, check the starting values, or ",
                          "change the sampler (e.g. `blocks` for Gibbs)."),
                   length(fit$chains), paste(flags, collapse = ", "))
    warning(warningCondition(msg, class = c("mcmix_warning_convergence", "mcmix_warning"),
                             call = NULL))
  }
  invisible(flags)
}
