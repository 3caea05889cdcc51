# rstan's NUTS on fresgld mixture's model (mixture.stan), with rstan's
# defaults: 4 chains, 2000 iterations of which 1000 warmup, one core.
#   Rscript nuts.R DATA.csv COLUMN K E0 SEED OUT.csv
# The data are standardised as models.NewFiniteMixture does (mean, sd
# with n - 1), xi the midrange and R the range on that scale, alpha = 2,
# beta = 0.02 R^2. OUT.csv gets the draws (chains stacked) of mu (in the
# data's units), sigma (the data's units) and w, one row a draw, with
# chain and the divergent flag; OUT.csv.info the sampling seconds
# (get_elapsed_time summed over chains), largest R-hat and divergences.
suppressPackageStartupMessages(library(rstan))
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) rstan_options(boost_lib = "/usr/include")
rstan_options(auto_write = TRUE)
a <- commandArgs(trailingOnly = TRUE)
y <- read.csv(a[1])[[a[2]]]
K <- as.integer(a[3]); e0 <- as.numeric(a[4]); seed <- as.integer(a[5]); out <- a[6]
m0 <- mean(y); s0 <- sd(y); z <- (y - m0) / s0
R <- (max(y) - min(y)) / s0; xi <- ((max(y) + min(y)) / 2 - m0) / s0
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)))
m <- stan_model(file.path(here, "mixture.stan"))
fit <- sampling(m, data = list(N = length(z), K = K, y = z, xi = xi, R = R, alpha = 2, beta = 0.02 * R^2, e0 = e0),
                chains = 4, cores = 1, seed = seed, refresh = 0)
ex <- rstan::extract(fit, permuted = FALSE, pars = c("mu", "tau", "w"))
rows <- NULL
div <- get_sampler_params(fit, inc_warmup = FALSE)
for (c in seq_len(dim(ex)[2])) {
  d <- ex[, c, ]
  mu <- m0 + s0 * d[, grep("^mu", colnames(d))]
  sig <- s0 / sqrt(d[, grep("^tau", colnames(d))])
  w <- d[, grep("^w", colnames(d))]
  rows <- rbind(rows, cbind(chain = c, divergent = div[[c]][, "divergent__"], mu, sig, w))
}
colnames(rows) <- c("chain", "divergent", paste0("mu_", 1:K), paste0("sigma_", 1:K), paste0("w_", 1:K))
write.csv(rows, out, row.names = FALSE)
t <- get_elapsed_time(fit)
s <- summary(fit)$summary
write.csv(data.frame(sampling_seconds = sum(t), max_rhat = max(s[, "Rhat"], na.rm = TRUE), divergent = sum(rows[, "divergent"])), paste0(out, ".info"), row.names = FALSE)
