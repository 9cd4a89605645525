# Discrete Bayesian networks (R/bayesnet.R): Gibbs marginals against exact
# marginals by brute-force enumeration written here independently of the
# package; sum-product and max-product on trees against brute force, and
# marginals, evidence and MAP of a loopy network against brute force.

# The Asia network's joint, typed in from Lauritzen and Spiegelhalter
# (1988); states coded 1 = yes, 2 = no.
asia_joint <- function() {
  S <- as.matrix(expand.grid(rep(list(1:2), 8)))
  colnames(S) <- c("asia", "smoke", "tub", "lung", "bronc", "either", "xray", "dysp")
  py <- function(x, p) ifelse(x == 1, p, 1 - p)
  a <- S[, "asia"]; s <- S[, "smoke"]; t <- S[, "tub"]; l <- S[, "lung"]
  b <- S[, "bronc"]; e <- S[, "either"]; x <- S[, "xray"]; d <- S[, "dysp"]
  p <- py(a, 0.01) * py(s, 0.5) * py(t, ifelse(a == 1, 0.05, 0.01)) *
    py(l, ifelse(s == 1, 0.1, 0.01)) * py(b, ifelse(s == 1, 0.6, 0.3)) *
    py(e, ifelse(t == 1 | l == 1, 1, 0)) * py(x, ifelse(e == 1, 0.98, 0.05)) *
    py(d, ifelse(b == 1, ifelse(e == 1, 0.9, 0.8), ifelse(e == 1, 0.7, 0.1)))
  list(S = S, p = p)
}

# Brute-force marginals of the hidden variables given evidence (codes).
brute_marginals <- function(S, p, ev) {
  keep <- rep(TRUE, nrow(S))
  for (v in names(ev)) keep <- keep & S[, v] == ev[[v]]
  w <- p[keep] / sum(p[keep])
  hidden <- setdiff(colnames(S), names(ev))
  lapply(stats::setNames(hidden, hidden), function(v)
    vapply(1:max(S[, v]), function(k) sum(w[S[keep, v] == k]), numeric(1)))
}

test_that("Gibbs marginals on the Asia network equal the exact ones", {
  asia <- bayes_net_asia()
  J <- asia_joint()
  for (ev in list(list(asia = "yes", dysp = "yes"), list(xray = "yes", smoke = "no"))) {
    codes <- lapply(ev, function(v) if (v == "yes") 1L else 2L)
    ex <- brute_marginals(J$S, J$p, codes)
    en <- bn_marginals(asia, ev, method = "enumerate")
    for (v in names(ex)) expect_equal(unname(en[[v]]), ex[[v]], tolerance = 1e-12)
    keep <- Reduce(`&`, Map(function(v, k) J$S[, v] == k, names(codes), codes))
    expect_equal(attr(en, "log_evidence"), log(sum(J$p[keep])), tolerance = 1e-12)
    set.seed(21)
    fit <- sample_posterior(asia, ev, iter = 20000, burnin = 1000, chains = 2,
                            blocks = list(c("tub", "lung", "either")), progress = FALSE)
    pm <- posterior_marginals(fit)
    se <- attr(pm, "mcse")
    for (v in names(ex))
      expect_true(all(abs(pm[[v]] - ex[[v]]) < 4 * se[[v]] + 0.003), label = v)
  }
})

# A random tree-structured network: node i > 1 has parent par[i].
random_tree_bn <- function(card, par) {
  n <- length(card)
  nm <- paste0("v", seq_len(n))
  lev <- lapply(card, function(k) letters[seq_len(k)])
  cpts <- list()
  for (i in seq_len(n)) {
    if (par[i] == 0) {
      p <- stats::rgamma(card[i], 1)
      cpts[[nm[i]]] <- stats::setNames(p / sum(p), lev[[i]])
    } else {
      j <- par[i]
      m <- matrix(stats::rgamma(card[i] * card[j], 1), card[i])
      m <- sweep(m, 2, colSums(m), "/")
      cpts[[nm[i]]] <- array(m, dim(m), stats::setNames(list(lev[[i]], lev[[j]]), nm[c(i, j)]))
    }
  }
  list(bn = bayes_net(cpts), cpts = cpts, nm = nm, par = par, card = card)
}

