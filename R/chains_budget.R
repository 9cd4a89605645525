# Memory and work budgets (options `mcmix.memory_budget` and
# `mcmix.work_budget`, R/options.R): sizes a user controls are
# checked before anything is allocated.

# ---------------------------------------------------------------------------
# Resource budget
# ---------------------------------------------------------------------------

# The budget in bytes (option `mcmix.memory_budget`, R/options.R).
memory_budget <- function() mcmix_option("memory_budget")

# Work budget: units of work (label evaluations) per sweep a sampler may
# need (option `mcmix.work_budget`, R/options.R).
work_budget <- function() mcmix_option("work_budget")

# Refuse a request of `bytes` bytes (or units of work) beyond the budget,
# naming the argument that asked for it.
check_budget <- function(bytes, arg, what, fix = sprintf("lower `%s`", arg)) {
  budget <- memory_budget()
  if (is.na(bytes) || bytes > budget)
    stop(sprintf(paste0("`%s` asks for %s, which needs about %s, more than the memory ",
                        "budget of %s (option `mcmix.memory_budget`); %s or ",
                        "raise the budget with options(mcmix.memory_budget = %.3g)."),
                 arg, what, format_bytes(bytes), format_bytes(budget), fix,
                 max(bytes, 1) * 1.01), call. = FALSE)
  invisible(TRUE)
}

# Refuse `units` units of work per sweep (about one floating-point operation
# each) beyond the work budget, naming the argument that asked for them.
check_work <- function(units, arg, what, fix = sprintf("lower `%s`", arg),
                       per = "iteration") {
  budget <- work_budget()
  if (is.na(units) || units > budget)
    stop(sprintf(paste0("`%s` asks for %s, about %s units of work per %s, more than ",
                        "the work budget of %s (option `mcmix.work_budget`); %s or ",
                        "raise the budget with options(mcmix.work_budget = %.3g)."),
                 arg, what, format_count(units), per, format_count(budget), fix,
                 max(units, 1) * 1.01), call. = FALSE)
  invisible(TRUE)
}

# Predictions at `points` new points for each of `draws` stored draws (a
# draws x points matrix and its quantiles; a predictive density costs some
# 32 units of work per point and draw), refused beyond the memory or work
# budget naming `arg`.
check_predict_budget <- function(draws, points, arg = "newdata") {
  what <- sprintf("predictions at %s points for each of %s stored draws",
                  format_count(points), format_count(draws))
  fix <- sprintf("use fewer points in `%s`", arg)
  check_budget(8 * 4 * as.double(draws) * as.double(points), arg, what,
               paste(fix, "or fewer draws"))
  check_work(32 * as.double(points), arg, what, fix, per = "stored draw")
}

# The stored draws of a run: chains x kept draws x (traces + labels)
# values, 8 bytes a trace value and 4 a label. A run holds them about three
# times at its peak (the chunks' draws, their bound copy and the chains
# collected into the fit), which the estimate counts (measured peaks of
# 15 large calls: tools/budget-check.R, bench/RESULTS-notes.md).
# `width_arg`: the argument that sets the number of traces (a target's
# dimension, from `init`), blamed when even a run of 1000 kept draws per
# chain (the samplers' default `iter`) would not fit; `labels_arg`: the
# argument that asks for the labels (default `labels`).
check_draws_budget <- function(chains, iter, thin, n_traces, n_labels, width_arg = NULL,
                               labels_arg = NULL) {
  per_draw <- 3 * (8 * max(1, n_traces) + 4 * n_labels)
  kept <- floor(as.double(iter) / thin)
  check_budget(as.double(chains) * 2000, "chains",
               sprintf("%s chains", format_count(chains)))
  if (is.character(width_arg) && length(width_arg) == 1L)
    check_budget(as.double(chains) * min(kept, 1000) * per_draw, width_arg,
                 sprintf("%s kept draws of a target of dimension %s in each of %s chains",
                         format_count(min(kept, 1000)), format_count(n_traces),
                         format_count(chains)),
                 "use a target of lower dimension (or fewer `iter`, a larger `thin`)")
  # the traces alone within the budget: it is the stored labels that are not
  if (n_labels > 0 && as.double(chains) * kept * 8 * max(1, n_traces) <= memory_budget())
    if (is.null(labels_arg))
      check_budget(as.double(chains) * kept * per_draw, "labels",
                   sprintf("the cluster labels of %s observations at each of %s kept draws in each of %s chains",
                           format_count(n_labels), format_count(kept), format_count(chains)),
                   paste0("use `labels = FALSE` (the traces and the final partition are kept), ",
                          "`labels = \"online\"` (dp_mixture(): the labels of a subsample and an ",
                          "online point estimate), a larger `thin`"))
    else
      check_budget(as.double(chains) * kept * per_draw, labels_arg,
                   sprintf("%s values at each of %s kept draws in each of %s chains",
                           format_count(n_labels), format_count(kept), format_count(chains)),
                   sprintf("use `%s = FALSE`, a larger `thin`", labels_arg))
  check_budget(as.double(chains) * kept * per_draw, "iter",
               sprintf("%s kept draws of %d values in each of %s chains",
                       format_count(kept), max(1, n_traces) + n_labels,
                       format_count(chains)))
}

