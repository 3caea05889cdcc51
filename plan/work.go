package plan

// The work bounds of the Hessians at a mode.
const (
	// HessianWork is the N·p² up to which the automatic η comes from the
	// Hessian at the posterior mode (Newton's method with finite-difference
	// Hessians, 2p full gradients an iteration); above it, from a bound on
	// the Hessian over all θ, O(Np) a power iteration.
	HessianWork = 5e8
	// DenseWork bounds p³, the work of one factorisation or eigen
	// decomposition of a p×p Hessian (Newton's method takes one per
	// iteration, λ_min one more). Above it (p > 1000) no Hessian is
	// formed: at p = 10⁴ one decomposition is 10¹² operations and 800 MB,
	// and the command sat silent for minutes (issue 20's 60 × 10,000 file).
	DenseWork = 1e9
)