tree_joint <- function(tr) {
  S <- as.matrix(expand.grid(lapply(tr$card, seq_len)))
  colnames(S) <- tr$nm
  p <- rep(1, nrow(S))
  for (i in seq_along(tr$nm)) {
    a <- tr$cpts[[i]]
    p <- p * if (tr$par[i] == 0) a[S[, i]] else a[cbind(S[, i], S[, tr$par[i]])]
  }
  list(S = S, p = p)
}

test_that("sum-product and max-product on trees equal brute force", {
  set.seed(5)
  tr <- random_tree_bn(card = c(2, 3, 2, 4, 3, 2, 3), par = c(0, 1, 1, 2, 2, 3, 4))
  J <- tree_joint(tr)
  for (ev in list(list(), list(v6 = "b", v7 = "c"), list(v4 = "a", v3 = "b"))) {
    codes <- lapply(stats::setNames(names(ev), names(ev)),
                    function(v) match(ev[[v]], letters))
    expect_true(summary(tr$bn)$tree)
    sp <- bn_marginals(tr$bn, ev, method = "sum_product")
    ex <- brute_marginals(J$S, J$p, codes)
    for (v in names(ex)) expect_equal(unname(sp[[v]]), ex[[v]], tolerance = 1e-10)
    keep <- if (length(codes)) Reduce(`&`, Map(function(v, k) J$S[, v] == k, names(codes), codes))
            else rep(TRUE, nrow(J$S))
    expect_equal(attr(sp, "log_evidence"), log(sum(J$p[keep])), tolerance = 1e-10)
    mp <- bn_map(tr$bn, ev, method = "max_product")
    best <- which(keep)[which.max(J$p[keep])]
    hidden <- setdiff(tr$nm, names(ev))
    expect_identical(unname(mp$state), letters[J$S[best, hidden]])
    expect_equal(mp$log_prob, unname(log(J$p[best])), tolerance = 1e-10)
    # annealing and ICM reach the same MAP from several starts
    for (s in 1:3) {
      set.seed(s)
      an <- bn_map(tr$bn, ev, method = "anneal", restarts = 1)
      expect_identical(an$state, mp$state)
    }
  }
})

test_that("sum-product handles a polytree given as a list of factors", {
  set.seed(8)
  f1 <- array(stats::runif(4), c(2, 2), list(a = c("0", "1"), b = c("0", "1")))
  f2 <- array(stats::runif(12), c(2, 3, 2), list(b = c("0", "1"), c = c("x", "y", "z"),
                                                d = c("0", "1")))
  f3 <- array(stats::runif(3), 3, list(c = c("x", "y", "z")))
  fm <- factor_model(list(f1, f2, f3))
  S <- as.matrix(expand.grid(a = 1:2, b = 1:2, c = 1:3, d = 1:2))
  p <- f1[S[, c("a", "b")]] * f2[S[, c("b", "c", "d")]] * f3[S[, "c"]]
  ex <- brute_marginals(S, p, list(d = 2L))
  sp <- bn_marginals(fm, list(d = "1"))
  expect_identical(attr(sp, "method"), "sum_product")
  for (v in names(ex)) expect_equal(unname(sp[[v]]), ex[[v]], tolerance = 1e-10)
  expect_equal(attr(sp, "log_evidence"), log(sum(p[S[, "d"] == 2])), tolerance = 1e-10)
  mp <- bn_map(fm, list(d = "1"))
  i <- which(S[, "d"] == 2)[which.max(p[S[, "d"] == 2])]
  expect_identical(unname(mp$state), c(c("0", "1")[S[i, "a"]], c("0", "1")[S[i, "b"]],
                                        c("x", "y", "z")[S[i, "c"]]))
})

