# Stan's NUTS (rstan, Stan's defaults: 4 chains of 1000 warmup and 1000
# sampling iterations, adapt_delta 0.8, max_treedepth 10, diagonal metric,
# cores = 1) for bench/posteriordb, in two steps, each its own R process:
#
#   Rscript nuts.R compile MODEL.stan OUT.rds
#     translates and compiles the model, saving the stanmodel (compiled
#     once: the sampling runs are timed without the compilation);
#   Rscript nuts.R sample MODEL.rds DATA.R ARRAYS.txt SEED DIR
#     samples the model on the data (an R dump; ARRAYS.txt names the data
#     that are one-dimensional arrays, which a dump of one value would
#     make scalars) with the seed, and writes DIR/chain-k.csv (every
#     variable of each chain's 1000 draws, lp__ first, with CmdStan's
#     names: theta.1, Sigma.1.2) and DIR/info.json: the leapfrog steps of
#     all chains, warmup included (each one gradient), the divergent
#     transitions and the iterations at the largest tree depth after
#     warmup, the CPU seconds of sampling() and rstan's own clocks.
suppressPackageStartupMessages(library(rstan))
# Debian's r-cran-bh keeps Boost's headers in /usr/include, not in the BH
# package, where rstan looks for them.
if (!file.exists(rstan_options("boost_lib")) && file.exists("/usr/include/boost/version.hpp")) {
  rstan_options(boost_lib = "/usr/include")
}
args <- commandArgs(trailingOnly = TRUE)
cpu <- function() { t <- proc.time(); sum(t[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE) }
if (args[1] == "compile") {
  m <- stan_model(file = args[2], model_name = sub("\\.stan$", "", basename(args[2])))
  tmp <- paste0(args[3], ".tmp", Sys.getpid())
  saveRDS(m, tmp)
  file.rename(tmp, args[3])
  quit(status = 0)
}
stopifnot(args[1] == "sample", length(args) == 6)
m <- readRDS(args[2])
data <- read_rdump(args[3])
for (n in readLines(args[4])) {
  if (!is.null(data[[n]]) && is.null(dim(data[[n]]))) data[[n]] <- as.array(data[[n]])
}
seed <- as.integer(args[5])
dir <- args[6]
dir.create(dir, showWarnings = FALSE, recursive = TRUE)
c0 <- cpu()
fit <- sampling(m, data = data, chains = 4, iter = 2000, warmup = 1000, cores = 1, seed = seed, refresh = 0)
c1 <- cpu()
if (fit@mode != 0L) stop("sampling failed: the fit has no draws (see the messages above)")
a <- as.array(fit) # iterations × chains × variables, lp__ last
names <- dimnames(a)[[3]]
names <- c("lp__", setdiff(names, "lp__"))
csvNames <- gsub("\\]", "", gsub("\\[|,", ".", names))
for (k in seq_len(dim(a)[2])) {
  x <- a[, k, names, drop = FALSE]
  dim(x) <- c(dim(a)[1], length(names))
  y <- matrix(sprintf("%.17g", x), nrow = nrow(x), dimnames = list(NULL, csvNames))
  write.table(y, file.path(dir, sprintf("chain-%d.csv", k)),
    sep = ",", row.names = FALSE, col.names = TRUE, quote = FALSE)
}
sp <- get_sampler_params(fit, inc_warmup = TRUE)
post <- 1001:2000
leapfrog <- sum(sapply(sp, function(s) sum(s[, "n_leapfrog__"])))
div <- sum(sapply(sp, function(s) sum(s[post, "divergent__"])))
depth <- sum(sapply(sp, function(s) sum(s[post, "treedepth__"] >= 10)))
t <- get_elapsed_time(fit)
writeLines(sprintf('{"leapfrog": %.17g, "divergent": %d, "max_treedepth_hits": %d, "sampling_cpu_seconds": %.17g, "warmup_seconds": %.17g, "sample_seconds": %.17g}',
  leapfrog, div, depth, c1 - c0, sum(t[, "warmup"]), sum(t[, "sample"])), file.path(dir, "info.json"))
