package plan

import (
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
)

// Model is what an analysis samples: the energy U(θ) = U_0(θ) + Σ_i U_i(θ)
// of a posterior, a prior term and one term per example, with the names of
// the coordinates. Minibatches, control variates and exact-energy swaps
// all work from Terms alone. It lives with the plan, which reads most of
// it (PlanFor); analysis.Run takes the same value for the run.
type Model struct {
	Terms energy.Terms
	// Names are the parameters, one per coordinate (nil: theta1, theta2, …).
	Names []string
	// Curvature, when set, finds the posterior mode and the extreme
	// eigenvalues of the Hessian there (a model-specific fast path); nil
	// uses a generic mode finder.
	Curvature func(seed uint64) (Curvature, error)
	// Generated, when set, names quantities computed from every retained
	// draw, written after the parameters: Generate(out, θ) fills out, one
	// value per name. It must be safe for concurrent use.
	Generated []string
	Generate  func(out, theta []float64)
	// Check, when set, adds the model's own warnings about a chain from its
	// posterior means (e.g. separable data in a logistic regression).
	Check func(mean []float64) []string
	// Kernel, when set, makes a Markov kernel of the model's own for the
	// power posterior at lambda ∈ (0, 1], exp(−λ(U − U_0) − U_0), and the
	// energy E_λ = U − U_0 + U_0/λ of a level at τ = 1/λ that targets it
	// (models.LinReg's Gibbs sampler and Power; at λ = 1, E = U): the plan
	// (AutoMethod) runs it in place of MALA, on a ladder of power
	// posteriors where that pays.
	Kernel func(lambda float64) (exchange.Kernel, energy.Energy)
	// KernelName names the kernel in the chain CSVs' algorithm line
	// (model_<name>); KernelAbout says what it does, for the output, once
	// Kernel has made one (so it can name the form Kernel chose).
	KernelName  string
	KernelAbout func() string
	// Init, when set, is where the plan's mode search starts first (nil:
	// θ = 0), such as a Stan model's start where its density at 0 is not
	// finite.
	Init []float64
	// Starts, when set, are starts of the plan's mode search besides θ = 0
	// and its random ones (SearchModesFrom): points in basins too narrow
	// for random starts to hit.
	Starts func() ([][]float64, error)
	// NoChainChecks skips the checks for a stuck or drifting chain, which
	// assume one mode (a model that is checked against its exact posterior
	// instead).
	NoChainChecks bool
	// ownPlan, when set, is the model's own default plan (AutoMethod),
	// in place of the mode search's (MixtureModel: MixturePlan).
	ownPlan func(seed uint64, status *Status) (ChainPlan, string, error)
}

// Curvature describes the posterior at its mode: λ_min and λ_max of the
// Hessian of U there (λ_min = 0: unknown), the mode (nil: unknown), the
// start's distance from the mode in posterior sds (0: found from U at the
// mode) and a note saying how they were found.
type Curvature struct {
	Lmin, Lmax float64
	Mode       []float64
	Dist       float64
	Note       string
}