test_that("Gibbs on a loopy factor model matches brute force; MAP by annealing", {
  set.seed(9)
  lv <- c("0", "1", "2")
  pair <- function(u, v) array(stats::rgamma(9, 2), c(3, 3), stats::setNames(list(lv, lv), c(u, v)))
  fm <- factor_model(list(pair("a", "b"), pair("b", "c"), pair("c", "d"), pair("d", "a")))
  expect_false(summary(fm)$tree)
  S <- as.matrix(expand.grid(a = 1:3, b = 1:3, c = 1:3, d = 1:3))
  p <- fm$factors[[1]][S[, c("a", "b")]] * fm$factors[[2]][S[, c("b", "c")]] *
    fm$factors[[3]][S[, c("c", "d")]] * fm$factors[[4]][S[, c("d", "a")]]
  ex <- brute_marginals(S, p, list())
  set.seed(10)
  fit <- sample_posterior(fm, NULL, iter = 20000, burnin = 500, progress = FALSE)
  pm <- posterior_marginals(fit)
  for (v in names(ex))
    expect_true(all(abs(pm[[v]] - ex[[v]]) < 4 * attr(pm, "mcse")[[v]] + 0.003), label = v)
  mp <- bn_map(fm, method = "anneal")
  expect_equal(mp$log_prob, log(max(p)), tolerance = 1e-12)
  expect_equal(bn_map(fm)$log_prob, log(max(p)), tolerance = 1e-12)   # enumeration
  expect_error(bn_marginals(fm, method = "sum_product"), "tree-structured")
  expect_error(bn_map(fm, method = "max_product"), "tree-structured")
})

test_that("Bayesian network fits extend like one longer run and print", {
  asia <- bayes_net_asia()
  set.seed(3)
  a <- sample_posterior(asia, list(xray = "yes"), iter = 50, burnin = 5,
                        blocks = list(c("tub", "lung", "either")), progress = FALSE)
  a <- extend(a, 50)
  set.seed(3)
  b <- sample_posterior(asia, list(xray = "yes"), iter = 100, burnin = 5,
                        blocks = list(c("tub", "lung", "either")), progress = FALSE)
  expect_identical(a$chains[[1]]$traces, b$chains[[1]]$traces)
  # (100 draws of 4 chains: the mixing guard may warn; the printed table is checked)
  expect_output(suppressWarnings(print(summary(b)), classes = "mcmix_warning_mixing"),
                "Posterior marginals")
  expect_output(print(asia), "either \\{yes, no\\} \\| tub, lung")
  expect_output(print(summary(asia)), "tree-structured: no")
  expect_output(print(bn_map(asia)), "MAP assignment")
  expect_null(names(bn_map(asia)$log_prob))
  # without evidence the MAP is the most probable joint state (typed in)
  expect_equal(bn_map(asia, method = "anneal")$log_prob,
               log(0.99 * 0.5 * 0.99 * 0.99 * 0.7 * 1 * 0.95 * 0.9), tolerance = 1e-12)
  expect_output(print(bn_marginals(asia)), "log P\\(evidence\\)")
})

test_that("bad input to the Bayesian network functions is refused", {
  yn <- c("yes", "no")
  expect_error(bayes_net(list(1)), "`cpts`")
  expect_error(bayes_net(list(a = c(0.5, 0.5))), "`cpts\\$a`")
  expect_error(bayes_net(list(a = c(yes = 0.5, no = 0.6))), "sum to 1")
  expect_error(bayes_net(list(a = c(yes = -0.5, no = 1.5))), "non-negative")
  expect_error(bayes_net(list(a = array(c(0.5, 0.5, 0.5, 0.5), c(2, 2),
                                        list(a = yn, b = yn)))), "not a node")
  cyc <- list(a = array(0.5, c(2, 2), list(a = yn, b = yn)),
              b = array(0.5, c(2, 2), list(b = yn, a = yn)))
  expect_error(bayes_net(cyc), "acyclic")
  expect_error(bayes_net(list(a = c(yes = 0.5, no = 0.5),
                              b = array(0.5, c(2, 2), list(b = yn, a = c("y", "n"))))),
               "levels of `a`")
  expect_error(bayes_net(list(a = array(0.5, c(2, 2), list(b = yn, a = yn)))), "first dimension")
  expect_error(factor_model(list()), "`factors`")
  expect_error(factor_model(list(array(0, 2, list(a = yn)))), "zero everywhere")
  expect_error(factor_model(list(matrix(1, 2, 2))), "named dimnames")
  asia <- bayes_net_asia()
  expect_error(bn_marginals(asia, list(foo = "yes")), "not a variable")
  expect_error(bn_marginals(asia, list(asia = "maybe")), "one of")
  expect_error(bn_marginals(asia, c("yes")), "named")
  expect_error(bn_marginals(asia, method = "bp"), "`method`")
  expect_error(bn_marginals(asia, list(either = "no", tub = "yes")), "probability zero")
  expect_error(bn_marginals(1), "`model`")
  expect_error(bn_map(asia, method = "anneal", schedule = 0), "`schedule`")
  expect_error(bn_map(asia, method = "anneal", restarts = 0), "`restarts`")
  expect_error(sample_posterior(asia, list(asia = "no"), blocks = list("asia")), "not a hidden")
  expect_error(sample_posterior(asia, NULL, blocks = list(c("tub", "lung"), "tub")), "two")
  expect_error(sample_posterior(asia, NULL, blocks = "tub"), "`blocks`")
  expect_error(sample_posterior(asia, as.list(stats::setNames(rep("yes", 8), asia$vars))),
               "nothing to sample")
  expect_error(posterior_marginals(1), "`fit`")
  e <- tryCatch(sample_posterior(asia, list(either = "no", tub = "yes"), progress = FALSE),
                error = function(e) e)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "data")
  expect_match(conditionMessage(e), "probability zero")
})

