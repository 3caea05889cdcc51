// A posterior known exactly, for sample --stan's test: mu | y is normal,
// s is its gamma prior (no data touch it) on a bounded scale, mu2 a
// generated quantity and half_s a transformed parameter.
data {
  int<lower=1> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> s;
}
transformed parameters {
  real half_s = s / 2;
}
model {
  mu ~ normal(0, 1);
  y ~ normal(mu, 1);
  s ~ gamma(3, 2);
}
generated quantities {
  real mu2 = mu * mu;
}
