data {
  int N;
  array[N] real y;
}
parameters {
  real mu;
}
model {
  y ~ normal(mu, 1);
}