test_that("Gibbs without blocks on the Asia network blocks the deterministic node itself", {
  asia <- bayes_net_asia()
  J <- asia_joint()
  ev <- list(asia = "yes", dysp = "yes")
  ex <- brute_marginals(J$S, J$p, list(asia = 1L, dysp = 1L))
  expect_equal(ex$either[1], 0.1823, tolerance = 1e-3)
  expect_equal(ex$tub[1], 0.0878, tolerance = 1e-2)
  set.seed(22)
  expect_message(fit <- sample_posterior(asia, ev, iter = 20000, burnin = 1000, chains = 2,
                                         progress = FALSE),
                 "`tub`, `lung`, `either` jointly")
  # the chains, started apart, agree (R/guard.R)
  expect_length(mcmix:::fit_guard_flags(fit), 0L)
  pm <- posterior_marginals(fit)
  se <- attr(pm, "mcse")
  for (v in names(ex)) {
    expect_true(all(se[[v]] > 0), label = v)
    expect_true(all(abs(pm[[v]] - ex[[v]]) < 4 * se[[v]]), label = v)
  }
  # the blocks given are kept when they already hold the tied variables
  expect_no_message(sample_posterior(asia, ev, iter = 20, blocks = list(c("either", "lung", "tub")),
                                     progress = FALSE))
  # and merged with the tied variables otherwise (evidence on `either`
  # leaves its table tying `tub` and `lung`)
  expect_message(sample_posterior(asia, list(either = "yes"), iter = 20, progress = FALSE),
                 "`tub`, `lung` jointly")
  expect_message(sample_posterior(asia, ev, iter = 20, blocks = list(c("tub", "lung")),
                                  progress = FALSE), "`tub`, `lung`, `either` jointly")
  # nothing to block once the zeros involve at most one hidden variable
  expect_no_message(sample_posterior(asia, list(tub = "no", lung = "no"), iter = 20,
                                     progress = FALSE))
})

test_that("zeros tying too many values together are refused with the variables named", {
  lv <- as.character(1:32)
  tie <- function(u, v) {
    a <- diag(32) + 1e-13
    dimnames(a) <- stats::setNames(list(lv, lv), c(u, v))
    a
  }
  fm <- factor_model(list(tie("a", "b"), tie("b", "c"), tie("c", "d")))
  expect_error(sample_posterior(fm, NULL, iter = 10, progress = FALSE),
               "`a`, `b`, `c`, `d`.*more than 1,000,000 feasible joint values",
               class = "mcmix_error_bn_blocks")
  e <- tryCatch(sample_posterior(fm, NULL, iter = 10, progress = FALSE), error = function(e) e)
  expect_identical(e$arg, "model")
})

# Near-deterministic tables. A noisy-XOR child C of A and B (C = A xor B
# but for noise eps) makes one-variable Gibbs cross between the two parts
# of the support about once per 1/eps sweeps; the exact answers come from
# brute force over the 16 joint states, typed in here.
noisy_xor_bn <- function(eps) {
  lv <- c("0", "1")
  C <- array(0, c(2, 2, 2), list(C = lv, A = lv, B = lv))
  for (a in 1:2) for (b in 1:2)
    C[, a, b] <- if ((a + b) %% 2 == 1) c(eps, 1 - eps) else c(1 - eps, eps)
  bayes_net(list(A = c(`0` = 0.7, `1` = 0.3), B = c(`0` = 0.4, `1` = 0.6), C = C,
                 D = array(c(0.8, 0.2, 0.1, 0.9), c(2, 2), list(D = lv, C = lv))))
}

