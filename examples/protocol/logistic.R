#!/usr/bin/env Rscript
# Bayesian logistic regression as a fresgld model process (protocol 1).
#
#     fresgld sample --model-cmd 'Rscript examples/protocol/logistic.R data/wdbc.csv mean_radius,mean_texture,mean_smoothness,mean_concave_points' --out out/protocol
#
# (from the repository's top directory). The CSV file has a header line and
# its last column is the 0/1 label. The features are the columns named in
# the optional second argument, comma-separated (all but the label when it
# is left out), each standardised (centred and divided by its population
# sd) as fresgld logistic standardises them, after an intercept, a column
# of ones. The model is fresgld's models.Logistic:
#
#     U_i(θ) = log(1 + e^{z_i}) − y_i z_i,  z_i = x_i·θ,   U_0(θ) = |θ|²/(2σ₀²).
#
# The protocol is in docs/model-protocol.md. Base R only.

sigma0 <- 1 # prior standard deviation σ₀

args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], check.names = FALSE)
features <- names(d)[-ncol(d)]
wanted <- if (length(args) > 1) strsplit(args[2], ",")[[1]] else features
missing <- setdiff(wanted, features)
if (length(missing) > 0) stop(args[1], " has no feature column ", missing[1])
X <- cbind(intercept = 1, sapply(d[wanted], function(v) {
  m <- mean(v)
  s <- sqrt(mean((v - m)^2)) # the population sd
  if (!(s > 0)) stop("feature is constant; it cannot be standardised")
  (v - m) / s
}))
y <- d[[ncol(d)]]
N <- nrow(X)
p <- ncol(X)

# Per-example energies (a vector) and gradients (a matrix, one row each)
# of the examples idx (1-based) at theta.
terms <- function(theta, idx, grad) {
  x <- X[idx, , drop = FALSE]
  z <- drop(x %*% theta)
  e <- exp(-abs(z))
  u <- pmax(z, 0) - y[idx] * z + log1p(e)
  if (!grad) return(list(u = u))
  sig <- ifelse(z >= 0, 1 / (1 + e), e / (1 + e))
  list(u = u, g = (sig - y[idx]) * x)
}

# U, USum, USq of a vector, or G, GSum, GSq of a matrix's rows: about the
# first.
moments <- function(v) {
  if (is.matrix(v)) {
    dv <- sweep(v[-1, , drop = FALSE], 2, v[1, ])
    return(c(v[1, ], colSums(dv), colSums(dv * dv)))
  }
  dv <- v[-1] - v[1]
  c(v[1], sum(dv), sum(dv * dv))
}

answer <- function(tok) {
  method <- tok[1]
  grad <- identical(tok[2], "1")
  if (method == "prior") {
    theta <- as.numeric(tok[-(1:2)])
  } else if (method == "terms") {
    diff <- identical(tok[3], "1")
    nums <- tok[-(1:4)]
    theta <- as.numeric(nums[1:p])
    k <- if (diff) 2 * p else p
    other <- if (diff) as.numeric(nums[(p + 1):(2 * p)])
    idx <- if (tok[4] == "all") seq_len(N) else as.integer(nums[-(1:k)]) + 1L # 0-based on the wire
  } else {
    stop("unknown request ", method)
  }
  if (length(theta) != p) stop("theta has ", length(theta), " coordinates, want ", p)
  out <- sum(theta^2) / (2 * sigma0^2) # the prior at theta opens every reply
  if (grad) out <- c(out, theta / sigma0^2)
  if (method == "prior") return(out)
  t <- terms(theta, idx, grad)
  if (diff) { # differences between the two states
    s <- terms(other, idx, grad)
    t$u <- t$u - s$u
    if (grad) t$g <- t$g - s$g
  }
  out <- c(out, moments(t$u))
  if (grad) out <- c(out, moments(t$g))
  out
}

input <- file("stdin", "r")
cat("fresgld-model 1 text", p, N, colnames(X), "\n")
flush(stdout())
invisible(readLines(input, n = 1)) # "fresgld 1 text"
repeat {
  line <- readLines(input, n = 1)
  if (length(line) == 0) break
  reply <- tryCatch(
    # %.17g reads back exactly.
    paste("ok", paste(sprintf("%.17g", answer(strsplit(trimws(line), " +")[[1]])), collapse = " ")),
    error = function(e) paste("error", gsub("\n", " ", conditionMessage(e)))
  )
  cat(reply, "\n", sep = "")
  flush(stdout())
}
