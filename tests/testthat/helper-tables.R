# Closed forms for the product-family and data-table tests, computed in R
# independently of the C code (see helper-mixture.R for the partition
# enumeration helpers).

# Normal-inverse-gamma, one column (Murphy 2007, NIG section): x a vector.
tb_lml_nig <- function(x, m0, kappa, a, b) {
  x <- x[!is.na(x)]
  n <- length(x)
  if (n == 0L) return(0)
  xb <- mean(x)
  kn <- kappa + n
  an <- a + n / 2
  bn <- b + 0.5 * sum((x - xb)^2) + kappa * n * (xb - m0)^2 / (2 * kn)
  lgamma(an) - lgamma(a) + a * log(b) - an * log(bn) + 0.5 * log(kappa / kn) -
    n / 2 * log(2 * pi)
}

# Dirichlet-multinomial for a vector of categories (factor), one per row.
tb_lml_cat <- function(f, alpha) {
  f <- f[!is.na(f)]
  if (!length(f)) return(0)
  c <- as.vector(table(f))
  lgamma(sum(alpha)) - lgamma(sum(alpha) + sum(c)) + sum(lgamma(alpha + c) - lgamma(alpha))
}

# Beta-Bernoulli for a 0/1 vector.
tb_lml_bern <- function(x, a, b) {
  x <- x[!is.na(x)]
  if (!length(x)) return(0)
  s <- sum(x)
  lbeta(a + s, b + length(x) - s) - lbeta(a, b)
}

# A small mixed table: 2 numeric, 1 categorical (3 levels), 1 binary column.
tb_mixed <- function(n, seed) {
  set.seed(seed)
  g <- rep(1:2, length.out = n)
  data.frame(x1 = round(stats::rnorm(n, c(-1.5, 1.5)[g]), 2),
             x2 = round(stats::rnorm(n, c(0, 1)[g]), 2),
             cat = factor(c("a", "b", "c")[ifelse(g == 1, 1L, sample(2:3, n, TRUE))],
                          levels = c("a", "b", "c")),
             bin = g == 2)
}

# The product family used with tb_mixed(), all hyperparameters fixed.
tb_family <- function() {
  product_family(x1 = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                 x2 = gaussian_diag(prior_mean = 0, kappa = 0.5, shape = 2, rate = 1),
                 cat = categorical_dirichlet(alpha = 1),
                 bin = bernoulli_beta(a = 1, b = 1))
}

# log p(cluster data) of tb_family() for the rows of `df`.
tb_lml_mixed <- function(df) {
  tb_lml_nig(df$x1, 0, 0.5, 2, 1) + tb_lml_nig(df$x2, 0, 0.5, 2, 1) +
    tb_lml_cat(df$cat, rep(1, 3)) + tb_lml_bern(as.numeric(df$bin), 1, 1)
}