noisy_xor_exact <- function(eps) {
  S <- as.matrix(expand.grid(A = 1:2, B = 1:2, C = 1:2, D = 1:2))
  pc <- ifelse((S[, "A"] + S[, "B"]) %% 2 == 1, ifelse(S[, "C"] == 2, 1 - eps, eps),
               ifelse(S[, "C"] == 1, 1 - eps, eps))
  p <- c(0.7, 0.3)[S[, "A"]] * c(0.4, 0.6)[S[, "B"]] * pc *
    ifelse(S[, "C"] == 1, c(0.8, 0.2)[S[, "D"]], c(0.1, 0.9)[S[, "D"]])
  brute_marginals(S, p, list(D = 2L))
}

test_that("a noisy-XOR child gives the exact marginals for every noise level, default chains", {
  for (eps in 10^-(2:11)) {
    bn <- noisy_xor_bn(eps)
    ex <- noisy_xor_exact(eps)
    for (m in c("enumerate", "sum_product")) {
      bm <- bn_marginals(bn, list(D = "1"), method = m)
      for (v in names(ex)) expect_equal(unname(bm[[v]]), ex[[v]], tolerance = 1e-12)
    }
    set.seed(1)
    fit <- suppressMessages(sample_posterior(bn, list(D = "1"), iter = 20000, progress = FALSE))
    expect_length(fit$chains, 4L)
    pm <- posterior_marginals(fit)
    for (v in names(ex)) {
      se <- attr(pm, "mcse")[[v]]
      # an answer, not a shrug: stuck chains that disagree give an honest
      # but useless MCSE near 0.25
      expect_true(all(se > 0 & se < 0.05), label = sprintf("eps = %g, %s: 0 < MCSE < 0.05", eps, v))
      expect_true(all(abs(pm[[v]] - ex[[v]]) < 4 * se),
                  label = sprintf("eps = %g, %s within 4 MCSE", eps, v))
    }
  }
})

test_that("near-deterministic tables are blocked below min(min_crossings / sweeps, 0.01)", {
  bn <- noisy_xor_bn(3e-3)   # coupling about 3e-3
  # 3,000 sweeps: the threshold is 0.01, so C ties A, B, C
  expect_message(fit <- sample_posterior(bn, list(D = "1"), iter = 2000, progress = FALSE),
                 "`A`, `B`, `C` jointly, as the table of `C` ties them with near-zeros")
  expect_identical(fit$blocks, list(c("A", "B", "C")))
  # 5 crossings asked for: 5 / 3000 < 3e-3, one-variable updates
  expect_no_message(fit <- sample_posterior(bn, list(D = "1"), iter = 2000, min_crossings = 5,
                                            progress = FALSE))
  expect_identical(fit$blocks, list("A", "B", "C"))
  # a product-form table with a rare level ties nothing
  lv <- c("0", "1")
  rare <- array(c(1 - 1e-9, 1e-9, 1 - 1e-9, 1e-9), c(2, 2), list(C = lv, A = lv))
  expect_no_message(sample_posterior(bayes_net(list(A = c(`0` = 0.5, `1` = 0.5), C = rare)),
                                     NULL, iter = 50, progress = FALSE))
  e <- tryCatch(sample_posterior(bn, list(D = "1"), min_crossings = -1), error = function(e) e)
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "min_crossings")
})

test_that("stuck chains are named by a classed warning; forced and rare levels are not", {
  bn <- noisy_xor_bn(1e-9)
  set.seed(3)
  expect_warning(sample_posterior(bn, list(D = "1"), iter = 500, min_crossings = 0,
                                  progress = FALSE),
                 "`A`, `B`, `C` kept one level", class = "mcmix_warning_stuck")
  asia <- bayes_net_asia()
  set.seed(4)   # either = no forces tub = lung = no
  expect_no_warning(sample_posterior(asia, list(either = "no"), iter = 200, progress = FALSE),
                    class = "mcmix_warning_stuck")
  set.seed(5)   # asia = yes has probability 0.01: rare, not stuck
  expect_no_warning(sample_posterior(asia, NULL, iter = 100, progress = FALSE),
                    class = "mcmix_warning_stuck")
})

