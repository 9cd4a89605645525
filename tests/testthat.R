library(testthat)
library(mcmix)

test_check("mcmix")
