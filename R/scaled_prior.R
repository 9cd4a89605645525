# Default priors of the regression samplers scaled to the data
# (hier_lm_gibbs(), logit_gibbs(), probit_gibbs(); the lengthscale of
# gp_classify()), in the manner of rstanarm's autoscaled defaults (Gabry
# and Goodrich, "Prior distributions for rstanarm models"): a default is
# never a fixed number on the scale of the user's variables, so that a
# response in milliseconds or a covariate in dollars gives the same answer
# as the same data in other units. The formulas are on ?mcmix-defaults.
#
# The prior is written on the centred parametrisation and mapped back to
# the coefficients of the design matrix the user gave, so draws, traces and
# predict() stay on the original scale and nothing is standardised inside
# the samplers. For a design matrix X with an intercept column k (the first
# column whose entries all equal one non-zero number c) and other columns
# j with mean m_j and standard deviation s_j,
#     eta = sum_j beta_j x_j = alpha + sum_{j != k} beta_j (x_j - m_j),
#     alpha = c beta_k + sum_{j != k, s_j > 0} m_j beta_j,
# with independent priors
#     alpha ~ N(location, (intercept_scale * y_scale)^2),
#     beta_j ~ N(0, (coef_scale * y_scale / s_j)^2).
# theta = (alpha in position k, beta_j elsewhere) = B beta with B the
# identity but for row k (B[k, k] = c, B[k, j] = m_j), so the prior of beta
# is normal with mean B^-1 theta0, covariance B^-1 D B^-T and precision
# B^T D^-1 B (D the diagonal of the variances above), all computed exactly
# without inverting an ill-conditioned covariance (a covariate in dollars
# gives an intercept variance 1e8 times that of its slope).
# Without an intercept column the predictors are not centred and s_j is
# the root mean square of x_j. A column that is constant (other than the
# intercept) gets the scale of its value, a column of zeros scale 1.

# The scale of every column of X and the intercept column, as used above.
design_scales <- function(X) {
  n <- nrow(X)
  m <- colMeans(X)
  s <- if (n >= 2L) sqrt(colSums(sweep(X, 2L, m)^2) / (n - 1L)) else rep(0, ncol(X))
  # a column whose values agree to rounding is constant
  const <- s <= 1e-12 * pmax(abs(m), 1e-300) | s == 0
  k <- which(const & m != 0)[1L]
  if (is.na(k)) {
    k <- 0L
    s <- sqrt(colMeans(X^2))   # uncentred: the root mean square
  } else {
    s[const] <- abs(m[const])
  }
  s[s == 0] <- 1
  list(mean = m, scale = s, intercept = k, const = const)
}

# The normal prior above: a list with `mean`, `cov`, `prec` (p-vectors and
# p x p matrices), the design scales (`scale`, `intercept`) and the
# per-coefficient prior standard deviations of theta (`theta_sd`).
scaled_normal_prior <- function(X, location = 0, y_scale = 1, coef_scale = 2.5,
                                intercept_scale = 2.5) {
  p <- ncol(X)
  ds <- design_scales(X)
  k <- ds$intercept
  sd_theta <- coef_scale * y_scale / ds$scale
  theta0 <- double(p)
  B <- diag(1, p)
  if (k > 0L) {
    sd_theta[k] <- intercept_scale * y_scale
    theta0[k] <- location
    moving <- !ds$const
    B[k, ] <- ifelse(moving, ds$mean, 0)
    B[k, k] <- ds$mean[k]   # the intercept's value c
  }
  Binv <- backsolve_unit_row(B, k)
  D <- sd_theta^2
  cov <- Binv %*% (D * t(Binv))
  prec <- crossprod(B, B / D)
  list(mean = as.double(Binv %*% theta0), cov = (cov + t(cov)) / 2,
       prec = (prec + t(prec)) / 2, scale = ds$scale, intercept = k,
       theta_sd = sd_theta, Binv = Binv)
}

