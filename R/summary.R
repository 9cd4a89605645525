# print() and summary() of fits.

# One line describing the model of a fit: format() of the fit (methods
# below, one per kind), never longer than `width` characters.
fit_model_label <- function(fit, width = 140L) {
  lab <- tryCatch(format(fit), error = function(e) NULL)
  if (!is.character(lab) || length(lab) != 1L || is.na(lab) || !nzchar(lab))
    return(NULL)
  one_line(lab, width)
}

# Squash whitespace and cut a description to `width` characters.
one_line <- function(x, width = 120L) {
  x <- gsub("[[:space:]]+", " ", trimws(paste(x, collapse = " ")))
  if (nchar(x) > width) x <- paste0(substr(x, 1L, width - 3L), "...")
  x
}

# The printed lines of an object (a short model object), joined by "; ".
print_lines <- function(m) {
  out <- tryCatch(utils::capture.output(print(m)), error = function(e) character())
  out <- trimws(out[nzchar(trimws(out))])
  if (!length(out)) return(class(m)[1L])
  out <- gsub(":[ ]+", ": ", out)   # drop the alignment padding of the model's print()
  paste(out, collapse = "; ")
}

# "an R function target of dimension 3" / "a compiled target ...".
target_label <- function(tg, d) {
  if (is.null(tg)) return("a target")
  kind <- if (inherits(tg, "mcmix_target") && is.null(tg$xptr)) "an R function" else "a compiled"
  sprintf("%s target in dimension %d", kind, d)
}

fit_dim <- function(fit) length(fit_trace_names(fit))

# Which priors were scaled to the data and which were given (the
# regression samplers store it as `prior_label` in their model,
# R/scaled_prior.R); NULL for other fits.
fit_prior_label <- function(fit) {
  m <- fit$model
  if (!is.list(m) || !is.character(m$prior_label) || length(m$prior_label) != 1L)
    return(NULL)
  m$prior_label
}

