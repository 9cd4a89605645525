// logistic regression, prior N(0, 10^2 I) (bench/bench-nuts-onecall.R)
data { int<lower=1> n; int<lower=1> p; matrix[n, p] X; int<lower=0, upper=1> y[n]; }
parameters { vector[p] b; }
model { b ~ normal(0, 10); y ~ bernoulli_logit(X * b); }
