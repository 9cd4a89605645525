# The mixing guard of print() and summary() of a fit (R/summary.R): one
# warning (class "mcmix_warning_mixing", also "mcmix_warning_convergence"
# and "mcmix_warning") names the reported quantities whose draws do not
# represent the posterior yet and says what to do, so that a sampler that
# did not mix (a poor proposal scale, a reducible Gibbs sampler, a poor
# start, a prior on the wrong scale) is not read as an answer. Every fit
# kind goes through here, with one chain or several.
#
# A reported quantity (a trace of fit_trace_names()) is flagged when
#   * its bulk effective sample size ([ess()], Vehtari et al. 2021) is
#     below `guard_ess_min` = 100, the number below which the
#     rank-normalised R-hat and ESS estimates themselves are unreliable
#     (Vehtari et al. 2021, section 4), pooled over the chains;
#   * with several chains, its rank-normalised split R-hat ([rhat()]) is
#     above `guard_rhat_max` = 1.01 (Vehtari et al. 2021's threshold);
#   * with several chains, it is constant within every chain but not the
#     same in all chains (an indicator that never moves, with chains that
#     disagree: R-hat is not defined there, the within-chain variance
#     being zero).
# For the samplers whose moves are Metropolis-Hastings steps (sample_mh(),
# the MH blocks of sample_gibbs(), the moves of sample_tempering()), an
# acceptance rate of a chain outside `guard_accept` = [0.05, 0.95] is
# flagged too: a random-walk proposal that is far too wide (almost every
# proposal rejected) or far too narrow (almost every one accepted) moves
# the chain by tiny amounts, and its ESS is then an overestimate as often
# as not. Chains with fewer than `guard_min_draws` kept draws are not
# judged. Constant traces (a fixed quantity) and traces with non-finite
# values are not judged.

guard_ess_min <- 100
guard_rhat_max <- 1.01
guard_accept <- c(0.05, 0.95)
guard_min_draws <- 20L
guard_show <- 6L     # flagged quantities named in the warning; the rest counted

# The fit kinds whose acceptance counters count Metropolis-Hastings steps
# (classes set by fit_set_kind(), R/sampler.R).
guard_accept_kinds <- c("mcmix_mh_fit", "mcmix_gibbs_fit", "mcmix_tempering_fit")

# The flagged quantities of `fit`: a data frame with columns `name`,
# `reason` (a short text such as "bulk ESS 12, R-hat 1.35") and `what`
# ("ess", "rhat", "stuck" or "accept"), worst first. `stats` may give the
# rank-normalised R-hat and bulk ESS of every trace (the columns `rhat` and
# `ess_bulk` of summary()'s table) so that they are not computed twice.
fit_guard_table <- function(fit, stats = NULL) {
  none <- data.frame(name = character(), reason = character(), what = character(),
                     score = double(), stringsAsFactors = FALSE)
  if (!inherits(fit, "mcmix_fit") || !length(fit$chains)) return(none)
  q <- tryCatch(diag_input(fit, quiet = TRUE), error = function(e) NULL)
  if (!length(q) || nrow(q[[1L]]) < guard_min_draws) return(none)
  several <- ncol(q[[1L]]) >= 2L
  rows <- list()
  add <- function(name, reason, what, score)
    rows[[length(rows) + 1L]] <<- data.frame(name = name, reason = reason, what = what,
                                             score = score, stringsAsFactors = FALSE)
  for (nm in names(q)) {
    m <- q[[nm]]
    if (anyNA(m) || any(!is.finite(m))) next
    lo <- apply(m, 2L, min)
    hi <- apply(m, 2L, max)
    if (all(lo == hi)) {
      if (several && length(unique(lo)) > 1L)
        add(nm, "constant within each chain, different between chains", "stuck", Inf)
      next
    }
    st <- if (!is.null(stats) && nm %in% rownames(stats))
      c(rhat = stats[nm, "rhat"], ess_bulk = stats[nm, "ess_bulk"])
    else stats::setNames(.Call(C_ffi_diag_stats, m, unname(diag_codes[c("rhat", "ess_bulk")])),
                         c("rhat", "ess_bulk"))
    why <- character()
    score <- 0
    if (is.finite(st[["ess_bulk"]]) && st[["ess_bulk"]] < guard_ess_min) {
      why <- c(why, sprintf("bulk ESS %s", format(round(st[["ess_bulk"]], 1L), nsmall = 0L)))
      score <- guard_ess_min / max(st[["ess_bulk"]], 1e-3)
    }
    if (several && is.finite(st[["rhat"]]) && st[["rhat"]] > guard_rhat_max) {
      why <- c(why, sprintf("R-hat %s", format_rhat(st[["rhat"]])))
      score <- max(score, 100 * (st[["rhat"]] - 1))
    }
    if (length(why))
      add(nm, paste(why, collapse = ", "), if (grepl("ESS", why[1L])) "ess" else "rhat",
          score)
  }
  rate <- fit_guard_acceptance(fit)
  if (length(rate)) {
    bad <- which(is.finite(rate) & (rate < guard_accept[1L] | rate > guard_accept[2L]))
    for (i in bad)
      add(sprintf("acceptance rate of %s", names(rate)[i]),
          sprintf("%s: %s", format(round(rate[i], 3L)),
                  if (rate[i] < guard_accept[1L]) "almost every proposal rejected"
                  else "almost every proposal accepted"),
          "accept", Inf)
  }
  if (!length(rows)) return(none)
  out <- do.call(rbind, rows)
  out[order(-out$score, seq_len(nrow(out))), , drop = FALSE]
}

