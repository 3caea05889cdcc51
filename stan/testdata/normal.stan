// A normal model with a bounded scale, a transformed parameter, a
// generated quantity and a matrix in its data: package stan's tests.
data {
  int N;
  vector[N] y;
  matrix[2, 3] A;
}
parameters {
  real mu;
  real<lower=0> sigma;
}
transformed parameters {
  real a12 = A[1, 2] * mu;
}
model {
  if (mu > 50) reject("mu = ", mu, " is beyond 50");
  y ~ normal(mu, sigma);
  mu ~ normal(0, 10);
  sigma ~ exponential(1);
}
generated quantities {
  real yrep = normal_rng(mu, sigma);
}