# Whether the default `labels = TRUE` fits: the stored labels of `chains`
# chains (N values of 8 bytes at each kept draw) within half the memory
# budget.  A mixture sampler called without `labels` keeps them only then
# (labels_default()).
labels_fit <- function(chains, iter, thin, N) {
  labels_bytes(chains, iter, thin, N) <= memory_budget() / 2
}
labels_bytes <- function(chains, iter, thin, N)
  as.double(chains) * floor(as.double(iter) / thin) * 8 * N

# `labels` of a DP mixture sampler: as given, or when not given (`given`
# FALSE) TRUE unless the labels would not fit (labels_fit()); then
# "online" (the labels of a subsample and an online point estimate,
# R/mixture_online.R), said in a message. `psm = TRUE` needs them either
# way.
labels_default <- function(labels, given, psm, chains, iter, thin, N) {
  if (given || isTRUE(psm)) return(labels)
  # bad values are refused later, by the checks that name them
  num <- function(v) is.numeric(v) && length(v) == 1L && is.finite(v) && v >= 1
  if (!(num(chains) && num(iter) && num(thin) && num(N)) || labels_fit(chains, iter, thin, N))
    return(labels)
  S <- length(online_settings(N, chains, iter, thin)$subset)
  message(sprintf(paste0(
    "Cluster labels are not stored for every observation: %s observations at each of %s ",
    "kept draws would need %s, more than half the memory budget of %s (option ",
    "`mcmix.memory_budget`). Kept instead (`labels = \"online\"`): the labels of %s evenly ",
    "spaced observations at every kept draw (used by psm(), partition() and ",
    "credible_ball()) and an online point estimate of the partition of all of them ",
    "(online_partition()). Give `labels = TRUE` with a larger `thin` to store every label, ",
    "or `labels = FALSE` to keep only the traces and the final partition."),
    format_count(N), format_count(floor(as.double(iter) / thin)),
    format_bytes(labels_bytes(chains, iter, thin, N)), format_bytes(memory_budget()),
    format_count(S)))
  "online"
}

# The iterations of a run: warm-up plus kept iterations per chain, times
# the kernel's work per iteration (its field `work`, units of the work
# budget; 1 when it gives none), refused beyond the work budget naming
# the longer of `burnin` and `iter` (`iter` for extend()).
check_run_work <- function(burnin, iter, work = NULL, arg = NULL) {
  w <- if (is.numeric(work) && length(work) == 1L && is.finite(work) && work > 0) work else 1
  total <- as.double(burnin) + as.double(iter)
  if (is.null(arg)) arg <- if (as.double(burnin) > as.double(iter)) "burnin" else "iter"
  check_work(total * w, arg,
             sprintf("%s iterations (burn-in %s, kept %s)", format_count(total),
                     format_count(burnin), format_count(iter)),
             fix = sprintf("lower `%s`", arg), per = "chain")
}