# An R-hat with 3 decimals, or 4 when 3 would show the threshold itself.
format_rhat <- function(r) {
  out <- sprintf("%.3f", r)
  if (as.numeric(out) <= guard_rhat_max) sprintf("%.4f", r) else out
}

# The Metropolis-Hastings acceptance rates of the kept phase, one per chain
# and block (named "chain 1", or "chain 1, block 2"), or NULL when the fit
# is of another kind; blocks never proposed (exact Gibbs blocks) left out.
fit_guard_acceptance <- function(fit) {
  if (!inherits(fit, guard_accept_kinds)) return(NULL)
  a <- tryCatch(acceptance(fit), error = function(e) NULL)   # R/diag.R
  if (is.null(a)) return(NULL)
  out <- double()
  for (i in seq_len(nrow(a))) for (j in seq_len(ncol(a))) {
    if (is.na(a[i, j])) next
    lab <- if (ncol(a) == 1L) sprintf("chain %d", i)
           else sprintf("chain %d, %s", i, colnames(a)[j])
    out[[lab]] <- a[i, j]
  }
  out
}

# The flagged quantities as "name (reason)" strings (empty when nothing is
# flagged).
fit_guard_flags <- function(fit, stats = NULL) {
  tab <- fit_guard_table(fit, stats)
  sprintf("%s (%s)", tab$name, tab$reason)
}

# What to do, by the kinds of flags raised.
guard_advice <- function(tab, fit) {
  out <- character()
  if (any(tab$what %in% c("ess", "rhat", "stuck")))
    out <- c(out, if (length(fit$chains) > 1L)
      "run longer (extend(fit, iter = ...)), check the starting values, or use a sampler that mixes better"
      else "run longer (extend(fit, iter = ...)) or use a sampler that mixes better; several chains (`chains = 4`) also check R-hat")
  if (any(tab$what == "accept"))
    out <- c(out, paste0("tune the proposal: `adapt = adapt_scale()` (or adapt_haario()) with a ",
                         "burn-in, or a `proposal_rw(scale = )` on the scale of the target"))
  if (inherits(fit, "mcmix_gibbs_fit") && any(tab$what %in% c("rhat", "stuck")))
    out <- c(out, "update correlated coordinates together (`blocks`)")
  paste(out, collapse = "; ")
}

# Warn once (one warning for all flagged quantities) when the guard flags
# any; returns the flags invisibly.
fit_guard <- function(fit, stats = NULL) {
  tab <- fit_guard_table(fit, stats)
  if (nrow(tab)) {
    shown <- utils::head(tab, guard_show)
    more <- nrow(tab) - nrow(shown)
    msg <- sprintf(paste0("The draws do not represent the posterior yet (%s): %s%s. ",
                          "Thresholds: bulk ESS %d or more%s; to fix, %s."),
                   if (length(fit$chains) == 1L) "one chain"
                   else sprintf("%d chains", length(fit$chains)),
                   paste(sprintf("%s (%s)", shown$name, shown$reason), collapse = ", "),
                   if (more > 0L) sprintf(", and %d more", more) else "",
                   guard_ess_min,
                   paste(c(if (length(fit$chains) > 1L) sprintf(", R-hat %s or less", guard_rhat_max),
                           if (inherits(fit, guard_accept_kinds))
                             sprintf(", acceptance rate between %s and %s",
                                     guard_accept[1L], guard_accept[2L])), collapse = ""),
                   guard_advice(tab, fit))
    warn(msg, c("mcmix_warning_mixing", "mcmix_warning_convergence"))   # R/conditions.R
  }
  invisible(sprintf("%s (%s)", tab$name, tab$reason))
}