#' One-line descriptions of fits
#'
#' `format()` of a fit is a single line saying what was sampled: the
#' sampler and the model, with sizes, never the data or the user's
#' functions. `print()` and `summary()` show it as their "Model:" line.
#'
#' @param x An `mcmix_fit`.
#' @param ... Unused.
#' @return A character string.
#' @examples
#' set.seed(1)
#' fit <- sample_mh(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 200,
#'                  progress = FALSE)
#' format(fit)
#' @name format.mcmix_fit
#' @export
format.mcmix_fit <- function(x, ...) {
  m <- x$model
  if (is.null(m)) return(sprintf("kernel %s", dQuote(x$kernel$name, FALSE)))
  if (is.object(m) && !is.list(m)) return(class(m)[1L])
  one_line(print_lines(m), Inf)
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_mh_fit <- function(x, ...) {
  m <- x$model
  prop <- sub("^<mcmix proposal: (.*)>$", "\\1", print_lines(m$proposal))
  ad <- if (is.null(m$adapt) || identical(m$adapt$kind, "none")) "no adaptation"
        else sprintf("%s adaptation %s", m$adapt$kind,
                     if (identical(m$adapt$during, "always")) "(continuing)" else "during burn-in")
  sprintf("Metropolis-Hastings on %s; %s proposal, %s",
          target_label(m$target, fit_dim(x)), prop, ad)
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_slice_fit <- function(x, ...)
  sprintf("slice sampling of %s", target_label(x$model$target, fit_dim(x)))

#' @rdname format.mcmix_fit
#' @export
format.mcmix_hmc_fit <- function(x, ...)
  sprintf("Hamiltonian Monte Carlo on %s; %s", target_label(x$model$target, fit_dim(x)),
          gradient_label(x$model$target))

#' @rdname format.mcmix_fit
#' @export
format.mcmix_gibbs_fit <- function(x, ...) {
  m <- x$model
  sprintf("Gibbs sampler in dimension %d: %d block%s, %s scan", fit_dim(x),
          length(m$blocks), if (length(m$blocks) == 1L) "" else "s", m$scan)
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_tempering_fit <- function(x, ...)
  sprintf("parallel tempering in dimension %d with %d temperatures", fit_dim(x),
          length(x$model$temperatures))

#' @rdname format.mcmix_fit
#' @export
format.mcmix_probit_fit <- function(x, ...) {
  p <- length(x$model$prior_mean)
  sprintf("Bayesian probit regression (Albert-Chib): %d observation%s, %d coefficient%s, normal prior",
          nrow(x$data$X), if (nrow(x$data$X) == 1L) "" else "s", p, if (p == 1L) "" else "s")
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_gp_classify_fit <- function(x, ...) {
  sprintf("Gaussian-process classification (probit link): %d training and %d test points, %d input%s, squared-exponential kernel",
          nrow(x$data$X), nrow(x$data$X_test), ncol(x$data$X),
          if (ncol(x$data$X) == 1L) "" else "s")
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_ising_fit <- function(x, ...) {
  m <- x$model
  h <- unique(m$h)
  field <- if (!is.null(x$data$evidence)) "field from noisy evidence"
           else if (length(h) == 1L) sprintf("field h = %s", format(h, digits = 4))
           else "non-constant field"
  sprintf("Ising model on a %d x %d %slattice, J = %s, %s; %s", m$nrow, m$ncol,
          if (isTRUE(m$periodic)) "periodic " else "", format(m$J, digits = 4), field,
          if (identical(m$method, "swendsen_wang")) "Swendsen-Wang" else "Gibbs")
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_hier_lm_fit <- function(x, ...) {
  m <- x$model
  sprintf("hierarchical linear model: %d observations in %d groups, %d coefficients",
          length(x$data$y), length(m$groups), length(m$mu0))
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_hdp_fit <- function(x, ...) {
  m <- x$model
  sprintf("hierarchical Dirichlet process mixture of %s components: %d observations in %d groups; gamma: %s, alpha: %s",
          family_label(m$family), x$N, nlevels(x$group), format(m$gamma), format(m$alpha))
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_lda_fit <- function(x, ...) {
  d <- x$data
  sprintf("latent Dirichlet allocation with K = %d topics: %s documents, %s tokens, vocabulary of %d words%s; alpha = %s, beta = %s",
          x$model$K, format(d$D), format(lda_tokens(d)), d$W,
          if (inherits(d, "mcmix_sharded_corpus")) sprintf(" in %d shards", length(d$n)) else "",
          format(x$model$alpha), format(x$model$beta))
}

#' @rdname format.mcmix_fit
#' @export
format.mcmix_mixture_fit <- function(x, ...)
  one_line(paste0(print_lines(x$model), "; algorithm: ", x$algorithm), Inf)

fit_draw_counts <- function(fit) vapply(fit$chains, function(ch) NROW(ch$traces), integer(1))

# " (warm-up 1.20 s, sampling 3.40 s)" for one chain, " (per chain: warm-up
# 1.10 to 1.30 s, sampling ...)" for several: the phases of elapsed_time().
time_phases <- function(tm) {
  if (!is.matrix(tm) || !nrow(tm) || anyNA(tm)) return("")
  rng <- function(v) if (length(v) == 1L || diff(range(v)) < 0.005) format_seconds(v[1L])
                     else paste(format_seconds(min(v)), "to", format_seconds(max(v)))
  sprintf(" (%swarm-up %s, sampling %s)", if (nrow(tm) > 1L) "per chain: " else "",
          rng(tm[, "warmup"]), rng(tm[, "sample"]))
}

# Proposed points rejected because the target's value there was not finite
# (the samplers' n_nonfinite, R/target.R), summed over the chains.
fit_nonfinite <- function(fit) {
  if (!is.list(fit$chains)) return(0)
  sum(vapply(fit$chains, function(ch) {
    n <- if (is.list(ch$state)) ch$state$n_nonfinite
    if (is.numeric(n)) sum(n) else 0
  }, numeric(1)))
}

#' Warm-up and sampling time of each chain
#'
#' The elapsed seconds each chain spent in its warm-up (burn-in) and in its
#' sampling iterations, like `rstan::get_elapsed_time()`. They are measured
#' around the sampler's own steps in the process that ran the chain (so
#' they do not include starting parallel workers), and add up over
#' [extend()]. The fit keeps them in `fit$chain_time`; `print()` and
#' `summary()` show them on their "Time:" line, after the total elapsed
#' time of the run (`fit$timing`).
#'
#' @param fit An `mcmix_fit`.
#' @return A matrix with one row per chain (`"chain:1"`, ...) and the
#'   columns `warmup` and `sample` (seconds); `NA` for a chain of a fit
#'   saved by a version of mcmix that did not record them.
#' @examples
#' set.seed(1)
#' fit <- sample_nuts(function(x) -sum(x^2) / 2, init = c(0, 0), iter = 200,
#'                    chains = 2, progress = FALSE)
#' elapsed_time(fit)
#' @export
elapsed_time <- function(fit) {
  if (!inherits(fit, "mcmix_fit") || !is.list(fit$chains))
    stop_input(sprintf("`fit` must be an mcmix_fit, not %s.", describe_value(fit)), "fit")
  elapsed_time_of(fit)
}

elapsed_time_of <- function(fit) {
  if (!is.list(fit$chains) || !length(fit$chains)) return(NULL)
  ids <- vapply(seq_along(fit$chains), function(i) {
    id <- fit$chains[[i]]$id
    if (is.numeric(id) && length(id) == 1L) as.integer(id) else i
  }, integer(1))
  rows <- paste0("chain:", ids)
  tm <- matrix(NA_real_, length(ids), 2L, dimnames = list(rows, c("warmup", "sample")))
  ct <- fit$chain_time   # R/chains.R, fit_add_time()
  if (is.matrix(ct)) {
    ok <- rows %in% rownames(ct)
    tm[ok, ] <- ct[rows[ok], , drop = FALSE]
  }
  tm
}

format_seconds <- function(s) {
  if (is.na(s)) return("NA")
  if (s < 60) return(sprintf("%.2f s", s))
  if (s < 3600) return(sprintf("%.1f min", s / 60))
  sprintf("%.2f h", s / 3600)
}

# The call of a fit on at most 3 lines (inline functions or data are cut).
call_label <- function(call, max_lines = 3L) {
  d <- trimws(deparse(compact_call(call), width.cutoff = 60L, nlines = max_lines + 1L))
  if (length(d) > max_lines) d <- c(d[seq_len(max_lines)], "...")
  d <- vapply(d, one_line, character(1), width = 100L, USE.NAMES = FALSE)
  paste(d, collapse = "\n           ")
}

# A call with the objects inlined in it (by do.call(), for example) shown
# as short placeholders: <function>, <a 100 x 3 matrix>, ...
compact_call <- function(call) {
  if (!is.call(call)) return(call)
  short <- function(a) {
    if (is.function(a)) return(as.name("<function>"))
    if (!is.language(a) && (is.list(a) || length(a) > 5L))
      return(as.name(paste0("<", describe_value(a), ">")))
    a
  }
  for (i in seq_along(call)) if (!is.null(call[[i]])) call[[i]] <- short(call[[i]])
  call
}

fit_header <- function(fit) {
  s <- fit$settings
  kept <- fit_draw_counts(fit)
  cat("<mcmix fit>\n")
  cat("Algorithm: ", fit$kernel$name, "\n", sep = "")
  if (!is.null(fit$call))
    cat("Call:      ", call_label(fit$call), "\n", sep = "")
  lab <- if (inherits(fit, "mcmix_fit")) fit_model_label(fit) else fit$model_label
  if (!is.null(lab)) cat("Model:     ", lab, "\n", sep = "")
  pl <- if (inherits(fit, "mcmix_fit")) fit_prior_label(fit) else fit$prior_label
  if (!is.null(pl)) cat("Priors:    ", pl, "\n", sep = "")
  if (!is.null(fit$N)) cat("Data:      ", fit$N, " observations\n", sep = "")
  if (is.character(s$init)) cat("Start:     ", s$init, "\n", sep = "")   # R/mixture_warm.R
  cat("Chains:    ", s$chains, "\n", sep = "")
  cat("Iterations:", " burn-in ", s$burnin, ", sampling ", s$iter, ", thin ", s$thin,
      "\n", sep = "")
  cat("Kept draws:", if (length(unique(kept)) == 1L)
    paste0(" ", kept[1L], " per chain (", sum(kept), " in all)")
  else paste0(" ", paste(kept, collapse = ", "), " (chains differ: interrupted run)"),
  "\n", sep = "")
  tm <- if (inherits(fit, "mcmix_fit")) elapsed_time_of(fit) else fit$chain_time
  cat("Time:      ", format_seconds(fit$timing[["elapsed"]]), time_phases(tm), "\n", sep = "")
  bad <- if (is.numeric(fit$nonfinite)) fit$nonfinite else fit_nonfinite(fit)
  if (bad > 0)
    cat("Rejected:  ", format_count(bad), " proposed point(s) where the log density was NaN ",
        "or +Inf or its gradient not finite (see ?target)\n", sep = "")
  if (isTRUE(fit$interrupted))
    cat("The run was interrupted; extend(fit, iter = 0) completes it.\n")
}

#' Print and summarise a fit
#'
#' `print()` shows the sampler, model, chains, iterations and run time.
#' `summary()` adds, for every trace, the posterior mean, standard deviation,
#' 2.5%, 50% and 97.5% quantiles (pooled over chains), the rank-normalised
#' R-hat and the bulk and tail effective sample sizes ([rhat()], [ess()]);
#' for mixtures also the posterior distribution of the number of clusters.
#' Both give one warning (class `mcmix_warning_mixing`, also
#' `mcmix_warning_convergence`) naming the traces whose draws do not
#' represent the posterior yet, and what to do: a bulk effective sample
#' size below 100; with several chains, an R-hat above 1.01 or a trace
#' constant within each chain but different between chains; for
#' Metropolis-Hastings samplers ([sample_mh()], the Metropolis blocks of
#' [sample_gibbs()], [sample_tempering()]), an acceptance rate of a chain
#' outside 0.05-0.95. Chains of fewer than 20 kept draws are not judged.
#' [suppressWarnings()] with `classes = "mcmix_warning_mixing"` silences it.
#'
#' @param x,object An `mcmix_fit`.
#' @param probs Quantiles to report.
#' @param digits Significant digits to show.
#' @param ... Unused.
#' @return `print()` returns `x` invisibly; `summary()` an object of class
#'   `summary.mcmix_fit`: a list with `table` (a data frame with one row per
#'   trace), `n_clusters` (a proportion table, mixtures only, printed
#'   with 3 decimals), `n_large_clusters` (the same for the clusters
#'   holding at least 1% of the observations, from the stored labels:
#'   mixtures of more than 100 observations that store labels, `NULL`
#'   otherwise; a Dirichlet process posterior also puts clusters of one
#'   or a few observations beside those the data support) and
#'   information on the run.
#' @examples
#' k <- new_kernel("iid_normal",
#'   init = function(chain) list(),
#'   step = function(state, n, thin, offset, warmup) {
#'     keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
#'     list(state = state, draws = list(traces = matrix(stats::rnorm(length(keep)),
#'       ncol = 1, dimnames = list(NULL, "x"))))
#'   }, trace_names = "x")
#' set.seed(1)
#' fit <- run_kernel(k, iter = 300, chains = 2)
#' fit
#' summary(fit)
#' @name summary.mcmix_fit
#' @export
print.mcmix_fit <- function(x, ...) {
  fit_header(x)
  cat("Traces:    ", list_some(fit_trace_names(x), 10L), "\n", sep = "")
  cat("Use summary() for posterior summaries and convergence diagnostics.\n")
  fit_guard(x)   # R/guard.R: one warning when the draws mix poorly
  invisible(x)
}

#' @rdname summary.mcmix_fit
#' @export
summary.mcmix_fit <- function(object, probs = c(0.025, 0.5, 0.975), ...) {
  probs <- check_probs(probs)   # R/checks.R
  object <- fit_usable(object)  # R/chains.R: the chains with draws
  q <- diag_input(object)
  codes <- c("mean", "sd", "rhat", "ess_bulk", "ess_tail")
  tab <- vapply(q, function(m) .Call(C_ffi_diag_stats, m, unname(diag_codes[codes])),
                numeric(length(codes)))
  tab <- matrix(tab, nrow = length(codes), dimnames = list(codes, names(q)))
  qs <- vapply(q, function(m) stats::quantile(m, probs, names = FALSE, na.rm = TRUE),
               numeric(length(probs)))
  qs <- matrix(qs, nrow = length(probs))
  df <- data.frame(mean = tab["mean", ], sd = tab["sd", ], row.names = names(q))
  for (i in seq_along(probs)) df[[paste0(format(100 * probs[i]), "%")]] <- qs[i, ]
  df$rhat <- tab["rhat", ]
  df$ess_bulk <- tab["ess_bulk", ]
  df$ess_tail <- tab["ess_tail", ]
  fit_guard(object, stats = t(tab))   # R/guard.R: one warning when the draws mix poorly
  k <- k_large <- NULL
  if (inherits(object, "mcmix_mixture_fit") && "n_clusters" %in% names(q)) {
    k <- cluster_table(q[["n_clusters"]])
    k_large <- large_cluster_table(object)
  }
  structure(list(table = df, n_clusters = k, n_large_clusters = k_large,
    fit = c(unclass(object)[c("kernel", "call", "settings", "timing", "interrupted", "N")],
            list(model_label = fit_model_label(object),
                 prior_label = fit_prior_label(object),
                 chain_time = elapsed_time_of(object),
                 nonfinite = fit_nonfinite(object))),
    draws = fit_draw_counts(object)),
    class = "summary.mcmix_fit")
}

#' @rdname summary.mcmix_fit
#' @export
print.summary.mcmix_fit <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  hdr <- x$fit
  hdr$chains <- lapply(x$draws, function(n) list(traces = matrix(0, n, 0)))
  fit_header(hdr)
  cat("\n")
  tab <- x$table
  out <- tab
  num <- setdiff(names(tab), c("rhat", "ess_bulk", "ess_tail"))
  for (v in num) out[[v]] <- formatC(tab[[v]], digits = digits, format = "g")
  out$rhat <- formatC(tab$rhat, digits = 3, format = "f")
  out$ess_bulk <- formatC(round(tab$ess_bulk), format = "d", big.mark = "")
  out$ess_tail <- formatC(round(tab$ess_tail), format = "d", big.mark = "")
  out$ess_bulk[is.na(tab$ess_bulk)] <- "NA"
  out$ess_tail[is.na(tab$ess_tail)] <- "NA"
  print(out, right = TRUE, quote = FALSE)
  bad <- !is.na(tab$rhat) & tab$rhat > 1.01
  if (any(bad))
    cat("\nR-hat above 1.01 for: ", paste(rownames(tab)[bad], collapse = ", "),
        if (length(x$draws) == 1L)
          " (one chain: its first and second halves disagree; run longer or run more chains).\n"
        else " (chains disagree; run longer).\n", sep = "")
  if (!is.null(x$n_clusters)) {
    cat("\nPosterior distribution of the number of clusters:\n")
    print(x$n_clusters)
  }
  if (!is.null(x$n_large_clusters)) {
    m <- attr(x$n_large_clusters, "min_size")
    cat("\n... of those holding at least 1% of the observations (", m, " or more of ",
        attr(x$n_large_clusters, "n_obs"), "):\n", sep = "")
    print(x$n_large_clusters)
  }
  invisible(x)
}

# The posterior distribution of the number of clusters holding at least 1%
# of the observations, from the stored labels (NULL when the fit stores no
# labels, stores them for a subset only, or has at most 100 observations,
# where 1% is at most one observation and this is the number of clusters).
# A Dirichlet process posterior spreads over clusters of one or a few
# observations beside the ones the data support (Miller and Harrison 2013),
# so the number of clusters alone overstates what a user would call the
# clusters of the data.
large_cluster_table <- function(fit) {
  labs <- lapply(fit$chains, function(ch)
    if (is.null(ch$labels_subset) && is.matrix(ch$labels) && nrow(ch$labels) > 0L) ch$labels)
  if (!length(labs) || any(vapply(labs, is.null, logical(1)))) return(NULL)
  n <- ncol(labs[[1L]])
  m <- ceiling(0.01 * n)
  if (m < 2L) return(NULL)
  k <- unlist(lapply(labs, function(l)
    vapply(seq_len(nrow(l)), function(r) sum(tabulate(l[r, ]) >= m), integer(1))))
  p <- prop.table(table(n_clusters = k))
  class(p) <- c("mcmix_cluster_table", class(p))
  structure(p, min_size = m, n_obs = n)
}

# The posterior distribution of the number of clusters in summary(): a
# proportion table, printed with 3 decimals (the values are kept exact).
cluster_table <- function(k) {
  p <- prop.table(table(n_clusters = as.integer(k)))
  class(p) <- c("mcmix_cluster_table", class(p))
  p
}

#' @export
print.mcmix_cluster_table <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  p <- unclass(x)
  print(structure(formatC(as.numeric(p), digits = digits, format = "f"),
                  names = names(p)), quote = FALSE)
  invisible(x)
}
