# Component parameters of finite and Dirichlet process mixture fits, drawn
# per kept iteration from their conditional posterior given the stored
# partition, and the relabelling of finite-mixture components (ECR).

#' Component parameters of a mixture fit
#'
#' The collapsed samplers integrate the component parameters out; this
#' function brings them back. For every kept draw \eqn{s} of the partition
#' \eqn{z^{(s)}} it draws the weights and the parameters of every component
#' from their joint conditional posterior given \eqn{z^{(s)}} and the data,
#' so the result is a draw from the joint posterior of partition, weights
#' and parameters:
#' * parameters: \eqn{\theta_k \sim p(\theta \mid x_i : z_i = k)}, the
#'   family's exact conjugate posterior given the members of component
#'   \eqn{k} (its prior for an empty component), drawn by the family's C
#'   descriptor (`param_draw`), for example mean and covariance under
#'   [gaussian_niw()] (Normal--inverse-Wishart; Gelman et al. 2013, BDA3
#'   section 3.6), the rates under [poisson_gamma()];
#' * weights of a finite mixture with a Dirichlet\eqn{(a_1, \dots, a_K)}
#'   prior: \eqn{w \sim \mathrm{Dirichlet}(a_1 + n_1, \dots, a_K + n_K)};
#' * weights of a Dirichlet process (Pitman--Yor with discount \eqn{d})
#'   mixture with \eqn{K} occupied clusters: \eqn{(w_1, \dots, w_K, w_0)
#'   \sim \mathrm{Dirichlet}(n_1 - d, \dots, n_K - d, \alpha + d K)}, where
#'   \eqn{w_0} is the total weight of all the unoccupied atoms
#'   (Pitman 1996; Ishwaran and James 2001, section 3).
#'
#' Finite mixtures suffer from label switching: the posterior is invariant
#' to permutations of the components, so component `k` of one draw (or one
#' chain) need not be component `k` of another. With `relabel = "ecr"`
#' (the default for finite mixtures) the components of every draw are
#' permuted by the ECR algorithm (equivalence classes representatives;
#' Papastamoulis and Iliopoulos 2010): the permutation of each draw
#' maximises the number of observations whose relabelled allocation agrees
#' with a pivot allocation (the solution of a linear assignment problem;
#' the pivot is the kept draw of highest `log_lik` unless `pivot` is
#' given). The clusters of a Dirichlet process mixture have no identity
#' across draws; in every draw they are listed by decreasing size.
#'
#' Needs stored labels (`labels = TRUE`, the default) and a conjugate
#' family.
#'
#' @param fit A mixture fit from [sample_posterior()] on a
#'   [finite_mixture()] or [dp_mixture()].
#' @param relabel `"ecr"` or `"none"` (finite mixtures; Dirichlet process
#'   fits are never relabelled).
#' @param pivot A pivot allocation for `relabel = "ecr"`: one label in
#'   `1..K` per observation, such as the labels of [partition()]`(fit)`.
#' @return An object of class `mcmix_component_draws`, a list with
#'   `weights` (draws x components matrix), `sizes` (draws x components,
#'   the number of members), `params` (a named list with one array per
#'   parameter of the family: draws x components x the parameter's shape,
#'   e.g. `mean` draws x K x D and `cov` draws x K x D x D), `rest` (DP:
#'   the weight of the unoccupied atoms), `chain`, `iteration`, `kind`
#'   (`"finite"` or `"dp"`) and `permutations` (finite mixtures relabelled:
#'   draws x K, `permutations[s, j]` is the new number of the component
#'   labelled `j` by the sampler in draw `s`). For a Dirichlet process fit the number of columns is
#'   the largest number of clusters of any draw, and the columns of the
#'   clusters a draw does not have are `NA`.
#' @references Papastamoulis, P. and Iliopoulos, G. (2010). An artificial
#'   allocations based solution to the label switching problem in Bayesian
#'   analysis of mixtures of distributions. *Journal of Computational and
#'   Graphical Statistics* 19(2), 313--331. Ishwaran, H. and James, L. F.
#'   (2001). Gibbs sampling methods for stick-breaking priors. *JASA* 96,
#'   161--173. Pitman, J. (1996). Some developments of the Blackwell-MacQueen
#'   urn scheme. *IMS Lecture Notes* 30, 245--267.
#' @seealso [partition()], [predict.mcmix_mixture_fit()]
#' @examples
#' set.seed(1)
#' x <- c(rnorm(40, -4), rnorm(40, 0), rnorm(40, 4))
#' fit <- sample_posterior(finite_mixture(gaussian_niw(), K = 3), x,
#'                         iter = 200, chains = 2, progress = FALSE)
#' cd <- component_draws(fit)
#' cd
#' colMeans(cd$params$mean[, , 1])
#' @export
component_draws <- function(fit, relabel = c("ecr", "none"), pivot = NULL) {
  cs <- component_sample(fit, relabel, pivot)
  S <- cs$S
  K <- cs$K
  lay <- family_layout(fit$family$family)
  params <- list()
  pos <- 0L
  lev <- component_levels(fit$family)
  for (nm in names(lay$components)) {
    shape <- lay$components[[nm]]
    len <- prod(shape)
    # a product family's internal cache entries are not parameters
    if (!endsWith(nm, "..cache")) {
      params[[nm]] <- array(cs$theta[, , pos + seq_len(len)], c(S, K, shape))
      if (!is.null(lev[[nm]]) && length(shape) == 1L && length(lev[[nm]]) == shape)
        dimnames(params[[nm]]) <- list(NULL, paste0("component", seq_len(K)), lev[[nm]])
    }
    pos <- pos + len
  }
  weights <- cs$weights
  sizes <- cs$sizes
  colnames(weights) <- colnames(sizes) <- paste0("component", seq_len(K))
  structure(list(weights = weights, sizes = sizes, params = params, rest = cs$rest,
                 chain = cs$chain, iteration = cs$iteration,
                 kind = if (cs$finite) "finite" else "dp",
                 permutations = cs$permutations,
                 family = family_label(fit$family$family)),
            class = "mcmix_component_draws")
}

