# Hierarchical Dirichlet process mixtures (src/model_hdp*.c through
# src/ffi_hdp.c): Gibbs sampling in the direct-assignment representation
# of Teh, Jordan, Beal and Blei (2006, section 5.3).
#
# Sampler state of one chain (a plain list):
#   z      integer vector (N), cluster of each observation in the overall
#          order of the data, 0-based, in the INTERNAL cluster order of the
#          C engine (continuing a chain needs exactly this order);
#   beta   global weights of the K represented clusters, then the weight
#          beta_u of all unrepresented ones (length K + 1, sums to 1);
#   gamma, alpha  current concentrations.
# The table counts m_jk are redrawn from scratch every sweep, so they are
# not part of the state. Traces: n_clusters, gamma, alpha and log_lik, the
# collapsed log p(x | partition) (sum over clusters of the family's log
# marginal likelihood). Labels (1-based, internal order) per kept draw.

#' Hierarchical Dirichlet process mixture model
#'
#' A mixture model for grouped data (Teh, Jordan, Beal and Blei 2006):
#' \deqn{G_0 \sim DP(\gamma, H), \quad G_j \sim DP(\alpha, G_0), \quad
#'   \theta_{ji} \sim G_j, \quad x_{ji} \sim F(\theta_{ji}),}
#' for groups \eqn{j = 1, \ldots, J}, with \eqn{F} and \eqn{H} given by a
#' conjugate component `family`. The groups share one set of clusters
#' (the atoms of \eqn{G_0}) but each group has its own cluster weights, so
#' a cluster may appear in several groups or in one only. Fit it with
#' [sample_posterior()] and see which clusters are shared with
#' [shared_clusters()].
#'
#' @param family A component family, e.g. [gaussian_niw()].
#' @param gamma Concentration of the top-level DP: a positive number, or
#'   [gamma_prior()] under which it is sampled (Escobar and West 1995),
#'   starting from its mean `shape / rate`, which must be a positive
#'   finite number.
#' @param alpha Concentration of the group-level DPs (one for all groups):
#'   a positive number, or [gamma_prior()] under which it is sampled
#'   (Teh et al. 2006, appendix A).
#' @return An object of class `mcmix_hdp`.
#' @seealso [sample_posterior.mcmix_hdp()], [shared_clusters()]
#' @examples
#' hdp_mixture(gaussian_mean(cov = 1), gamma = 1, alpha = gamma_prior(1, 1))
#' @export
hdp_mixture <- function(family, gamma = 1, alpha = 1) {
  check_family(family)
  if (isTRUE(family$nonconjugate))
    stop(sprintf("`family` must be a conjugate family (such as gaussian_niw()); %s is not.",
                 family_label(family)), call. = FALSE)
  gamma <- hdp_check_conc(gamma, "gamma")
  alpha <- hdp_check_conc(alpha, "alpha")
  structure(list(family = family, gamma = gamma, alpha = alpha),
            class = c("mcmix_hdp", "mcmix_model"))
}

#' @export
print.mcmix_hdp <- function(x, ...) {
  cat("Hierarchical Dirichlet process mixture\n")
  cat("  family: ", family_label(x$family), "\n", sep = "")
  cat("  gamma:  ", format(x$gamma), "\n", sep = "")
  cat("  alpha:  ", format(x$alpha), "\n", sep = "")
  invisible(x)
}