# V1 -> V2 -> ... -> V21 (copies) -> D: every V has the posterior of V1.
copy_chain_bn <- function(n, eps) {
  lv <- c("0", "1")
  nm <- paste0("V", seq_len(n))
  cp <- list(V1 = c(`0` = 0.3, `1` = 0.7))
  for (i in 2:n)
    cp[[nm[i]]] <- array(c(1 - eps, eps, eps, 1 - eps), c(2, 2),
                         stats::setNames(list(lv, lv), nm[c(i, i - 1)]))
  cp$D <- array(c(0.8, 0.2, 0.1, 0.9), c(2, 2), stats::setNames(list(lv, lv), c("D", nm[n])))
  bayes_net(cp)
}

test_that("a chain of 21 deterministic copies is sampled through its 2 feasible joint values", {
  ch <- copy_chain_bn(21, 0)
  nm <- paste0("V", 1:21)
  ex <- 0.7 * 0.9 / (0.7 * 0.9 + 0.3 * 0.2)
  expect_equal(unname(bn_marginals(ch, list(D = "1"))$V11[2]), ex, tolerance = 1e-12)
  set.seed(6)
  expect_message(fit <- sample_posterior(ch, list(D = "1"), iter = 2000, progress = FALSE),
                 "`V1`, `V2`.*`V21` jointly, as the tables of `V2`, `V3`")
  expect_identical(fit$blocks, list(nm))
  pm <- posterior_marginals(fit)
  for (v in nm) {
    se <- attr(pm, "mcse")[[v]][2]
    expect_true(se > 0 && abs(pm[[v]][2] - ex) < 4 * se, label = v)
  }
  # the same block given by hand is accepted (2 feasible values, not 2^21)
  expect_no_message(fit <- sample_posterior(ch, list(D = "1"), iter = 20, blocks = list(nm),
                                            progress = FALSE))
  expect_identical(fit$blocks, list(nm))
  expect_identical(unname(bn_map(ch, list(D = "1"), method = "anneal", blocks = list(nm),
                                 restarts = 1)$state), rep("1", 21))
})

test_that("a block with too many feasible values is refused, naming `model`, with what works", {
  # a - b - c, 101 levels each, tied by near-equality: all 101^3 joint
  # values are feasible, more than 1e6
  lv <- as.character(1:101)
  near_eq <- function(u, v) {
    a <- matrix(1e-9, 101, 101) + diag(1 - 1e-9, 101)
    array(a, c(101, 101), stats::setNames(list(lv, lv), c(u, v)))
  }
  fa <- array(1:101, 101, list(a = lv))
  fm <- factor_model(list(near_eq("a", "b"), near_eq("b", "c"), fa))
  e <- tryCatch(sample_posterior(fm, NULL, iter = 100, progress = FALSE), error = function(e) e)
  expect_s3_class(e, "mcmix_error_bn_blocks")
  expect_s3_class(e, "mcmix_error_input")
  expect_identical(e$arg, "model")
  expect_match(conditionMessage(e), "more than 1,000,000 feasible joint values")
  expect_match(conditionMessage(e), "bn_marginals() gives the exact marginals", fixed = TRUE)
  expect_match(conditionMessage(e), "min_crossings = 0", fixed = TRUE)
  # what it suggests works: the exact marginals (sum-product on the chain)
  # against the closed form (each row of a near-equality table has the
  # same sum, so P(a) is proportional to a; P(b) to sum_a a f(a, b))
  bm <- bn_marginals(fm)
  expect_equal(unname(bm$a), (1:101) / sum(1:101), tolerance = 1e-10)
  pb <- (1:101) * (1 - 1e-9) + 1e-9 * sum(1:101)
  expect_equal(unname(bm$b), pb / sum(pb), tolerance = 1e-10)
  expect_s3_class(suppressWarnings(sample_posterior(fm, NULL, iter = 10, min_crossings = 0,
                                                    progress = FALSE)), "mcmix_bn_fit")
  # a block given by hand that is too large names `blocks`
  e <- tryCatch(sample_posterior(fm, NULL, blocks = list(c("a", "b", "c")), min_crossings = 0),
                error = function(e) e)
  expect_identical(e$arg, "blocks")
  expect_match(conditionMessage(e), "feasible joint values")
})