# The draws of component_draws() before they are split by parameter: a list
# with `theta` (draws x components x the family's whole parameter block,
# param_size doubles, as the family's log_lik slot takes it; NA for the
# clusters a draw does not have), `weights`, `sizes`, `rest`, `z` (the
# labels, relabelled), and the bookkeeping of component_draws(). Also used
# by log_lik() and posterior_predict() of mixture fits (R/predictive.R).
component_sample <- function(fit, relabel = c("ecr", "none"), pivot = NULL) {
  if (!inherits(fit, "mcmix_mixture_fit") || !inherits(fit, c("mcmix_finite_fit", "mcmix_dp_fit")))
    stop(sprintf("`fit` must be a fit of a finite_mixture() or dp_mixture() from sample_posterior(), not %s.",
                 if (inherits(fit, "mcmix_fit")) sprintf("a fit of the \"%s\" sampler", fit$kernel$name)
                 else describe_value(fit)), call. = FALSE)
  relabel <- match_choice(relabel, c("ecr", "none"), "relabel")
  prep <- fit$family
  if (!family_is_conjugate(prep$family))
    stop(sprintf(paste0("`fit` was fitted with the non-conjugate family %s: its component ",
                        "parameters have no closed-form conditional posterior to draw from."),
                 family_label(prep$family)), call. = FALSE)
  z <- partition_draws(fit)
  chain <- attr(z, "chain")
  finite <- inherits(fit, "mcmix_finite_fit")
  S <- nrow(z)
  iteration <- unlist(lapply(fit$chains, function(ch) fit_iterations(fit, NROW(ch$labels))))
  if (finite) {
    K <- fit$model$K
    if (!is.null(pivot)) pivot <- check_pivot(pivot, ncol(z), K)
    else if (relabel == "ecr") pivot <- z[which.max(fit_trace_column(fit, "log_lik")), ]
    if (relabel == "ecr") {
      # draws x K (apply() gives a K x draws matrix, or a vector when K = 1)
      perm <- t(matrix(apply(z, 1L, ecr_permutation, pivot = pivot, K = K), K))
      z <- matrix(perm[cbind(rep(seq_len(S), ncol(z)), as.vector(z))], S)
    }
    conc <- fit$model$alpha
  } else {
    # clusters of each draw by decreasing size
    z <- t(apply(z, 1L, function(r) {
      u <- unique(r)
      n <- tabulate(match(r, u), length(u))
      match(r, u[order(-n)])
    }))
    K <- max(z)
    alpha <- fit_param_per_draw(fit, "alpha", fit$model$alpha)
    discount <- fit_param_per_draw(fit, "discount", fit$model$discount)
  }
  x <- fit$data
  hyper <- as.double(prep$hyper)
  empty <- x[0L, , drop = FALSE]
  psize <- .Call(C_ffi_family_eval, prep$name, hyper, empty, "info", NULL)[4L]
  theta <- array(NA_real_, c(S, K, psize))
  weights <- sizes <- matrix(NA_real_, S, K)
  rest <- if (finite) NULL else numeric(S)
  for (s in seq_len(S)) {
    n <- tabulate(z[s, ], K)
    Ks <- if (finite) K else max(z[s, ])
    for (k in seq_len(Ks)) {
      xk <- if (n[k]) x[z[s, ] == k, , drop = FALSE] else empty
      theta[s, k, ] <- .Call(C_ffi_family_eval, prep$name, hyper, xk, "param_draw", 1)
    }
    a <- if (finite) conc + n else c(n[seq_len(Ks)] - discount[s], alpha[s] + discount[s] * Ks)
    g <- stats::rgamma(length(a), a)
    w <- g / sum(g)
    weights[s, seq_len(Ks)] <- w[seq_len(Ks)]
    sizes[s, seq_len(Ks)] <- n[seq_len(Ks)]
    if (!finite) rest[s] <- w[Ks + 1L]
  }
  list(theta = theta, weights = weights, sizes = sizes, rest = rest, z = z, S = S, K = K,
       chain = chain, iteration = iteration, finite = finite,
       permutations = if (finite && relabel == "ecr") perm)
}

