package energy

// Terms is an energy that is a sum over a data set of N examples plus a prior
// term: U(θ) = U_0(θ) + Σ_{i<N} U_i(θ). A minibatch estimator draws from it.
type Terms interface {
	// Dim is the dimension p of the state.
	Dim() int
	// Len is the number of examples N.
	Len() int
	// Term writes ∇U_i(θ) into grad (if non-nil) and returns U_i(θ).
	Term(grad, theta []float64, i int) float64
	// Prior writes ∇U_0(θ) into grad (if non-nil) and returns U_0(θ).
	Prior(grad, theta []float64) float64
}