# A starting point near `center` on the scale of the data: `center` plus
# the scaled prior's centred coordinates times `frac` of their standard
# deviations, times the standard normals `z` (so a slope of a covariate in
# the thousands starts near 0 per unit, and the intercept near the value
# that puts the linear predictor at its centre).
scaled_jitter <- function(pr, center, z, frac) center + as.double(pr$Binv %*% (frac * pr$theta_sd * z))

# The inverse of the identity with row k replaced (B above): beta_k =
# (theta_k - sum_{j != k} B[k, j] theta_j) / B[k, k].
backsolve_unit_row <- function(B, k) {
  p <- nrow(B)
  Binv <- diag(1, p)
  if (k > 0L) {
    Binv[k, ] <- -B[k, ] / B[k, k]
    Binv[k, k] <- 1 / B[k, k]
  }
  Binv
}

# "x 1.01, income 1.5e+04" (at most `max` columns, the rest counted).
format_scales <- function(s, names, max = 4L) {
  lab <- sprintf("%s %s", names, vapply(signif(s, 3), format, character(1)))
  if (length(lab) > max) lab <- c(lab[seq_len(max)], sprintf("... (%d more)", length(lab) - max))
  paste(lab, collapse = ", ")
}

# The "Priors:" line of print() and summary(): which arguments were given
# (used as given) and which were scaled to the data, with the scales.
prior_label <- function(given, defaulted, scales, page) {
  parts <- character()
  if (length(defaulted))
    parts <- c(parts, sprintf("%s scaled to the data (%s; formulas: ?%s)",
                              paste(defaulted, collapse = ", "), scales, page))
  if (length(given))
    parts <- c(parts, sprintf("%s as given", paste(given, collapse = ", ")))
  paste(parts, collapse = "; ")
}

# The sd of the columns of X other than the intercept, for prior_label().
design_scale_text <- function(X, ds = design_scales(X)) {
  keep <- seq_len(ncol(X)) != ds$intercept & !ds$const
  if (!any(keep)) return("no covariates")
  sprintf("%s of x: %s", if (ds$intercept > 0L) "sd" else "root mean square",
          format_scales(ds$scale[keep], colnames(X)[keep]))
}

# The scale of a Gaussian response: its standard deviation, or (a constant
# or single value) its absolute value, or 1.
response_scale <- function(y) {
  s <- if (length(y) >= 2L) stats::sd(y) else 0
  if (!is.finite(s) || s <= 0) s <- abs(mean(y))
  if (!is.finite(s) || s <= 0) s <- 1
  s
}

# The prior covariance and precision of the coefficients of a binary
# regression: `prior_cov` as given, or (NULL) scaled to the design matrix
# with scale 2.5 on the logit scale, times dlogis(0) / dnorm(0) (about
# 0.63) on the probit scale, where coefficients are that much smaller.
# `scaled` is the scaled prior in either case (for the starting values).
binary_scale <- function(link) 2.5 * if (link == "probit") stats::dlogis(0) / stats::dnorm(0) else 1

binary_prior <- function(X, prior_cov, link, page, mean_given = TRUE) {
  p <- ncol(X)
  sc <- binary_scale(link)
  pr <- scaled_normal_prior(X, y_scale = 1, coef_scale = sc, intercept_scale = sc)
  if (!is.null(prior_cov)) {
    B0 <- check_cov_spec(prior_cov, "prior_cov", p)
    return(list(cov = B0, prec = solve(B0), scaled = pr,
                label = if (mean_given) "prior_mean, prior_cov as given" else "prior_cov as given"))
  }
  list(cov = pr$cov, prec = pr$prec, scaled = pr,
       label = prior_label(if (mean_given) "prior_mean", "prior_cov",
                           sprintf("scale %s on the %s scale, %s", format(signif(sc, 3)), link,
                                   design_scale_text(X)), page))
}
