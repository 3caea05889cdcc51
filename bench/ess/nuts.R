# Stan's NUTS (rstan, default settings: 4 chains, iter 2000, 1000 warmup,
# cores = 1) on the design written by bench/ess, the posterior fresgld
# samples:
#   logistic  the standardised features (and intercept) of design.csv, label
#             last, N(0, 1) prior (fresgld logistic, and the Python example
#             of fresgld sample);
#   regress   the standardised features and response of design.csv (no
#             intercept), noise sd σ fixed and the continuous spike-and-slab
#             prior w·N(0, s1²) + (1 − w)·N(0, s0²) of prior.csv, fresgld
#             regress's model.
# Only the coefficients (beta) count: the smallest bulk ESS and largest R-hat
# over them (posterior package), and for regress the largest |inclusion −
# exact| over them, the inclusion Rao–Blackwellised as fresgld reports it
# (the mean over draws of the slab's share of the prior density at β_j)
# against exact_inclusion.csv. The CPU time is the whole sampling() call,
# warmup and sampling (user + system time of the R process, proc.time();
# the model's compilation excluded, printed apart). Writes nuts.json beside
# the design.
# ITER (default 2000, Stan's) sets iter, half of it warmup: a longer run to
# compare at equal CPU time; SEED (default 1) is sampling()'s seed.
#   Rscript bench/ess/nuts.R DIR [logistic|regress] [ITER] [SEED]
suppressPackageStartupMessages({ library(rstan); library(posterior) })
# Debian's r-cran-bh keeps the Boost headers in /usr/include, not in the BH
# package, where rstan looks for them.
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) {
  rstan_options(boost_lib = "/usr/include")
}
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) > 0) args[1] else file.path(tempdir(), "fresgld-ess")
kind <- if (length(args) > 1) args[2] else "logistic"
iter <- if (length(args) > 2) as.integer(args[3]) else 2000L
seed <- if (length(args) > 3) as.integer(args[4]) else 1L
d <- as.matrix(read.csv(file.path(dir, "design.csv"), header = FALSE))
p <- ncol(d) - 1
X <- d[, 1:p, drop = FALSE]
cpu <- function() { t <- proc.time(); sum(t[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE) }
if (kind == "logistic") {
  code <- "
data { int<lower=1> N; int<lower=1> p; matrix[N, p] X; int<lower=0, upper=1> y[N]; }
parameters { vector[p] beta; }
model { beta ~ normal(0, 1); y ~ bernoulli_logit_glm(X, 0, beta); }
"
  data <- list(N = nrow(X), p = p, X = X, y = as.integer(d[, p + 1]))
} else if (kind == "regress") {
  pr <- read.csv(file.path(dir, "prior.csv"))
  code <- "
data { int<lower=1> N; int<lower=1> p; matrix[N, p] X; vector[N] y; real<lower=0> sigma;
  real<lower=0, upper=1> w; real<lower=0> s0; real<lower=0> s1; }
parameters { vector[p] beta; }
model {
  for (j in 1:p) target += log_mix(w, normal_lpdf(beta[j] | 0, s1), normal_lpdf(beta[j] | 0, s0));
  y ~ normal(X * beta, sigma);
}
"
  data <- list(N = nrow(X), p = p, X = X, y = d[, p + 1], sigma = pr$sigma, w = pr$w, s0 = pr$s0, s1 = pr$s1)
} else {
  stop("unknown model ", kind, ": logistic or regress")
}
c0 <- cpu()
m <- stan_model(model_code = code)
c1 <- cpu()
fit <- sampling(m, data = data, chains = 4, iter = iter, cores = 1, seed = seed, refresh = 0)
c2 <- cpu()
t <- get_elapsed_time(fit)
draws <- subset_draws(as_draws_array(fit), variable = "beta")
s <- summarise_draws(draws, "mean", "sd", "mcse_mean", "ess_bulk", "rhat")
ess <- min(s$ess_bulk)
seconds <- c2 - c1
cat(sprintf("NUTS: N = %d, p = %d, 4 chains x %d draws: smallest bulk ESS over beta %.0f, largest R-hat %.4f, %.2f CPU s for sampling() (warmup and sampling; rstan's own clocks: %.2f s warmup, %.2f s sampling; compilation %.1f s apart): %.0f bulk ESS per CPU-s\n",
  nrow(X), p, iter %/% 2, ess, max(s$rhat), seconds, sum(t[, "warmup"]), sum(t[, "sample"]), c1 - c0, ess / seconds))
incl <- "null"
inclErr <- "null"
if (kind == "regress") {
  b <- as.matrix(as_draws_matrix(draws))
  odds <- log(pr$w / (1 - pr$w)) + log(pr$s0 / pr$s1) + 0.5 * b^2 * (1 / pr$s0^2 - 1 / pr$s1^2)
  rb <- colMeans(plogis(odds))
  exact <- read.csv(file.path(dir, "exact_inclusion.csv"))$inclusion
  err <- abs(rb - exact)
  cat(sprintf("NUTS: largest |inclusion - exact| %.4f (%s), Rao-Blackwellised, at %.2f CPU s\n", max(err), s$variable[which.max(err)], seconds))
  incl <- sprintf("[%s]", paste(sprintf("%.17g", rb), collapse = ","))
  inclErr <- sprintf("%.17g", max(err))
}
writeLines(sprintf('{"MinESS": %.17g, "CPUSeconds": %.17g, "SampleSeconds": %.17g, "WarmupSeconds": %.17g, "Mean": [%s], "SD": [%s], "MCSE": [%s], "Inclusion": %s, "InclusionErr": %s}',
  ess, seconds, sum(t[, "sample"]), sum(t[, "warmup"]), paste(sprintf("%.17g", s$mean), collapse = ","), paste(sprintf("%.17g", s$sd), collapse = ","),
  paste(sprintf("%.17g", s$mcse_mean), collapse = ","), incl, inclErr),
  file.path(dir, "nuts.json"))
