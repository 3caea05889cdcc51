# Reference values for package diag's convergence diagnostics, computed by
# R's posterior package (Vehtari et al. 2021).
#
# Usage: Rscript posterior.R draws.csv out.csv
#
# draws.csv has columns case,chain,draw,value (value as a C99 hexadecimal
# float, so both languages read the same bits); chain and draw count from 1
# and every case has chains of equal length. out.csv gets columns
# case,stat,value with each value to 17 significant digits and NA where
# posterior returns NA.
suppressPackageStartupMessages(library(posterior))

# Pareto k̂ as posterior::pareto_khat (posterior >= 1.5). Older posterior
# (Debian's is 1.4.0) lacks it; there the same rule (Vehtari et al. 2024,
# Appendix H: the tail's length from ess_tail, both tails, the cutoff
# below each) is written out here around loo's gpdfit, the generalized
# Pareto fit that posterior's own copies.
if (exists("pareto_khat", envir = asNamespace("posterior"))) {
  khat <- function(x) suppressMessages(pareto_khat(x, tail = "both"))
} else {
  suppressPackageStartupMessages(library(loo))
  khat <- function(x) {
    v <- as.vector(x)
    S <- length(v)
    if (any(!is.finite(v)) || abs(max(v) - min(v)) < .Machine$double.eps) return(NA)
    reff <- ess_tail(x) / S
    if (is.na(reff)) return(NA)
    tl <- floor(ifelse(S * reff > 225, 3 * sqrt(S / reff), S / 5))
    tl <- max(tl, 5)
    if (tl >= S) return(NA)
    tl <- min(tl, floor(S / 2))
    one <- function(y) {
      o <- sort(y)
      tail <- o[(S - tl + 1):S]
      if (abs(max(tail) - min(tail)) < .Machine$double.eps) return(NA)
      cutoff <- o[S - tl]
      if (cutoff == tail[1]) cutoff <- cutoff - .Machine$double.eps
      # posterior's gpdfit, unlike loo 2.5's, gives NA where the first
      # quartile of the tail is its minimum (no Pareto tail to fit)
      if (!(tail[floor(tl / 4 + 0.5)] > tail[1])) return(NA)
      gpdfit(tail - cutoff, wip = TRUE, min_grid_pts = 30, sort_x = FALSE)$k
    }
    k <- c(one(-v), one(v))
    if (all(is.na(k))) NA else max(k, na.rm = TRUE)
  }
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2) stop("usage: Rscript posterior.R draws.csv out.csv")
d <- read.csv(args[1], colClasses = c("character", "integer", "integer", "character"))
d$value <- as.numeric(d$value)

stats <- list(
  mean = function(x) mean(x),
  sd = function(x) sd(x),
  q5 = function(x) quantile2(x, 0.05, names = FALSE),
  q50 = function(x) quantile2(x, 0.5, names = FALSE),
  q95 = function(x) quantile2(x, 0.95, names = FALSE),
  q0 = function(x) quantile2(x, 0, names = FALSE),
  q1 = function(x) quantile2(x, 1, names = FALSE),
  rhat = function(x) rhat(x),
  rhat_basic = function(x) rhat_basic(x),
  ess_bulk = function(x) ess_bulk(x),
  ess_tail = function(x) ess_tail(x),
  ess_mean = function(x) ess_mean(x),
  ess_sd = function(x) ess_sd(x),
  ess_q5 = function(x) ess_quantile(x, 0.05, names = FALSE),
  ess_q95 = function(x) ess_quantile(x, 0.95, names = FALSE),
  ess_q1 = function(x) ess_quantile(x, 1, names = FALSE),
  mcse_mean = function(x) mcse_mean(x),
  mcse_sd = function(x) mcse_sd(x),
  mcse_q5 = function(x) mcse_quantile(x, 0.05, names = FALSE),
  mcse_q50 = function(x) mcse_quantile(x, 0.5, names = FALSE),
  mcse_q95 = function(x) mcse_quantile(x, 0.95, names = FALSE),
  khat = khat
)

fmt <- function(v) if (is.na(v)) "NA" else sprintf("%.17g", v)

rows <- list()
for (cs in unique(d$case)) {
  e <- d[d$case == cs, ]
  e <- e[order(e$chain, e$draw), ]
  x <- matrix(e$value, nrow = max(e$draw), ncol = max(e$chain))
  for (s in names(stats)) {
    v <- suppressWarnings(stats[[s]](x))
    rows[[length(rows) + 1]] <- data.frame(case = cs, stat = s, value = fmt(v))
  }
}
out <- do.call(rbind, rows)
con <- file(args[2], "w")
writeLines(sprintf("# posterior %s, %s", packageVersion("posterior"), R.version.string), con)
write.csv(out, con, row.names = FALSE, quote = FALSE)
close(con)
