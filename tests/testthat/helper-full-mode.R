# The long form of the exact-posterior and calibration checks outside the
# exact sweep. MCMIX_EXACT_SWEEP=full (`make exact`, which also runs the
# files that use exact_iter()) runs them with their full iteration counts;
# the default suite runs each with a third of the iterations. Their
# tolerances follow from the number of draws (mx_tv_bound() in
# helper-mixture.R, Monte Carlo standard errors), so the short form checks
# the same thing with less power.
exact_full <- function() identical(Sys.getenv("MCMIX_EXACT_SWEEP"), "full")
exact_iter <- function(n, share = 1 / 3) if (exact_full()) n else as.integer(ceiling(n * share))
