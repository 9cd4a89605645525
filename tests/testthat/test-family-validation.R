# Bad hyperparameters and bad data are refused in R with messages naming the
# argument and the value; family objects, the registry and the low-level
# constructor.

test_that("negative, NA and non-finite hyperparameters are refused, naming argument and value", {
  expect_error(gaussian_niw(kappa = -1), "`kappa` must be a positive number, not -1.", fixed = TRUE)
  expect_error(gaussian_niw(kappa = NA), "`kappa` must be a positive number, not NA.", fixed = TRUE)
  expect_error(gaussian_niw(kappa = Inf), "`kappa`.*Inf")
  expect_error(gaussian_niw(kappa = c(1, 2)), "`kappa`.*c\\(1, 2\\)")
  expect_error(gaussian_niw(kappa = "a"), "`kappa`.*\"a\"")
  expect_error(gaussian_niw(df = 0), "`df` must be a positive number, not 0.", fixed = TRUE)
  expect_error(gaussian_niw(prior_mean = c(0, NA)), "`prior_mean`.*NA")
  expect_error(gaussian_niw(scale = -2), "`scale`.*-2")
  expect_error(gaussian_mean(cov = NA), "`cov`.*NA")
  expect_error(gaussian_mean(cov = 0), "`cov`.*0")
  expect_error(gaussian_mean(prior_cov = -1), "`prior_cov`.*-1")
  expect_error(gaussian_mean(prior_mean = Inf), "`prior_mean`.*Inf")
  expect_error(gaussian_diag(kappa = c(1, -3)), "`kappa`.*-3")
  expect_error(gaussian_diag(shape = 0), "`shape` must be a positive number, not 0.", fixed = TRUE)
  expect_error(gaussian_diag(rate = NA), "`rate`.*NA")
  expect_error(bernoulli_beta(a = -1), "`a` must be a positive number, not -1.", fixed = TRUE)
  expect_error(bernoulli_beta(b = c(1, NA)), "`b`.*NA")
  expect_error(categorical_dirichlet(alpha = 0), "`alpha` must be a positive number, not 0.", fixed = TRUE)
  expect_error(categorical_dirichlet(alpha = c(1, -0.5)), "`alpha`.*-0.5")
  expect_error(poisson_gamma(shape = -2), "`shape` must be a positive number, not -2.", fixed = TRUE)
  expect_error(poisson_gamma(rate = NaN), "`rate`.*NaN")
  expect_error(poisson_gamma(rate = list(1)), "`rate`")
})

test_that("non-positive-definite and non-symmetric matrices are refused", {
  bad <- matrix(c(1, 2, 2, 1), 2)
  expect_error(gaussian_niw(scale = bad),
               "`scale` must be a symmetric positive-definite matrix; its smallest eigenvalue is -1.",
               fixed = TRUE)
  expect_error(gaussian_mean(cov = bad), "`cov` must be a symmetric positive-definite matrix")
  expect_error(gaussian_mean(prior_cov = matrix(c(1, 0.5, 0, 1), 2)),
               "`prior_cov` must be a symmetric positive-definite matrix; it is not symmetric.",
               fixed = TRUE)
  expect_error(gaussian_mean(cov = matrix(1, 2, 3)), "`cov` must be a symmetric positive-definite matrix")
  expect_error(gaussian_niw(scale = matrix(c(1, NA, NA, 1), 2)), "`scale`.*missing")
  expect_error(gaussian_niw(scale = matrix(0, 2, 2)), "`scale`.*smallest eigenvalue is 0")
})

test_that("hyperparameters of the wrong dimension are refused when the data are seen", {
  set.seed(1)
  x <- matrix(rnorm(20), 10)
  expect_error(fam_prepare(gaussian_niw(scale = diag(3)), x),
               "`scale` is a 3 x 3 matrix but `data` has 2 columns.", fixed = TRUE)
  expect_error(fam_prepare(gaussian_niw(prior_mean = c(1, 2, 3)), x),
               "`prior_mean` has length 3 but `data` has 2 columns.", fixed = TRUE)
  expect_error(fam_prepare(gaussian_mean(cov = diag(3)), x), "`cov` is a 3 x 3 matrix")
  expect_error(fam_prepare(gaussian_diag(rate = c(1, 2, 3)), x), "`rate` has length 3")
  expect_error(fam_prepare(bernoulli_beta(a = c(1, 2, 3)), matrix(0:1, 4, 2)), "`a` has length 3")
  expect_error(fam_prepare(poisson_gamma(shape = 1:3), matrix(1, 4, 2)), "`shape` has length 3")
  expect_error(fam_prepare(categorical_dirichlet(alpha = c(1, 2)), diag(3)), "`alpha` has length 2")
  expect_error(fam_prepare(gaussian_niw(df = 1.5), matrix(rnorm(30), 10)),
               "`df` must be greater than 2")
})

test_that("hyperparameters that disagree on the dimension are refused at construction", {
  expect_error(gaussian_niw(prior_mean = c(0, 0), scale = diag(3)),
               "`scale` is a 3 x 3 matrix but `prior_mean` has length 2; they must have the same dimension.",
               fixed = TRUE)
  expect_error(gaussian_mean(cov = diag(2), prior_cov = diag(3)), "`prior_cov` is a 3 x 3 matrix")
  expect_error(gaussian_diag(kappa = c(1, 2), rate = c(1, 2, 3)), "`rate` has length 3 but `kappa` has length 2")
  expect_error(bernoulli_beta(a = c(1, 2), b = c(1, 2, 3)), "`b` has length 3")
  expect_error(poisson_gamma(shape = c(1, 2), rate = 1:3), "`rate` has length 3")
  expect_s3_class(gaussian_niw(prior_mean = 0, scale = diag(3)), "mcmix_family")
})

