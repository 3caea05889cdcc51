# Stan's NUTS (rstan: 4 chains, 1000 warmup iterations, cores = 1) on the
# tempering study's posteriors: the same standardised data and prior
# β_j ~ w·N(0, s1²) + (1 − w)·N(0, s0²), under a linear model with noise
# sd sigma (kind "linear") or a logistic one with an intercept
# ~ N(0, sigma0²) (kind "logistic"); or (kind "mixture", the design one
# column of standardised data) fresgld mixture's K normals: ordered means
# ~ N(xi, R²), precisions ~ Gamma(alpha, rate beta), weights
# ~ Dirichlet(e0), drawn as mu, tau, w; or (kind "harmonic", the one
# column a standardised series) models.Harmonic: a line and a sinusoid of
# frequency w ~ U(lo, pi), coefficients ~ N(0, (sigma S)^2), p(sigma) ∝
# 1/sigma, drawn as w alone.
#   Rscript nuts.R DIR
# DIR holds design.csv (the coefficients' features, then the response; no
# header; a mixture: its one column of data) and settings.csv (kind, sigma,
# sigma0, w, s0, s1, seeds, target, K, xi, R, alpha, beta, e0, S, lo; target:
# CPU seconds a run). Each seed 1 … seeds runs with the sampling
# iterations that make warmup plus sampling about target CPU seconds (at
# least 10), measured by a first run of seed 1 at 2000 iterations where
# warmup alone takes less than the target. Per seed s it writes
# draws_s.csv (β draws, chains stacked) and info_s.csv (iterations a
# chain, warmup and sampling CPU seconds summed over chains from
# get_elapsed_time, compilation excluded, largest R-hat, leapfrog steps of
# all chains, warmup included, and divergent transitions of all chains
# after warmup).
suppressPackageStartupMessages({ library(rstan); library(posterior) })
code <- "
data { int<lower=1> N; int<lower=1> p; matrix[N, p] X; vector[N] y; int<lower=0, upper=1> logistic;
       real<lower=0> sigma; real<lower=0> sigma0; real<lower=0, upper=1> w; real<lower=0> s0; real<lower=0> s1; }
transformed data { int yi[N]; for (i in 1:N) yi[i] = logistic ? (y[i] > 0.5) : 0; }
parameters { vector[p] beta; vector[logistic] alpha; }
model {
  for (j in 1:p) target += log_mix(w, normal_lpdf(beta[j] | 0, s1), normal_lpdf(beta[j] | 0, s0));
  if (logistic) { alpha ~ normal(0, sigma0); yi ~ bernoulli_logit(alpha[1] + X * beta); }
  else y ~ normal(X * beta, sigma);
}
"
# Debian's r-cran-bh is an empty stand-in for libboost-dev, whose headers
# are in /usr/include, where rstan 2.21 does not look ("Boost not found").
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) rstan_options(boost_lib = "/usr/include")
mixcode <- "
data { int<lower=1> N; int<lower=2> K; vector[N] y; real xi; real<lower=0> R; real<lower=0> alpha; real<lower=0> beta; real<lower=0> e0; }
parameters { ordered[K] mu; vector<lower=0>[K] tau; simplex[K] w; }
model {
  vector[K] lw = log(w); vector[K] s = inv_sqrt(tau);
  mu ~ normal(xi, R); tau ~ gamma(alpha, beta); w ~ dirichlet(rep_vector(e0, K));
  for (i in 1:N) { vector[K] lp; for (k in 1:K) lp[k] = lw[k] + normal_lpdf(y[i] | mu[k], s[k]); target += log_sum_exp(lp); }
}
"
harmcode <- "
data { int<lower=8> N; vector[N] y; real<lower=0> S; real<lower=0> lo; }
transformed data { vector[N] t; for (i in 1:N) t[i] = i - 1; }
parameters { real<lower=lo, upper=pi()> w; vector[4] b; real<lower=0> sigma; }
model {
  target += -log(sigma);
  b ~ normal(0, sigma * S);
  y ~ normal(b[1] + b[2] * t / (N - 1) + b[3] * cos(w * t) + b[4] * sin(w * t), sigma);
}
"
dir <- commandArgs(trailingOnly = TRUE)[1]
d <- as.matrix(read.csv(file.path(dir, "design.csv"), header = FALSE))
st <- read.csv(file.path(dir, "settings.csv"))
p <- ncol(d) - 1
if (st$kind == "mixture") {
  m <- stan_model(model_code = mixcode)
  dat <- list(N = nrow(d), K = st$K, y = d[, 1], xi = st$xi, R = st$R, alpha = st$alpha, beta = st$beta, e0 = st$e0)
  vars <- c("mu", "tau", "w")
} else if (st$kind == "harmonic") {
  m <- stan_model(model_code = harmcode)
  dat <- list(N = nrow(d), y = d[, 1], S = st$S, lo = st$lo)
  vars <- "w"
} else {
  m <- stan_model(model_code = code)
  dat <- list(N = nrow(d), p = p, X = d[, 1:p, drop = FALSE], y = d[, p + 1], logistic = as.integer(st$kind == "logistic"),
              sigma = st$sigma, sigma0 = st$sigma0, w = st$w, s0 = st$s0, s1 = st$s1)
  vars <- "beta"
}
run <- function(iter, seed, tag) {
  fit <- sampling(m, data = dat, chains = 4, iter = iter, warmup = 1000, cores = 1, seed = seed, refresh = 0)
  t <- get_elapsed_time(fit)
  b <- subset_draws(as_draws_array(fit), variable = vars)
  leap <- sum(sapply(get_sampler_params(fit, inc_warmup = TRUE), function(x) sum(x[, "n_leapfrog__"])))
  div <- sum(sapply(get_sampler_params(fit, inc_warmup = FALSE), function(x) sum(x[, "divergent__"])))
  info <- c(iter, sum(t[, "warmup"]), sum(t[, "sample"]), max(summarise_draws(b, "rhat")$rhat), leap, div)
  if (tag != "") {
    write.table(as_draws_matrix(b), file.path(dir, paste0("draws_", tag, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
    write.table(t(info), file.path(dir, paste0("info_", tag, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
  }
  info
}
# Seed 1 first at the shortest length, 10 draws after warmup: where its
# warmup alone outlasts the target, that is every seed's length, and the
# pilot (which would say the same) is not run; at 10^4 rows a run of warmup
# takes about half an hour.
first <- run(1010, 1, "1")
if (first[2] >= st$target) {
  for (s in seq_len(st$seeds)[-1]) run(1010, s, as.character(s))
} else {
  first <- run(2000, 1, "")
  per <- first[3] / 1000
  iter <- 1000 + max(10, round((st$target - first[2]) / per))
  for (s in seq_len(st$seeds)) run(iter, s, as.character(s))
}