#' Fit a hierarchical Dirichlet process mixture
#'
#' Gibbs sampling in the direct-assignment representation of Teh et al.
#' (2006, section 5.3): each sweep reassigns every observation given the
#' global weights \eqn{\beta}, draws the table counts by the auxiliary
#' (Antoniak) method, then the concentrations (when they have Gamma priors)
#' and \eqn{\beta \mid m \sim Dirichlet(m_{\cdot 1}, \ldots, m_{\cdot K},
#' \gamma)}.
#'
#' With `algorithm = "split_merge"` (the default below 20,000
#' observations, `getOption("mcmix.subcluster_min_n")`, as for
#' [dp_mixture()]) each sweep starts with
#' split-merge moves of the global clusters (Jain and Neal 2004; Dahl
#' 2003; for the HDP see Wang and Blei 2012), each one of three kinds with
#' equal probability: a split divides one cluster, and its weight
#' \eqn{\beta_k}, in two by a sequential allocation of its members (or
#' restricted Gibbs scans, `dp_control(proposal = "restricted_gibbs")`); a
#' merge joins two clusters; a reallocation re-splits the members of two
#' clusters between them. With `algorithm = "subcluster"` a split follows
#' the two sub-clusters of a cluster (a 2-means split of its members, as in
#' `dp_mixture()`'s `"subcluster"` algorithm), and as many sequentially
#' allocated split and merge proposals follow in which the merge partner of
#' a cluster is drawn by how much the merge would raise the posterior and
#' the split's weight share is drawn before its members are allocated by
#' their groups' Chinese restaurant weights: these undo the cuts of true
#' clusters and the duplicate clusters (one cluster of the data held by two
#' clusters that share the groups) that a sweep from few clusters leaves,
#' and make this the default for large data (on a million
#' observations in 1000 groups from 10 clusters, 10 or 11 clusters after 40
#' sweeps from one cluster, at about 1.1-1.2 times the cost of a Gibbs
#' sweep; see `bench/RESULTS.md` in the sources). All are Metropolis-Hastings
#' moves on the joint posterior of the partition and \eqn{\beta}, so the
#' chain has the stationary distribution of plain Gibbs sampling
#' (`algorithm = "gibbs"`), but it finds clusters that moves of single
#' observations reach only slowly on large data (a chain started in one
#' cluster).
#'
#' @param model An [hdp_mixture()].
#' @param data The observations: a list of groups (each a vector, matrix or
#'   data frame the family accepts, one observation per element or row),
#'   or all observations together with `group` giving the group of each.
#' @param group When `data` is not a list of groups: a vector (factor,
#'   character or integer) with the group of every observation.
#' @param iter Number of kept-phase iterations per chain.
#' @param burnin Number of burn-in iterations per chain, run before the kept ones
#'   and not kept (default `floor(iter / 2)`; see [mcmix-run-settings]).
#' @param thin Keep every `thin`-th iteration.
#' @param chains Number of chains.
#' @param init `"one"` (all observations in one cluster) or a vector of
#'   initial cluster labels, one per observation.
#' @param algorithm `"split_merge"` (Gibbs sweeps with split, merge and
#'   reallocation moves), `"subcluster"` (Gibbs sweeps with sub-cluster
#'   split and merge moves) or `"gibbs"` (Gibbs sweeps only). By default
#'   `"subcluster"` from `getOption("mcmix.subcluster_min_n", 20000)`
#'   observations on, `"split_merge"` below.
#' @param control A [dp_control()] whose `moves`, `proposal` and `t`
#'   (`"split_merge"`) or `sc_moves` (`"subcluster"`: that many sub-cluster
#'   proposals and as many sequentially allocated ones) set the moves per
#'   sweep, or `NULL`: 15 sequentially allocated moves per sweep for
#'   `"split_merge"`, 4 + 4 for `"subcluster"`.
#' @param labels Keep the cluster labels of every kept draw.
#' @param cores,backend,progress Run settings, as every sampler takes them
#'   (see [mcmix-run-settings] and [run_kernel()]): the number of chains run
#'   at the same time (option `mcmix.cores`), how they run in parallel
#'   (option `mcmix.backend`), and whether to report progress (default
#'   `interactive()`).
#' @param ... Unused; unknown arguments are refused.
#' @return An `mcmix_fit` of class `mcmix_hdp_fit` with traces
#'   `n_clusters`, `gamma`, `alpha` and `log_lik` (the marginal
#'   log-likelihood of the data given the partition) and, with `labels`,
#'   the cluster of every observation (in the overall order of the data:
#'   groups of a list one after the other) for every kept draw. The final
#'   state of each chain counts the split-merge moves accepted
#'   (`n_accept`) and proposed (`n_prop`).
#' @references Teh, Y. W., Jordan, M. I., Beal, M. J. and Blei, D. M.
#'   (2006). Hierarchical Dirichlet processes. *JASA* 101, 1566--1581.
#'
#'   Dahl, D. B. (2003). An improved merge-split sampler for conjugate
#'   Dirichlet process mixture models. Technical Report 1086, Department
#'   of Statistics, University of Wisconsin.
#'
#'   Jain, S. and Neal, R. M. (2004). A split-merge Markov chain Monte
#'   Carlo procedure for the Dirichlet process mixture model. *JCGS* 13,
#'   158--182.
#'
#'   Chang, J. and Fisher, J. W. (2013). Parallel sampling of DP mixture
#'   models using sub-cluster splits. *NeurIPS* 26.
#'
#'   Wang, C. and Blei, D. M. (2012). A split-merge MCMC algorithm for the
#'   hierarchical Dirichlet process. arXiv:1201.1657.
#' @examples
#' set.seed(1)
#' groups <- list(a = c(rnorm(20, -4), rnorm(20)), b = c(rnorm(20), rnorm(20, 4)))
#' fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
#'                         groups, iter = 100, progress = FALSE)
#' shared_clusters(fit)
#' @export
sample_posterior.mcmix_hdp <- function(model, data, group = NULL, iter = 1000,
                                       burnin = floor(iter / 2), thin = 1,
                                       chains = 1, init = "one",
                                       algorithm = c("split_merge", "subcluster", "gibbs"),
                                       control = NULL,
                                       progress = interactive(), labels = TRUE,
                                       cores = mcmix_option("cores"),
                                       backend = mcmix_option("backend"), ...) {
  check_dots(list(...))   # R/checks.R
  grouped <- hdp_grouped_data(model$family, data, group)
  labels <- check_flag(labels, "labels")
  algorithm <- if (missing(algorithm)) hdp_default_algorithm(grouped) else
    match_choice(algorithm, c("split_merge", "subcluster", "gibbs"), "algorithm")
  if (!is.null(control) && !inherits(control, "mcmix_dp_control"))
    stop(sprintf("`control` must be NULL or a dp_control(), not %s.", describe_value(control)),
         call. = FALSE)
  kernel <- hdp_kernel(model, grouped, init, labels, algorithm, control)
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin,
                    chains = chains, cores = cores, backend = backend,
                    progress = progress, labels = labels, psm = FALSE,
                    model = model, data = grouped$prepared$x, call = match.call(), kind = "hdp")
  grouped$prepared$x <- NULL
  fit$family <- grouped$prepared
  fit$group <- grouped$group
  fit$N <- length(grouped$group)
  fit
}