test_that("two groups of tied variables are two blocks, and the message says so", {
  lv <- c("0", "1")
  eq <- array(c(1, 0, 0, 1), c(2, 2), list(a = lv, b = lv))
  x3 <- array(0, c(2, 2, 2), list(c = lv, d = lv, e = lv))
  for (i in 1:2) for (j in 1:2) x3[(i + j) %% 2 + 1, i, j] <- 1
  fa <- array(c(1, 2), 2, list(a = lv))
  fc <- array(c(3, 1), 2, list(c = lv))
  fm <- factor_model(list(eq, x3, fa, fc))
  set.seed(7)
  expect_message(fit <- sample_posterior(fm, NULL, iter = 5000, progress = FALSE),
                 paste0("updating `a`, `b` jointly, as `factors\\[\\[1\\]\\]` ties them with ",
                        "zeros; and `c`, `d`, `e` jointly, as `factors\\[\\[2\\]\\]`"))
  expect_identical(fit$blocks, list(c("a", "b"), c("c", "d", "e")))
  S <- as.matrix(expand.grid(a = 1:2, b = 1:2, c = 1:2, d = 1:2, e = 1:2))
  p <- eq[S[, c("a", "b")]] * x3[S[, c("c", "d", "e")]] * fa[S[, "a"]] * fc[S[, "c"]]
  ex <- brute_marginals(S, p, list())
  pm <- posterior_marginals(fit)
  for (v in names(ex))
    expect_true(all(abs(pm[[v]] - ex[[v]]) < 4 * attr(pm, "mcse")[[v]]), label = v)
})

# A five-node network with a loop (A -> B -> D <- C <- A), a three-level
# root, and its tree-structured variant; exact answers by brute force.
bn_loopy <- local({
  L3 <- c("lo", "mid", "hi"); yn <- c("y", "n")
  A <- c(lo = 0.3, mid = 0.5, hi = 0.2)
  B <- array(c(0.9, 0.1, 0.5, 0.5, 0.2, 0.8), c(2, 3), list(B = yn, A = L3))
  C <- array(c(0.1, 0.3, 0.6, 0.7, 0.2, 0.1, 0.3, 0.4, 0.3), c(3, 3), list(C = L3, A = L3))
  D <- array(c(0.95, 0.05, 0.6, 0.4, 0.5, 0.5, 0.3, 0.7, 0.2, 0.8, 0.01, 0.99), c(2, 2, 3),
             list(D = yn, B = yn, C = L3))
  D2 <- array(c(0.9, 0.1, 0.2, 0.8), c(2, 2), list(D = yn, B = yn))
  E <- array(c(0.8, 0.2, 0.25, 0.75), c(2, 2), list(E = yn, D = yn))
  lv <- list(A = L3, B = yn, C = L3, D = yn, E = yn)
  grid <- expand.grid(A = 1:3, B = 1:2, C = 1:3, D = 1:2, E = 1:2)
  joint <- function(Dt) apply(grid, 1L, function(g) {
    dpart <- if (length(dim(Dt)) == 3L) Dt[g["D"], g["B"], g["C"]] else Dt[g["D"], g["B"]]
    A[g["A"]] * B[g["B"], g["A"]] * C[g["C"], g["A"]] * dpart * E[g["E"], g["D"]]
  })
  brute <- function(p, ev) {
    keep <- rep(TRUE, nrow(grid))
    for (v in names(ev)) keep <- keep & grid[[v]] == match(ev[[v]], lv[[v]])
    pp <- p * keep
    list(marg = lapply(stats::setNames(names(lv), names(lv)), function(v)
      stats::setNames(as.vector(tapply(pp, grid[[v]], sum)) / sum(pp), lv[[v]])),
      logZ = log(sum(pp)), map = grid[which.max(pp), ], maxlp = log(max(pp)))
  }
  list(loop = bayes_net(list(A = A, B = B, C = C, D = D, E = E)),
       tree = bayes_net(list(A = A, B = B, C = C, D = D2, E = E)),
       p_loop = joint(D), p_tree = joint(D2), brute = brute, lv = lv)
})

