// varying intercepts and slopes, non-centred, LKJ(2) on the 2 x 2
// correlation: the model of tests/testthat/helper-sleepstudy.R (Stan adds
// the Jacobians of its constrained parameters, as that R target does)
data { int<lower=1> n; int<lower=1> J; vector[n] y; vector[n] x; int<lower=1, upper=J> g[n]; }
parameters {
  real b0; real b1; real<lower=0> s0; real<lower=0> s1;
  real<lower=-1, upper=1> rho; real<lower=0> sigma;
  vector[J] z1; vector[J] z2;
}
model {
  vector[J] u0 = s0 * z1;
  vector[J] u1 = s1 * (rho * z1 + sqrt(1 - rho^2) * z2);
  b0 ~ normal(0, 2); b1 ~ normal(0, 2);
  s0 ~ normal(0, 1); s1 ~ normal(0, 1); sigma ~ normal(0, 1);
  target += log1m(rho^2);
  z1 ~ std_normal(); z2 ~ std_normal();
  y ~ normal(b0 + u0[g] + (b1 + u1[g]) .* x, sigma);
}
