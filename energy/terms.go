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

// DiffTerms is implemented by Terms whose data sum is a function of a few
// sufficient statistics (a linear model with Gaussian noise: XᵀX and Xᵀy),
// so that the exact difference of two states' energies needs no pass over
// the data. A swap that needs the exact D = U(x) − U(y) (the exact swap
// energies, and the confirmation of a screened swap) then costs DiffCost
// instead of 2N, and is exact in law as the full pass is.
type DiffTerms interface {
	Terms
	// SumDiff returns Σ_i [U_i(x) − U_i(y)], the prior excluded.
	SumDiff(x, y []float64) float64
	// DiffCost is SumDiff's cost in per-example evaluations.
	DiffCost() float64
}
