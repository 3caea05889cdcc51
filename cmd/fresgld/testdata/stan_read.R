# Reads fresgld chain CSVs as a Stan user would, with rstan::read_stan_csv,
# and prints R's diagnostics of every variable (posterior::summarise_draws:
# R-hat, bulk and tail ESS, mean, sd) as CSV with 17 significant digits.
# Usage: Rscript stan_read.R chain-1.csv chain-2.csv ...
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
})
fit <- rstan::read_stan_csv(args)
draws <- posterior::as_draws_array(as.array(fit))
s <- posterior::summarise_draws(draws, "mean", "sd", "rhat", "ess_bulk", "ess_tail")
num <- function(x) ifelse(is.na(x), "NA", sprintf("%.17g", x))
cat("variable,mean,sd,rhat,ess_bulk,ess_tail\n")
cat(sprintf("%s,%s,%s,%s,%s,%s\n", s$variable, num(s$mean), num(s$sd),
            num(s$rhat), num(s$ess_bulk), num(s$ess_tail)), sep = "")