# The level names of the probability vectors of a family's parameters, by
# component name (`prob`, or `<part>.prob` for a product family): the levels
# of a categorical column, or of the second level of a binary one.
component_levels <- function(prep) {
  parts <- if (identical(prep$name, "product")) prep$family$resolved else
    list(list(label = "", family = prep$family, levels = prep$family$levels))
  out <- list()
  for (p in parts) {
    nm <- if (nzchar(p$label)) paste0(p$label, ".prob") else "prob"
    if (identical(p$family$name, "categorical_dirichlet") && !is.null(p$levels))
      out[[nm]] <- p$levels
    else if (identical(p$family$name, "bernoulli_beta") && length(p$levels) == 2L)
      out[[nm]] <- p$levels[2L]
  }
  out
}

# One value per kept draw (chains stacked) of trace `name`, or `default`.
fit_param_per_draw <- function(fit, name, default) {
  v <- fit_trace_column(fit, name)
  if (!is.null(v)) return(v)
  n <- sum(vapply(fit$chains, function(ch) NROW(ch$labels), integer(1)))
  rep(as.double(default), n)
}

fit_trace_column <- function(fit, name) {
  if (!name %in% fit_all_trace_names(fit)) return(NULL)
  unlist(lapply(fit$chains, function(ch) as.double(ch$traces[seq_len(NROW(ch$labels)), name])))
}

check_pivot <- function(pivot, N, K) {
  if (inherits(pivot, "mcmix_partition")) pivot <- pivot$labels
  if (!is.numeric(pivot) || length(pivot) != N || anyNA(pivot) ||
      any(pivot != round(pivot)) || any(pivot < 1) || length(unique(pivot)) > K)
    stop(sprintf("`pivot` must give one label per observation (%d) with at most K = %d distinct values, not %s.",
                 N, K, describe_value(pivot)), call. = FALSE)
  if (any(pivot > K)) pivot <- match(pivot, unique(pivot))
  as.integer(pivot)
}

