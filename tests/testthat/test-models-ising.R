# ising_gibbs() and ising_swendsen_wang() against exact enumeration of a
# 3 x 3 lattice (2^9 = 512 configurations).

# Every configuration of an nr x nc lattice (rows of a 2^N x N matrix, column-major
# sites) and its exact probability under J, field h (length N), boundary.
ising_exact <- function(nr, nc, J, h, periodic = FALSE) {
  N <- nr * nc
  S <- as.matrix(expand.grid(rep(list(c(-1L, 1L)), N)))
  idx <- matrix(seq_len(N), nr, nc)
  edges <- NULL
  for (i in seq_len(nr)) for (j in seq_len(nc)) {
    if (i < nr) edges <- rbind(edges, c(idx[i, j], idx[i + 1, j]))
    else if (periodic) edges <- rbind(edges, c(idx[i, j], idx[1, j]))
    if (j < nc) edges <- rbind(edges, c(idx[i, j], idx[i, j + 1]))
    else if (periodic) edges <- rbind(edges, c(idx[i, j], idx[i, 1]))
  }
  pair <- rowSums(S[, edges[, 1]] * S[, edges[, 2]])
  energy <- -(J * pair + as.numeric(S %*% h))
  w <- exp(-energy - max(-energy))
  list(states = S, p = w / sum(w), energy = energy, mag = rowMeans(S))
}

# Check the sampler's kept configurations against the exact distribution:
# magnetisation and energy level probabilities (batch-means standard
# errors), mean energy, and the total-variation distance over all 512 states.
check_ising <- function(fit, ex) {
  sp <- fit$chains[[1]]$labels
  tr <- fit$chains[[1]]$traces
  code <- as.numeric(((sp + 1L) / 2L) %*% 2^(0:(ncol(sp) - 1L)))
  code_ex <- as.numeric(((ex$states + 1L) / 2L) %*% 2^(0:(ncol(sp) - 1L)))
  # traces are consistent with the configurations
  expect_equal(tr[, "magnetisation"], rowMeans(sp))
  expect_equal(tr[, "energy"], ex$energy[match(code, code_ex)])
  for (v in list(list(tr[, "magnetisation"], ex$mag), list(round(tr[, "energy"], 8), round(ex$energy, 8)))) {
    for (lev in unique(v[[2]])) {
      ind <- as.numeric(v[[1]] == lev)
      p <- sum(ex$p[v[[2]] == lev])
      expect_lt(abs(mean(ind) - p), 5 * batch_se(ind) + 1e-3)
    }
  }
  expect_lt(abs(mean(tr[, "energy"]) - sum(ex$p * ex$energy)),
            5 * batch_se(tr[, "energy"]))
  freq <- tabulate(match(code, code_ex), nbins = length(code_ex)) / length(code)
  # E[TV] <= 0.5 * sum sqrt(p (1 - p) / n_eff); n_eff = n / 4 is conservative
  # for these fast-mixing chains
  bound <- 0.5 * sum(sqrt(ex$p * (1 - ex$p) / (length(code) / 4)))
  expect_lt(0.5 * sum(abs(freq - ex$p)), bound)
}

cases <- list(
  list(J = 0.4, h = rep(0, 9), periodic = FALSE),
  list(J = 0.3, h = c(0.5, -0.2, 0.1, 0, 0.3, -0.6, 0.2, 0.2, -0.1), periodic = FALSE),
  list(J = 0.25, h = rep(0.15, 9), periodic = TRUE)
)

test_that("ising_gibbs matches exact enumeration on a 3 x 3 lattice", {
  skip_on_cran()
  set.seed(31)
  for (cs in c(cases, list(list(J = -0.3, h = rep(0.2, 9), periodic = FALSE)))) {
    fit <- ising_gibbs(3, 3, J = cs$J, h = matrix(cs$h, 3, 3), periodic = cs$periodic,
                       keep_spins = TRUE, iter = 40000, burnin = 100,
                       progress = FALSE)
    check_ising(fit, ising_exact(3, 3, cs$J, cs$h, cs$periodic))
  }
})

test_that("ising_swendsen_wang matches exact enumeration on a 3 x 3 lattice", {
  skip_on_cran()
  set.seed(32)
  for (cs in c(cases, list(list(J = 0.9, h = rep(0, 9), periodic = FALSE)))) {
    fit <- ising_swendsen_wang(3, 3, J = cs$J, h = matrix(cs$h, 3, 3),
                               periodic = cs$periodic, keep_spins = TRUE,
                               iter = 40000, burnin = 100, progress = FALSE)
    check_ising(fit, ising_exact(3, 3, cs$J, cs$h, cs$periodic))
  }
})

test_that("Gaussian evidence acts as the field y / sigma^2", {
  y <- matrix(c(1.2, -0.3, 0.8, -1, 0.1, 0.4), 2, 3)
  set.seed(33)
  fit <- ising_gibbs(J = 0.5, evidence = list(y = y, sigma = 1.5), keep_spins = TRUE,
                     iter = 30000, burnin = 100, progress = FALSE)
  ex <- ising_exact(2, 3, 0.5, as.numeric(y) / 1.5^2)
  # exact posterior mean image
  m_ex <- matrix(colSums(ex$p * ex$states), 2, 3)
  m <- ising_mean(fit)
  se <- apply(fit$chains[[1]]$labels, 2, batch_se)
  expect_true(all(abs(m - m_ex) < 5 * se))
  expect_equal(dim(m), c(2L, 3L))
})

test_that("the Ising samplers continue exactly and refuse bad input", {
  for (f in list(ising_gibbs, ising_swendsen_wang)) {
    set.seed(4)
    a <- extend(f(5, 4, J = 0.3, h = 0.1, iter = 25, burnin = 3, thin = 3,
                  chains = 2, progress = FALSE), 20)
    set.seed(4)
    b <- f(5, 4, J = 0.3, h = 0.1, iter = 45, burnin = 3, thin = 3, chains = 2,
           progress = FALSE)
    expect_identical(a$chains[[2]]$traces, b$chains[[2]]$traces)
    expect_identical(ising_mean(a), ising_mean(b))
  }
  expect_error(ising_gibbs(0, 3), "`nrow`")
  expect_error(ising_gibbs(3, 2.5), "`ncol`")
  expect_error(ising_gibbs(3), "`nrow` and `ncol`")
  expect_error(ising_gibbs(3, 3, J = NA), "`J`")
  expect_error(ising_swendsen_wang(3, 3, J = -1), "`J`")
  expect_error(ising_gibbs(3, 3, h = matrix(0, 2, 2)), "`h`")
  expect_error(ising_gibbs(2, 3, periodic = TRUE), "`periodic = TRUE`")
  expect_error(ising_gibbs(evidence = list(y = matrix(0, 2, 2))), "`evidence`")
  expect_error(ising_gibbs(evidence = list(y = matrix(0, 2, 2), sigma = 0)),
               "`evidence\\$sigma`")
  expect_error(ising_mean(list()), "`fit`")
})