test_that("bad data are refused, saying what is wrong and where", {
  x <- matrix(rnorm(20), 10)
  x[3, 2] <- NA
  # missing values are modelled (R/impute.R), except by non-conjugate families
  expect_identical(family_prepare(gaussian_niw(), x, missing = TRUE)$name, "product")
  expect_error(fam_prepare(gaussian_nonconj(), x), "`data` has a missing value in row 3, column 2.",
               fixed = TRUE)
  x[3, 2] <- Inf
  expect_error(fam_prepare(gaussian_niw(), x), "`data` has a non-finite value (Inf) in row 3, column 2.",
               fixed = TRUE)
  expect_error(fam_prepare(gaussian_mean(), 1), "`data` must have at least 2 rows, not 1.",
               fixed = TRUE)
  expect_error(fam_prepare(gaussian_diag(), letters), "`data` must be a numeric vector, matrix or data frame, not a character vector.",
               fixed = TRUE)
  expect_error(fam_prepare(gaussian_diag(), data.frame(a = 1:3, b = letters[1:3])),
               "`data` must have numeric columns only; column 2 (`b`) is a character vector.",
               fixed = TRUE)
  expect_error(fam_prepare(bernoulli_beta(), c(0, 1, 0.5)),
               "`data` must contain only 0 and 1 for the bernoulli_beta family; row 3, column 1 is 0.5.",
               fixed = TRUE)
  expect_error(fam_prepare(poisson_gamma(), cbind(c(1, 2), c(3, -1))),
               "`data` must contain non-negative whole numbers (counts) for the poisson_gamma family; row 2, column 2 is -1.",
               fixed = TRUE)
  expect_error(fam_prepare(poisson_gamma(), c(1, 2.5)), "row 2, column 1 is 2.5")
  expect_error(fam_prepare(categorical_dirichlet(), c(1, 0, 2)), "`data` must hold category numbers.*row 2 is 0")
  expect_error(fam_prepare(categorical_dirichlet(), factor(c("a", NA))), "`data` has a missing value in row 2.")
  expect_error(fam_prepare(gaussian_mean(), cbind(c(1, 1, 1), c(1, 2, 3))),
               "default for `cov`.*column 1 is constant")
  expect_error(fam_prepare(gaussian_niw(), x = NULL), "unused argument")
  expect_error(fam_prepare(list(), 1:3), "`family` must be an mcmix family")
})

test_that("data frames and vectors are converted to numeric matrices", {
  df <- data.frame(a = c(1, 2, 4), b = c(TRUE, FALSE, TRUE))
  prep <- fam_prepare(gaussian_diag(), df)
  expect_equal(prep$x, cbind(c(1, 2, 4), c(1, 0, 1)), ignore_attr = TRUE)
  expect_identical(dim(fam_prepare(gaussian_niw(), c(1, 3, 2))$x), c(3L, 1L))
})

test_that("family objects print and list the registered families", {
  expect_true(all(c("gaussian_mean", "gaussian_niw", "gaussian_diag", "bernoulli_beta",
                    "categorical_dirichlet", "poisson_gamma") %in% mcmix_families()))
  f <- gaussian_niw(kappa = 0.5)
  expect_s3_class(f, "mcmix_family")
  expect_output(print(f), "gaussian_niw")
  expect_output(print(f), "kappa: 0.5")
  out <- capture.output(res <- withVisible(print(poisson_gamma())))
  expect_false(res$visible)
})

test_that("mcmix_family() builds a family for any registered name and checks its input", {
  f <- mcmix_family("poisson_gamma", hyper = c(2, 1), dim = 1, data_type = "count",
                    param_names = "rate")
  expect_s3_class(f, "mcmix_family")
  x <- c(3, 1, 4, 1, 5)
  # same as the built-in constructor
  expect_equal(fam_eval(f, x, "log_marginal"), fam_eval(poisson_gamma(2, 1), x, "log_marginal"))
  prep <- fam_prepare(f, x)
  expect_equal(mcmix:::family_param_names(prep), "rate")
  th <- fam_eval(prep, NULL, "param_draw", 1)[1, ]
  expect_equal(fam_unpack(prep, th), list(rate = th[[1]]))
  expect_error(fam_prepare(f, c(1, -2)), "`data` must contain non-negative whole numbers")
  expect_error(fam_prepare(f, cbind(1:3, 1:3)), "`data` has 2 columns but the family has dimension 1.")
  expect_error(mcmix_family("no_such_family", 1), "`name` must be a registered family, not \"no_such_family\"")
  expect_error(mcmix_family("poisson_gamma", c(1, NA)), "`hyper`.*NA")
  expect_error(mcmix_family("poisson_gamma", 1, dim = 0), "`dim` must be a positive whole number, not 0.")
  expect_error(mcmix_family("poisson_gamma", 1, data_type = "words"), "data_type")
  # a hyperparameter vector that does not fit is an internal error from C
  g <- mcmix_family("poisson_gamma", hyper = 1, data_type = "count")
  expect_error(fam_eval(g, c(1, 2), "log_marginal"), "refused its hyperparameter vector")
  # unnamed parameters
  h <- mcmix_family("gaussian_mean", hyper = c(1, 0, 4), dim = 1)
  prep <- fam_prepare(h, c(0.1, 0.2))
  expect_equal(mcmix:::family_param_names(prep), "theta[1]")
})
