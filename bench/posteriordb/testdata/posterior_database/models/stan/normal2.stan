// Two independent normals, theta[k] ~ N(m[k], s[k]): the exact posterior
// of bench/posteriordb's smoke test, written in Stan >= 2.26's array
// syntax so that the backport is exercised too.
data {
  array[2] real m;
  array[2] real<lower=0> s;
}
parameters {
  array[2] real theta;
}
model {
  theta ~ normal(m, s);
}