# Data and groups: list(prepared = family_prepare(), group = factor).
hdp_grouped_data <- function(family, data, group) {
  check_family(family)
  if (is.list(data) && !is.data.frame(data)) {
    if (!is.null(group))
      stop("`group` must be NULL when `data` is a list of groups.", call. = FALSE)
    if (length(data) < 1L)
      stop("`data` must hold at least one group.", call. = FALSE)
    bad <- which(!vapply(data, function(d) (is.atomic(d) && !is.null(d)) || is.data.frame(d),
                         logical(1)))
    if (length(bad))
      stop(sprintf("`data` must be a list of groups, each a vector or matrix of observations; group %d is %s.",
                   bad[1L], describe_value(data[[bad[1L]]])), call. = FALSE)
    sizes <- vapply(data, NROW, integer(1))
    if (any(sizes < 1L))
      stop(sprintf("`data` must not hold empty groups (group %d is empty).",
                   which(sizes < 1L)[1L]), call. = FALSE)
    nms <- names(data)
    if (is.null(nms) || anyNA(nms) || any(!nzchar(nms))) nms <- as.character(seq_along(data))
    is_vec <- vapply(data, function(d) is.null(dim(d)), logical(1))
    pooled <- if (all(is_vec)) do.call(c, unname(data)) else
      do.call(rbind, lapply(unname(data), function(d) if (is.null(dim(d))) matrix(d, ncol = 1L) else d))
    group <- factor(rep.int(nms, sizes), levels = unique(nms))
    prepared <- family_prepare(family, pooled)
  } else {
    if (is.null(group))
      stop("`group` must give the group of every observation when `data` is not a list of groups.",
           call. = FALSE)
    prepared <- family_prepare(family, data)
    if (!is.atomic(group) || is.matrix(group) || length(group) != nrow(prepared$x) || anyNA(group))
      stop(sprintf("`group` must be a vector without missing values with one entry per observation (%d), not %s.",
                   nrow(prepared$x), describe_value(group)), call. = FALSE)
    group <- droplevels(as.factor(group))
  }
  list(prepared = prepared, group = group)
}

