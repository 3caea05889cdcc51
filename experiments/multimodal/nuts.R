# Stan's NUTS (rstan, default settings: 4 chains, 1000 warmup iterations,
# cores = 1) on fresgld's spike-and-slab regression: the same standardised
# data, noise sd σ and prior β_j ~ w·N(0, s1²) + (1 − w)·N(0, s0²).
#   Rscript nuts.R DIR...
# Each DIR holds design.csv (features, then the response; no header) and
# settings.csv (sigma, w, s0, s1, seed, target: CPU seconds for the
# equal-CPU run). For each DIR it runs NUTS at the default 2000 iterations
# and then, if target exceeds the default run's warmup CPU, once more with
# the sampling iterations scaled so that warmup plus sampling take about
# target CPU seconds (from the default run's seconds per iteration). Per run
# TAG (default, equal) it writes draws_TAG.csv (β draws, chains stacked),
# mcse_TAG.csv (per coefficient: MCSE of the mean of β_j and of its
# Rao–Blackwellised inclusion probability, posterior::mcse_mean) and
# info_TAG.csv (iterations, warmup and sampling CPU seconds summed over
# chains from get_elapsed_time, compilation excluded, largest R-hat,
# leapfrog steps of all chains, warmup included).
suppressPackageStartupMessages({ library(rstan); library(posterior) })
code <- "
data { int<lower=1> N; int<lower=1> p; matrix[N, p] X; vector[N] y;
       real<lower=0> sigma; real<lower=0, upper=1> w; real<lower=0> s0; real<lower=0> s1; }
parameters { vector[p] beta; }
model {
  for (j in 1:p) target += log_mix(w, normal_lpdf(beta[j] | 0, s1), normal_lpdf(beta[j] | 0, s0));
  y ~ normal(X * beta, sigma);
}
"
# Debian's r-cran-bh is an empty stand-in for libboost-dev, whose headers
# are in /usr/include, where rstan 2.21 does not look ("Boost not found").
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) rstan_options(boost_lib = "/usr/include")
m <- stan_model(model_code = code)
incl <- function(b, w, s0, s1) { a <- w * dnorm(b, 0, s1); a / (a + (1 - w) * dnorm(b, 0, s0)) }
run <- function(dir, d, st, iter, tag) {
  p <- ncol(d) - 1
  fit <- sampling(m, data = list(N = nrow(d), p = p, X = d[, 1:p, drop = FALSE], y = d[, p + 1],
                                 sigma = st$sigma, w = st$w, s0 = st$s0, s1 = st$s1),
                  chains = 4, iter = iter, warmup = 1000, cores = 1, seed = st$seed, refresh = 0)
  t <- get_elapsed_time(fit)
  b <- subset_draws(as_draws_array(fit), variable = "beta")
  r <- b
  r[] <- incl(as.numeric(b), st$w, st$s0, st$s1)
  sb <- summarise_draws(b, "mcse_mean", "rhat")
  sr <- summarise_draws(r, "mcse_mean")
  write.table(as_draws_matrix(b), file.path(dir, paste0("draws_", tag, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
  write.table(cbind(sb$mcse_mean, sr$mcse_mean), file.path(dir, paste0("mcse_", tag, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
  leap <- sum(sapply(get_sampler_params(fit, inc_warmup = TRUE), function(x) sum(x[, "n_leapfrog__"])))
  info <- c(iter, sum(t[, "warmup"]), sum(t[, "sample"]), max(sb$rhat), leap)
  write.table(t(info), file.path(dir, paste0("info_", tag, ".csv")), sep = ",", row.names = FALSE, col.names = FALSE)
  info
}
for (dir in commandArgs(trailingOnly = TRUE)) {
  d <- as.matrix(read.csv(file.path(dir, "design.csv"), header = FALSE))
  st <- read.csv(file.path(dir, "settings.csv"))
  info <- run(dir, d, st, 2000, "default")
  per <- info[3] / 1000
  if (st$target > info[2] + 10 * per) {
    run(dir, d, st, 1000 + max(10, round((st$target - info[2]) / per)), "equal")
  }
}
