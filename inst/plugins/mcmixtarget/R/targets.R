# A bivariate normal N(mean, cov) as a compiled target (with gradient).
gauss2_target <- function(mean = c(1, 2), cov = matrix(c(1, 0.8, 0.8, 2), 2)) {
  P <- solve(cov)
  .Call(C_gauss2_xptr, as.double(mean), as.double(P))
}

# The banana density exp(-x1^2 / (2 a^2) - (x2 - b x1^2 + a^2 b)^2 / 2)
# (no gradient: samplers use finite differences).
banana_target <- function(a = 1, b = 0.5) {
  .Call(C_banana_xptr, as.double(a), as.double(b))
}

# A target returning NaN for x1 > 1 (to test the checks of compiled targets).
bad_target <- function() .Call(C_bad_xptr)

# Normal data `y` with unknown mean and log standard deviation (flat priors).
normal_data_target <- function(y) .Call(C_normal_data_xptr, as.double(y))

# GARCH(1,1) likelihood of returns `y` (parameters omega, alpha, beta).
garch_target <- function(y) .Call(C_garch_xptr, as.double(y), stats::var(y))

# Logistic regression of 0/1 `y` on the columns of `X`, prior N(0, 10^2 I);
# `gradient`: "none", "two" (log density and gradient functions) or "one"
# (also the one-call slot giving both from one pass over the data).
logistic_target <- function(X, y, gradient = c("none", "two", "one")) {
  gradient <- match.arg(gradient)
  X <- as.matrix(X)
  storage.mode(X) <- "double"
  .Call(C_logistic_xptr, X, as.double(y), match(gradient, c("none", "two", "one")) - 1L)
}
