// fresgld mixture's model (models.FiniteMixture) on the standardised
// data: K normals, ordered means ~ N(xi, R^2), precisions
// ~ Gamma(alpha, rate beta), weights ~ Dirichlet(e0). Stan 2.21 syntax.
data { int<lower=1> N; int<lower=2> K; vector[N] y; real xi; real<lower=0> R; real<lower=0> alpha; real<lower=0> beta; real<lower=0> e0; }
parameters { ordered[K] mu; vector<lower=0>[K] tau; simplex[K] w; }
model {
  vector[K] lw = log(w); vector[K] s = inv_sqrt(tau);
  mu ~ normal(xi, R); tau ~ gamma(alpha, beta); w ~ dirichlet(rep_vector(e0, K));
  for (i in 1:N) { vector[K] lp; for (k in 1:K) lp[k] = lw[k] + normal_lpdf(y[i] | mu[k], s[k]); target += log_sum_exp(lp); }
}