# One chunk of the compiled sampler: see src/ffi_hdp.c.
hdp_step_c <- function(spec, xt, group0, state, n, thin, offset, warmup,
                       keep_labels = TRUE) {
  spec$keep_labels <- isTRUE(keep_labels)
  if (is.null(state$n_accept)) state$n_accept <- 0
  if (is.null(state$n_prop)) state$n_prop <- 0
  state <- state[c("z", "beta", "gamma", "alpha", "stats", "n_accept", "n_prop")]
  names(state) <- c("z", "beta", "gamma", "alpha", "stats", "n_accept", "n_prop")
  .Call(C_ffi_hdp_step, spec, xt, group0, state, chunk_ctrl(n, thin, offset, warmup))
}

# Settings of the compiled sampler: the family, the concentrations' priors
# (c(shape, rate), or numeric(0) when fixed) and the split-merge moves.
# The HDP's default algorithm: sub-cluster moves for large data (the DP
# mixture's threshold, mcmix_option("subcluster_min_n"), 20000 by default
# observations), split-merge moves below.
hdp_default_algorithm <- function(grouped) {
  n <- length(grouped$group)
  if (n >= mcmix_option("subcluster_min_n")) "subcluster" else "split_merge"
}

hdp_spec <- function(model, prepared, J, algorithm = "split_merge", control = NULL) {
  pr <- function(v) if (inherits(v, "mcmix_gamma_prior")) c(v$shape, v$rate) else numeric(0)
  c(list(family = prepared$name, hyper = as.double(prepared$hyper), J = as.integer(J),
         gamma_prior = as.double(pr(model$gamma)), alpha_prior = as.double(pr(model$alpha))),
    hdp_control_values(algorithm, control), list(keep_labels = TRUE))
}

# The moves of `algorithm` with the settings of `control` (a dp_control(),
# or NULL): "split_merge" `moves` restricted-pass proposals per sweep (kind
# 1; NULL: 15 sequentially allocated ones), "subcluster" sc_moves
# sub-cluster proposals and as many sequentially allocated ones with merge
# partners by gain (kind 2), "gibbs" none.
hdp_control_values <- function(algorithm, control) {
  if (identical(algorithm, "gibbs")) return(list(moves = 0L, kind = 1L, t = 0L, sams = 1L))
  if (is.null(control)) control <- dp_control(moves = 15L)
  if (identical(algorithm, "subcluster")) {
    # sc_moves 2-means proposals, then as many sequentially allocated ones
    # with merge partners by gain (`sams`, kind 2; src/model_hdp_sams.c)
    sc <- as.integer(if (is.null(control$sc_moves)) 4L else control$sc_moves)
    return(list(moves = sc, kind = 2L, t = 0L, sams = sc))
  }
  list(moves = as.integer(control$moves), kind = 1L, t = as.integer(control$t),
       sams = as.integer(identical(control$proposal, "sams")))
}

hdp_initial_conc <- function(v) if (inherits(v, "mcmix_gamma_prior")) v$shape / v$rate else v

# A concentration of hdp_mixture(): a positive number, or a gamma_prior()
# whose mean shape / rate, the value a chain starts from
# (hdp_initial_conc()), is a positive finite double (shape 1e300 with rate
# 1e-300 overflowed to Inf, the reverse underflowed to 0, and the chain
# failed with an internal error).
hdp_check_conc <- function(x, arg) {
  x <- check_conc_or_prior(x, arg)
  m <- hdp_initial_conc(x)
  if (!(is.finite(m) && m >= .Machine$double.xmin))
    stop_input(sprintf(paste0("`%s` must be a positive number or a gamma_prior(shape, rate) ",
                              "whose mean shape / rate (the starting value) is between %g and ",
                              "%g, not %s with mean %s."), arg, .Machine$double.xmin,
                       .Machine$double.xmax, format(x), format(m)), arg)
  x
}

