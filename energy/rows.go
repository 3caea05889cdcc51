package energy

// GradRows is implemented by estimators whose gradient draw is the scaled
// sum ∇U_0 + (N/n)·Σ_{i∈I} ∇U_i over n of N per-example terms drawn without
// replacement, and that can expose the per-example gradients of each draw.
// From them a sampler estimates the draw's full covariance,
//
//	Σ̂ = N(N − n)/n · 1/(n − 1) · G_cᵀG_c,
//
// G_c the n×p matrix of the per-example gradients centred on their mean, to
// correct the injected noise against it (langevin.CorrectedFull).
type GradRows interface {
	// KeepRows makes every later gradient draw keep its per-example
	// gradients.
	KeepRows()
	// Rows returns the per-example gradients of the last gradient draw, an
	// n×p row-major matrix valid until the next draw, and n.
	Rows() (rows []float64, n int)
	// Len is the number of terms N the draws sample from.
	Len() int
}

var _ GradRows = (*Minibatch)(nil)
