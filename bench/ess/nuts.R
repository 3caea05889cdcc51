# Stan's NUTS (rstan, default settings: 4 chains, iter 2000, 1000 warmup,
# cores = 1) on the design written by bench/ess: the same standardised
# features, intercept and N(0, 1) prior. Prints the smallest bulk ESS and
# largest R-hat (posterior package), the sampling and warmup CPU seconds
# (rstan's per-chain elapsed times; compilation excluded), and bulk ESS per
# CPU-second of sampling and of warmup plus sampling. Writes nuts.json
# beside the design.
#   Rscript bench/ess/nuts.R DIR
suppressPackageStartupMessages({ library(rstan); library(posterior) })
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) > 0) args[1] else file.path(tempdir(), "fresgld-ess")
d <- as.matrix(read.csv(file.path(dir, "design.csv"), header = FALSE))
p <- ncol(d) - 1
X <- d[, 1:p, drop = FALSE]
y <- as.integer(d[, p + 1])
code <- "
data { int<lower=1> N; int<lower=1> p; matrix[N, p] X; int<lower=0, upper=1> y[N]; }
parameters { vector[p] beta; }
model { beta ~ normal(0, 1); y ~ bernoulli_logit_glm(X, 0, beta); }
"
# Debian's r-cran-bh is an empty stand-in for libboost-dev, whose headers
# are in /usr/include, where rstan 2.21 does not look ("Boost not found").
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) rstan_options(boost_lib = "/usr/include")
m <- stan_model(model_code = code)
fit <- sampling(m, data = list(N = nrow(X), p = p, X = X, y = y), chains = 4, iter = 2000, cores = 1, seed = 1, refresh = 0)
t <- get_elapsed_time(fit)
s <- summarise_draws(as_draws_array(fit, pars = "beta"), "mean", "sd", "mcse_mean", "ess_bulk", "rhat")
ess <- min(s$ess_bulk)
cat(sprintf("NUTS: N = %d, p = %d, 4 chains x 1000 draws: smallest bulk ESS %.0f, largest R-hat %.4f, %.2f CPU s sampling, %.2f s warmup: %.0f bulk ESS per CPU-s of sampling, %.0f per CPU-s of warmup and sampling\n",
  nrow(X), p, ess, max(s$rhat), sum(t[, "sample"]), sum(t[, "warmup"]), ess / sum(t[, "sample"]), ess / sum(t)))
writeLines(sprintf('{"MinESS": %.17g, "SampleSeconds": %.17g, "WarmupSeconds": %.17g, "Mean": [%s], "SD": [%s], "MCSE": [%s]}',
  ess, sum(t[, "sample"]), sum(t[, "warmup"]), paste(sprintf("%.17g", s$mean), collapse = ","), paste(sprintf("%.17g", s$sd), collapse = ","), paste(sprintf("%.17g", s$mcse_mean), collapse = ",")),
  file.path(dir, "nuts.json"))