hdp_kernel <- function(model, grouped, init, keep_labels = TRUE,
                       algorithm = "split_merge", control = NULL) {
  N <- nrow(grouped$prepared$x)
  group0 <- as.integer(grouped$group) - 1L
  spec <- hdp_spec(model, grouped$prepared, nlevels(grouped$group), algorithm, control)
  grouped <- NULL   # the kernel holds no data (its `bind`, fit_kernel() in R/chains.R)
  if (is.numeric(init)) {
    if (length(init) != N || anyNA(init) || any(init != floor(init)))
      stop(sprintf("`init` must give one whole-number label per observation (%d), not %s.",
                   N, describe_value(init)), call. = FALSE)
    z0 <- match(init, unique(init)) - 1L
    init <- NULL
  } else if (identical(init, "one")) {
    z0 <- NULL   # integer(N), made by each chain's init
  } else {
    stop(sprintf("`init` must be \"one\" or a label vector, not %s.", describe_value(init)),
         call. = FALSE)
  }
  g0 <- hdp_initial_conc(hdp_check_conc(model$gamma, "gamma"))
  a0 <- hdp_initial_conc(hdp_check_conc(model$alpha, "alpha"))
  K0 <- if (is.null(z0)) 1L else max(z0) + 1L
  # the step on the dim x N data xt
  step_on <- function(xt) function(state, n, thin, offset, warmup) {
    # The chunk is cut after every kept iteration to keep the global
    # weights beta of each kept draw (for predict()); the sampler is
    # chunk-invariant, so the draws are those of one call.
    ends <- if (warmup) n else
      unique(c(which((offset + seq_len(n)) %% thin == 0L), n))
    pieces <- vector("list", length(ends))
    done <- 0L
    for (p in seq_along(ends)) {
      r <- hdp_step_c(spec, xt, group0, state, ends[p] - done, thin, offset + done,
                      warmup, keep_labels)
      state <- r[c("z", "beta", "gamma", "alpha", "stats", "n_accept", "n_prop")]
      pieces[[p]] <- list(traces = r$traces, labels = r$labels,
                          extra = if (!warmup && nrow(r$traces)) list(list(beta = r$beta)))
      done <- ends[p]
    }
    tr <- do.call(rbind, lapply(pieces, `[[`, "traces"))
    colnames(tr) <- c("n_clusters", "gamma", "alpha", "log_lik")
    labs <- do.call(rbind, lapply(pieces, `[[`, "labels"))
    list(state = state,
         draws = list(traces = tr, labels = labs,
                      extra = do.call(c, lapply(pieces, `[[`, "extra"))))
  }
  new_kernel(
    name = "hdp_direct",
    init = function(chain) {
      # beta from its conditional given one table per cluster
      g <- stats::rgamma(K0 + 1L, c(rep(1, K0), g0))
      list(z = if (is.null(z0)) integer(N) else z0,
           beta = if (all(g == 0)) rep(1 / (K0 + 1), K0 + 1L) else g / sum(g),
           gamma = g0, alpha = a0, n_accept = 0, n_prop = 0)
    },
    step = unbound_step,
    trace_names = c("n_clusters", "gamma", "alpha", "log_lik"),
    # concentrations without a prior are constant: kept in the traces, left
    # out of the draws (coda, posterior, diagnostics)
    fixed_traces = c(if (!inherits(model$gamma, "mcmix_gamma_prior")) "gamma",
                     if (!inherits(model$alpha, "mcmix_gamma_prior")) "alpha"),
    spec = spec, N = N,
    bind = function(data) {
      xt <- t(data)
      storage.mode(xt) <- "double"
      list(step = step_on(xt))
    })
}