test_that("Bayes-net marginals, evidence and MAP equal brute force on a loopy network", {
  ev <- list(E = "y")
  ex <- bn_loopy$brute(bn_loopy$p_loop, ev)
  bm <- bn_marginals(bn_loopy$loop, evidence = ev)
  for (v in c("A", "B", "C", "D")) expect_equal(unname(bm[[v]]), unname(ex$marg[[v]]), tolerance = 1e-12)
  expect_equal(attr(bm, "log_evidence"), ex$logZ, tolerance = 1e-12)
  expect_error(bn_marginals(bn_loopy$loop, evidence = list(E = "n"), method = "sum_product"),
               "tree")
  for (m in c("auto", "anneal")) {
    set.seed(7)
    mp <- bn_map(bn_loopy$loop, evidence = ev, method = m)
    expect_equal(mp$log_prob, ex$maxlp, tolerance = 1e-12)
    expect_identical(unname(mp$state),
                     vapply(c("A", "B", "C", "D"), function(v)
                       bn_loopy$lv[[v]][ex$map[[v]]], "", USE.NAMES = FALSE))
  }
  skip_on_cran()
  set.seed(3)
  fit <- sample_posterior(bn_loopy$loop, ev, iter = 20000, burnin = 1000, progress = FALSE)
  pm <- posterior_marginals(fit)
  se <- attr(pm, "mcse")
  for (v in c("A", "B", "C", "D"))
    expect_true(all(abs(pm[[v]] - ex$marg[[v]]) < 4 * se[[v]] + 1e-3))
})

test_that("sum-product and max-product equal brute force on a tree with evidence", {
  ev <- list(E = "n", C = "hi")
  ex <- bn_loopy$brute(bn_loopy$p_tree, ev)
  sp <- bn_marginals(bn_loopy$tree, evidence = ev, method = "sum_product")
  for (v in c("A", "B", "D")) expect_equal(unname(sp[[v]]), unname(ex$marg[[v]]), tolerance = 1e-12)
  expect_equal(attr(sp, "log_evidence"), ex$logZ, tolerance = 1e-12)
  mx <- bn_map(bn_loopy$tree, evidence = ev, method = "max_product")
  expect_equal(mx$log_prob, ex$maxlp, tolerance = 1e-12)
  # observing C cuts the loop: sum-product applies to the loopy network too
  ex2 <- bn_loopy$brute(bn_loopy$p_loop, ev)
  sp2 <- bn_marginals(bn_loopy$loop, evidence = ev, method = "sum_product")
  for (v in c("A", "B", "D")) expect_equal(unname(sp2[[v]]), unname(ex2$marg[[v]]), tolerance = 1e-12)
})

test_that("bn_map() checks its annealing arguments whatever the method", {
  asia <- bayes_net_asia()
  expect_error(bn_map(asia, schedule = "a"), "`schedule`")
  expect_error(bn_map(asia, schedule = -1), "`schedule`")
  expect_error(bn_map(asia, restarts = 0), "`restarts`")
  expect_error(bn_map(asia, restarts = NA), "`restarts`")
  expect_error(bn_map(asia, max_icm = -1), "`max_icm`")
  expect_error(bn_map(asia, blocks = list("nonode")), "`blocks`")
  expect_error(bn_map(asia, method = "enumerate", restarts = "a"), "`restarts`")
})

test_that("Gibbs sampling refuses evidence of probability zero instead of returning -Inf draws", {
  asia <- bayes_net_asia()
  set.seed(1)
  expect_error(sample_posterior(asia, list(either = "no", tub = "yes"), iter = 50,
                                progress = FALSE), "`data` has probability zero")
  expect_error(bn_map(asia, evidence = list(either = "no", tub = "yes"), method = "anneal"),
               "`evidence` has probability zero")
  # rare but possible evidence still starts from a state of positive probability
  set.seed(2)
  fit <- sample_posterior(asia, list(either = "yes", tub = "yes", lung = "yes", asia = "yes"),
                          iter = 50, progress = FALSE)
  expect_true(all(is.finite(fit$chains[[1]]$traces[, "log_prob"])))
})
