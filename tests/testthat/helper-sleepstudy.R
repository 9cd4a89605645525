# A model shaped like lme4's sleepstudy fit with varying intercepts and
# slopes, written as an R target for the gradient samplers:
#   y_i ~ N(b0 + u0[g_i] + (b1 + u1[g_i]) x_i, sigma^2),
#   (u0, u1)_j = diag(s0, s1) L (z1_j, z2_j), z ~ N(0, 1)   (non-centred),
#   L the Cholesky factor of the correlation matrix with correlation rho,
#   rho ~ LKJ(2) (density (1 - rho^2) on (-1, 1)), b ~ N(0, 2^2),
#   s0, s1, sigma ~ half-N(0, 1),
# on the unconstrained scale theta = (b0, b1, log s0, log s1, atanh rho,
# log sigma, z1[1:J], z2[1:J]), with the Jacobians. y is the standardised
# reaction time and x = days / 9. Far out in the tails exp() overflows and
# the log density is NaN (Inf - Inf), as it is in the same model written
# naively in any language.
sleep_data <- function(seed = 1) {
  # the design of lme4::sleepstudy (18 subjects, days 0..9) with its REML
  # estimates; simulated so that the tests do not need lme4
  withr::with_seed(seed, {
    J <- 18L
    days <- rep(0:9, J)
    g <- rep(seq_len(J), each = 10L)
    u0 <- stats::rnorm(J, 0, 24.7)
    u1 <- stats::rnorm(J, 0, 5.9)
    reaction <- 251.4 + u0[g] + (10.47 + u1[g]) * days + stats::rnorm(10L * J, 0, 25.6)
  })
  list(y = (reaction - mean(reaction)) / stats::sd(reaction), x = days / 9, g = g, J = J)
}

# function(theta) -> list(value, gradient) of the model above for data `dat`.
sleep_value_gradient <- function(dat) {
  y <- dat$y; x <- dat$x; g <- dat$g; J <- dat$J
  force(y)
  function(th) {
    b0 <- th[1]; b1 <- th[2]; s0 <- exp(th[3]); s1 <- exp(th[4])
    rho <- tanh(th[5]); cc <- sqrt(1 - rho^2); se <- exp(th[6])
    z1 <- th[6 + seq_len(J)]; z2 <- th[6 + J + seq_len(J)]
    u0 <- s0 * z1
    u1 <- s1 * (rho * z1 + cc * z2)
    mu <- b0 + u0[g] + (b1 + u1[g]) * x
    r <- y - mu
    n <- length(y)
    value <- -n * th[6] - sum(r^2) / (2 * se^2) -
      (b0^2 + b1^2) / 8 - (s0^2 + s1^2 + se^2) / 2 + th[3] + th[4] + th[6] +
      2 * log1p(-rho^2) - (sum(z1^2) + sum(z2^2)) / 2
    e <- r / se^2
    E0 <- as.vector(rowsum(e, g, reorder = TRUE))
    E1 <- as.vector(rowsum(e * x, g, reorder = TRUE))
    gr <- c(sum(E0) - b0 / 4,
            sum(E1) - b1 / 4,
            sum(E0 * u0) - s0^2 + 1,
            sum(E1 * u1) - s1^2 + 1,
            sum(E1 * s1 * (z1 - rho / cc * z2)) * (1 - rho^2) - 4 * rho,
            -n + sum(r^2) / se^2 - se^2 + 1,
            s0 * E0 + s1 * rho * E1 - z1,
            s1 * cc * E1 - z2)
    list(value = value, gradient = gr)
  }
}

# The model as a target: "two" (separate log density and gradient
# functions) or "one" (one function returning both).
sleep_target <- function(dat = sleep_data(), form = c("two", "one")) {
  form <- match.arg(form)
  vg <- sleep_value_gradient(dat)
  d <- 6L + 2L * dat$J
  if (form == "one") return(target(vg, gradient = TRUE, dim = d))
  target(function(th) vg(th)$value, gradient = function(th) vg(th)$gradient, dim = d)
}
