# The exact-enumeration sweep of the grouped and topic models (full mode
# only, MCMIX_EXACT_SWEEP=full, `make exact`; their always-on exact tests
# are in test-hdp.R, test-lda.R and test-lda-mh.R). A failure names the
# combination "[model, ...]".
#
# HDP mixture: every algorithm ("gibbs", "split_merge", "subcluster") x
# family kinds (gaussian_diag, poisson_gamma; the product families with
# and without missing cells: niw + poisson + categorical, gaussian_diag +
# categorical + poisson, three categorical columns) on N rows in three
# groups (N = 6 and 8: 203 and 4140 partitions), fixed concentrations,
# against the exact posterior over partitions (the Chinese restaurant
# franchise prior, helper-hdp.R, times the closed-form marginals of
# helper-sweep.R): P(K = k) and every co-clustering probability, z within
# 4.5, 20000 iterations. The sub-cluster moves of the HDP share the
# proposals' geometry of the DP sampler (missing cells included).
#
# LDA: every sampler ("sparse", "dense", "blocked", "mh" with one and two
# steps) x two tiny corpora (a token list, K = 2; a count matrix with
# repeated tokens, K = 3) against the exact posterior of z by enumerating
# the K^N assignments (helper-lda.R): every pair of tokens in one topic (z
# within 4.5) and the total-variation distance, 40000 sweeps.

sxm_full <- identical(Sys.getenv("MCMIX_EXACT_SWEEP"), "full")

# ---- HDP --------------------------------------------------------------------

sxm_hdp_cases <- list(
  list(kind = "gaussian_diag", na = "none"),
  list(kind = "poisson_gamma", na = "none"),
  list(kind = "product_family", na = "none"),
  list(kind = "product_family", na = "integrated"),
  list(kind = "product_mixed", na = "integrated"),
  list(kind = "product_categorical", na = "integrated"))

# Exact posterior over the partitions of the case's N rows in groups grp
# (named by partition key, the order of sw_partitions()).
sxm_hdp_exact <- function(case, grp, gamma, alpha) {
  P <- sw_partitions(NROW(case$data))
  lp <- sw_case_ll(case) + apply(P, 1L, hdp_log_prior_r, grp = grp, gamma = gamma,
                                 alpha = alpha)
  p <- exp(lp - max(lp))
  stats::setNames(p / sum(p), mx_keys(P))
}

for (N in c(6L, 8L)) {
  test_that(sprintf("every HDP algorithm matches the exact posterior, N = %d", N), {
    if (!sxm_full) skip("the full exact sweep only (MCMIX_EXACT_SWEEP=full)")
    grp <- rep(1:3, c(3L, 3L, N - 6L + 2L))[seq_len(N)]
    gm <- 0.8; al <- 1.5
    for (cs in sxm_hdp_cases) {
      case <- sw_case(cs$kind, cs$na, N)
      ex <- sxm_hdp_exact(case, grp, gm, al)
      for (alg in c("gibbs", "split_merge", "subcluster")) {
        label <- sprintf("[model hdp, N = %d, family %s, missing %s, algorithm %s]", N,
                         cs$kind, cs$na, alg)
        set.seed(1)
        fit <- tryCatch(sample_posterior(hdp_mixture(case$family, gamma = gm, alpha = al),
                                         case$data, group = grp, iter = 20000, burnin = 500,
                                         algorithm = alg, progress = FALSE),
                        error = function(e) e)
        if (inherits(fit, "error")) {
          fail(sprintf("%s: %s", label, conditionMessage(fit)))
          next
        }
        Z <- fit$chains[[1]]$labels
        K <- apply(Z, 1L, function(z) length(unique(z)))
        z <- sw_zscores(Z, ex, n_eff = if (stats::var(K) > 0) ess(K))$z
        expect_lt(max(abs(z)), 4.5,
                  label = sprintf("%s: max |z| (%s)", label, names(z)[which.max(abs(z))]))
      }
    }
  })
}

# ---- LDA --------------------------------------------------------------------

test_that("every LDA sampler matches the exact posterior of z", {
  if (!sxm_full) skip("the full exact sweep only (MCMIX_EXACT_SWEEP=full)")
  corpora <- list(
    tokens = list(K = 2, alpha = 0.6, beta = 0.4,
                  corpus = mcmix:::lda_corpus(list(c(1, 1, 2), c(2, 3, 3)), NULL)),
    counts = list(K = 3, alpha = 0.5, beta = 0.2,
                  corpus = mcmix:::lda_corpus(matrix(c(2, 1, 0, 0, 1, 1), nrow = 2,
                                                     byrow = TRUE), NULL)))
  samplers <- list(sparse = list("sparse", 2L), dense = list("dense", 2L),
                   blocked = list("blocked", 2L), mh1 = list("mh", 1L), mh2 = list("mh", 2L))
  for (cn in names(corpora)) {
    cc <- corpora[[cn]]
    m <- lda_model(cc$K, alpha = cc$alpha, beta = cc$beta)
    ex <- mh_exact_posterior(cc$corpus, cc$K, cc$alpha, cc$beta)
    for (sn in names(samplers)) {
      label <- sprintf("[model lda, corpus %s, sampler %s] ", cn, sn)
      key <- tryCatch(mh_keys(m, cc$corpus, 40000, steps = samplers[[sn]][[2]], seed = 5,
                              algorithm = samplers[[sn]][[1]]), error = function(e) e)
      if (inherits(key, "error")) {
        fail(paste0(label, conditionMessage(key)))
        next
      }
      mh_expect_exact(ex, key, label)
    }
  }
})
