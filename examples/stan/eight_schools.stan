// Eight schools (Rubin 1981; Gelman et al., Bayesian Data Analysis, 5.5),
// non-centred: the effects of a coaching programme on SAT scores in eight
// schools, partially pooled towards their mean mu with spread tau.
data {
  int<lower=0> J;
  real y[J];
  real<lower=0> sigma[J];
}
parameters {
  real mu;
  real<lower=0> tau;
  vector[J] theta_raw;
}
transformed parameters {
  vector[J] theta = mu + tau * theta_raw;
}
model {
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
  theta_raw ~ normal(0, 1);
  y ~ normal(theta, sigma);
}
