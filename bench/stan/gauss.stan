// correlated Gaussian with precision matrix P (bench/bench-nuts-onecall.R)
data { int<lower=1> d; matrix[d, d] P; }
parameters { vector[d] x; }
model { target += -0.5 * quad_form(P, x); }
