# Discrete Bayesian networks (R/bayesnet.R): Gibbs marginals against exact
# marginals by brute-force enumeration written here independently of the
# package; sum-product and max-product on trees against brute force.

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
  expect_output(print(summary(b)), "Posterior marginals")
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
               "`a`, `b`, `c`, `d`.*more than 1,000,000 feasible joint values")
})