#' @export
print.mcmix_hdp_fit <- function(x, ...) {
  s <- x$settings
  cat("HDP mixture fit: ", x$N, " observations in ", nlevels(x$group), " groups\n",
      sep = "")
  cat("  family: ", family_label(x$model$family), "\n", sep = "")
  cat("  ", s$chains, " chain", if (s$chains > 1L) "s", ", ", s$iter,
      " iterations after ", s$burnin, " burn-in (thin ", s$thin, ")\n", sep = "")
  tr <- do.call(rbind, lapply(x$chains, function(ch) ch$traces))
  if (!is.null(tr) && nrow(tr)) {
    cat("  posterior mean of n_clusters: ", format(mean(tr[, "n_clusters"]), digits = 3),
        ", gamma: ", format(mean(tr[, "gamma"]), digits = 3),
        ", alpha: ", format(mean(tr[, "alpha"]), digits = 3), "\n", sep = "")
  }
  fit_guard(x)   # R/guard.R: one warning when the draws mix poorly
  invisible(x)
}

#' Clusters shared across groups
#'
#' Cross-tabulates the clusters of an HDP fit against the groups: the number
#' of observations of each group in each cluster, for the last state of a
#' chain or for a partition you supply (e.g. a point estimate computed from
#' the kept labels).
#'
#' @param fit A fit from [sample_posterior()] on an [hdp_mixture()].
#' @param labels Optional cluster labels, one per observation in the
#'   overall order of the data; by default the final state of `chain`.
#' @param chain Which chain's final state to use.
#' @return A contingency table (class `table`), clusters in rows (numbered
#'   by first appearance), groups in columns, with attribute `shared`: a
#'   logical vector telling which clusters occur in two or more groups.
#' @examples
#' set.seed(2)
#' groups <- list(a = c(rnorm(15, -4), rnorm(15)), b = c(rnorm(15), rnorm(15, 4)))
#' fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
#'                         groups, iter = 50, progress = FALSE)
#' tab <- shared_clusters(fit)
#' tab
#' attr(tab, "shared")
#' @export
shared_clusters <- function(fit, labels = NULL, chain = 1) {
  if (!inherits(fit, "mcmix_hdp_fit"))
    stop(sprintf("`fit` must be an HDP fit from sample_posterior(hdp_mixture(...)), not %s.",
                 describe_value(fit)), call. = FALSE)
  if (is.null(labels)) {
    chain <- check_count(chain, "chain", 1L, length(fit$chains))
    labels <- fit$chains[[chain]]$state$z
  } else if (!is.atomic(labels) || length(labels) != fit$N || anyNA(labels)) {
    stop(sprintf("`labels` must hold one cluster label per observation (%d), not %s.",
                 fit$N, describe_value(labels)), call. = FALSE)
  }
  cl <- factor(match(labels, unique(labels)))
  tab <- table(cluster = cl, group = fit$group)
  attr(tab, "shared") <- stats::setNames(rowSums(tab > 0) >= 2L, rownames(tab))
  tab
}