# ECR (Papastamoulis and Iliopoulos 2010): the permutation `perm` of 1..K
# (old label j becomes perm[j]) maximising sum_i 1{perm[z_i] = pivot_i},
# i.e. the assignment maximising sum_j C[j, perm[j]] with C[j, k] the
# number of observations labelled j in z and k in the pivot.
ecr_permutation <- function(z, pivot, K) {
  C <- matrix(tabulate(z + K * (pivot - 1L), K * K), K, K)
  assignment_max(C)
}

# Linear assignment: the permutation p maximising sum_j C[j, p[j]] for a
# square matrix C (Hungarian algorithm with potentials, O(K^3); Kuhn 1955,
# in the shortest augmenting path form of Jonker and Volgenant 1987).
assignment_max <- function(C) {
  K <- nrow(C)
  if (K == 1L) return(1L)
  a <- max(C) - C                    # minimise a
  u <- numeric(K + 1L); v <- numeric(K + 1L)
  p <- integer(K + 1L)               # p[col + 1] = row matched to col (0: none)
  way <- integer(K + 1L)
  for (i in seq_len(K)) {
    p[1L] <- i
    j0 <- 0L
    minv <- rep(Inf, K + 1L)
    used <- logical(K + 1L)
    repeat {
      used[j0 + 1L] <- TRUE
      i0 <- p[j0 + 1L]
      delta <- Inf
      j1 <- 0L
      for (j in seq_len(K)) {
        if (used[j + 1L]) next
        cur <- a[i0, j] - u[i0 + 1L] - v[j + 1L]
        if (cur < minv[j + 1L]) { minv[j + 1L] <- cur; way[j + 1L] <- j0 }
        if (minv[j + 1L] < delta) { delta <- minv[j + 1L]; j1 <- j }
      }
      for (j in 0:K) {
        if (used[j + 1L]) { u[p[j + 1L] + 1L] <- u[p[j + 1L] + 1L] + delta; v[j + 1L] <- v[j + 1L] - delta }
        else minv[j + 1L] <- minv[j + 1L] - delta
      }
      j0 <- j1
      if (p[j0 + 1L] == 0L) break
    }
    repeat {
      j1 <- way[j0 + 1L]
      p[j0 + 1L] <- p[j1 + 1L]
      j0 <- j1
      if (j0 == 0L) break
    }
  }
  perm <- integer(K)
  perm[p[-1L]] <- seq_len(K)         # row p[j] is assigned column j
  perm
}

#' @export
print.mcmix_component_draws <- function(x, digits = 3, ...) {
  digits <- check_digits(digits)   # R/checks.R
  S <- nrow(x$weights)
  cat(sprintf("<mcmix component draws: %d draws, %s, %d component%s%s>\n", S,
              if (x$kind == "finite") "finite mixture" else "Dirichlet process mixture",
              ncol(x$weights), if (ncol(x$weights) == 1L) "" else "s",
              if (!is.null(x$permutations)) ", relabelled (ECR)" else ""))
  cat("Family: ", x$family, "\n", sep = "")
  show <- seq_len(min(ncol(x$weights), 8L))
  mean_of <- function(m) colMeans(m[, show, drop = FALSE], na.rm = TRUE)
  rows <- list(weight = mean_of(x$weights))
  if (x$kind == "dp") rows$present <- colMeans(!is.na(x$weights[, show, drop = FALSE]))
  for (nm in names(x$params)) {
    a <- x$params[[nm]]
    if (length(dim(a)) != 3L || dim(a)[3L] > 4L) next   # vectors only, and short ones
    lev <- dimnames(a)[[3L]]
    for (j in seq_len(dim(a)[3L]))
      rows[[if (!is.null(lev)) sprintf("%s=%s", nm, lev[j])
            else if (dim(a)[3L] == 1L) nm else sprintf("%s[%d]", nm, j)]] <- mean_of(a[, , j])
  }
  cat("Posterior means:\n")
  print(do.call(rbind, rows), digits = digits)
  if (ncol(x$weights) > length(show))
    cat("... and", ncol(x$weights) - length(show), "more components\n")
  invisible(x)
}
