// d-dimensional standard normal (bench/bench-nuts-onecall.R)
data { int<lower=1> d; }
parameters { vector[d] x; }
model { target += -0.5 * dot_self(x); }