#' Posterior predictive density of an HDP mixture
#'
#' The density of a new observation in one of the fitted groups, or in a new
#' group, averaged over the kept draws. In the direct-assignment
#' representation (Teh et al. 2006, section 5.3), given the partition
#' \eqn{z}, the global weights \eqn{\beta} (\eqn{\beta_u} for the clusters
#' not represented) and the concentration \eqn{\alpha} of a kept draw, a new
#' observation in group \eqn{j} with \eqn{n_j} members, \eqn{n_{jk}} of
#' them in cluster \eqn{k}, has density
#' \deqn{\sum_k \frac{n_{jk} + \alpha \beta_k}{n_j + \alpha} p(x \mid x_k)
#'   + \frac{\alpha \beta_u}{n_j + \alpha} p(x),}
#' with \eqn{p(x \mid x_k)} the family's collapsed predictive given the
#' members of cluster \eqn{k} and \eqn{p(x)} its prior predictive. In a new
#' group the weights are \eqn{\beta_k} and \eqn{\beta_u}.
#'
#' @param object A fit from [sample_posterior()] on an [hdp_mixture()]
#'   (with `labels = TRUE`, the default).
#' @param newdata New observations, in the form of the fitted data.
#' @param group The group of the new observations: a name or number of a
#'   fitted group, or `NULL` (the default) for a new group.
#' @param level Credible level of the pointwise band, in (0, 1).
#' @param ... Unused (an error if given).
#' @return A data frame with columns `density` (posterior mean), `lower` and
#'   `upper` (the band over draws), one row per new observation, and
#'   attribute `draws` (draws x points).
#' @references Teh, Y. W., Jordan, M. I., Beal, M. J. and Blei, D. M.
#'   (2006). Hierarchical Dirichlet processes. *JASA* 101, 1566--1581.
#' @examples
#' set.seed(1)
#' groups <- list(a = c(rnorm(20, -4), rnorm(20)), b = c(rnorm(20), rnorm(20, 4)))
#' fit <- sample_posterior(hdp_mixture(gaussian_mean(cov = 1, prior_cov = 25)),
#'                         groups, iter = 100, progress = FALSE)
#' predict(fit, c(-4, 0, 4), group = "a")
#' predict(fit, c(-4, 0, 4))
#' @export
predict.mcmix_hdp_fit <- function(object, newdata, group = NULL, level = 0.95, ...) {
  check_no_dots(...)
  level <- check_prob(level, "level")
  if (missing(newdata))
    stop("`newdata` is missing: give the points at which to predict.", call. = FALSE)
  prep <- object$family
  newx <- with_arg_renamed(fam_convert_with(prep, newdata, min_rows = 1L))   # R/conditions.R
  lev <- levels(object$group)
  j <- NULL
  if (!is.null(group)) {
    j <- if (is.numeric(group) && length(group) == 1L && group %in% seq_along(lev)) group
         else if (is.character(group) && length(group) == 1L) match(group, lev) else NA
    if (is.na(j))
      stop(sprintf("`group` must be one of the fitted groups (%s) or NULL for a new group, not %s.",
                   list_some(dQuote(lev, FALSE)), describe_value(group)),
           call. = FALSE)
  }
  labs <- lapply(object$chains, `[[`, "labels")
  betas <- lapply(object$chains, `[[`, "extra")
  if (any(vapply(labs, is.null, logical(1))) ||
      any(vapply(seq_along(labs), function(c) length(betas[[c]]) != nrow(labs[[c]]), logical(1))))
    stop("`object` has no stored labels and weights per draw: sample with `labels = TRUE`.",
         call. = FALSE)
  z <- do.call(rbind, labs)
  check_predict_budget(nrow(z), nrow(newx))   # R/chains_budget.R
  beta <- lapply(do.call(c, betas), `[[`, "beta")
  alpha <- unlist(lapply(object$chains, function(ch) ch$traces[seq_len(nrow(ch$labels)), "alpha"]))
  x <- object$data
  hyper <- as.double(prep$hyper)
  logpred <- function(rows)
    .Call(C_ffi_family_eval, prep$name, hyper, rows, "log_predictive", newx)
  prior <- exp(logpred(x[0L, , drop = FALSE]))
  in_j <- if (is.null(j)) NULL else as.integer(object$group) == j
  dens <- t(vapply(seq_len(nrow(z)), function(s) {
    b <- beta[[s]]
    K <- length(b) - 1L
    w <- b
    if (!is.null(j)) {
      njk <- tabulate(z[s, in_j], K)
      w <- (c(njk, 0) + alpha[s] * b) / (sum(in_j) + alpha[s])
    }
    occ <- tabulate(z[s, ], K) > 0L
    out <- (w[K + 1L] + sum(w[seq_len(K)][!occ])) * prior   # unoccupied atoms: prior
    for (k in which(occ))
      out <- out + w[k] * exp(logpred(x[z[s, ] == k, , drop = FALSE]))
    out
  }, numeric(nrow(newx))))
  dens <- matrix(dens, nrow = nrow(z))
  band <- apply(dens, 2L, stats::quantile, c((1 - level) / 2, (1 + level) / 2), names = FALSE)
  structure(data.frame(density = colMeans(dens), lower = band[1L, ], upper = band[2L, ]),
            draws = dens)
}
