// Package exchange holds replica exchange: a ladder of Langevin chains at
// increasing temperatures, the swap rules between adjacent levels, and the
// driver that steps them.
package exchange

import (
	"fmt"
	"math"
)

// Rule is a swap rule: how to estimate S = exp{τδ(U(x) − U(y))} for the
// state x at the colder level l and y at the hotter level l+1, where
// τδ = 1/τ_l − 1/τ_{l+1}.
//
// Under DrawEnergies every noisy rule forms an estimate D̂ of U(x) − U(y)
// with variance V and returns log Ŝ = τδ·D̂ − τδ²·V/2: the penalty method
// (Ceperley and Dewing 1999). It leaves each level's tempered law invariant
// exactly when D̂ is Gaussian, V is its true variance, and the reverse swap
// has the same noise law; E[Ŝ] = S is not the condition. The descriptions
// below are for the level estimators' own draws; Energies says what each
// rule means when swap energies come from the data, where no variance and
// no Gaussian law is needed.
type Rule int

const (
	// Exact uses noise-free energies and the ratio of the two levels' own
	// densities, log S = [U_l(x) − U_l(y)]/τ_l − [U_{l+1}(x) − U_{l+1}(y)]/τ_{l+1},
	// which is τδ·D with D = U(x) − U(y) when the levels share one energy
	// (see exactLogRatio for the evaluations it makes). New refuses an
	// estimator that does not declare its energies exact
	// (energy.ExactEnergy), and a draw that reports a positive energy
	// variance fails.
	Exact Rule = iota
	// ReSGLD (Deng et al. 2020) evaluates both states with the colder
	// level's estimator: D = Û_l(x) − Û_l(y), V = σ_l²(x) + σ_l²(y), which
	// is Deng's τδσ² correction when σ is constant. Two evaluations.
	ReSGLD
	// MReSGLD (Lin, Wang, Zhang 2021) evaluates both states with both
	// estimators and weights them a1, a2 = 1 − a1:
	// D = a1(Û_l(x) − Û_l(y)) + a2(Û_{l+1}(x) − Û_{l+1}(y)),
	// V = a1²(σ_l²(x) + σ_l²(y)) + a2²(σ_{l+1}²(x) + σ_{l+1}²(y)).
	// Four evaluations.
	MReSGLD
	// FReSGLD is the paper's ratio: each state is evaluated once, by its own
	// level's estimator: D = Û_l(x) − Û_{l+1}(y), V = σ_l²(x) + σ_{l+1}²(y).
	// When the levels' noise depends on the state and differs between them,
	// the reverse swap would carry σ_l²(y) + σ_{l+1}²(x) instead, and the
	// penalty rule would no longer keep the law (the cold level's variance
	// was off by 8% in a test of that kind). The sampler therefore pads D
	// with independent Gaussian noise up to the larger of the two variances,
	// so both directions carry the same law. Two evaluations, plus two
	// draws for the reverse variance when neither the estimator
	// (energy.EnergyVarAt) nor the variance model can tell it at a state.
	FReSGLD
)

var ruleNames = [...]string{Exact: "exact", ReSGLD: "resgld", MReSGLD: "mresgld", FReSGLD: "fresgld"}

func (r Rule) String() string { return nameOf(ruleNames[:], r, "Rule") }

// ParseRule reads a rule by name.
func ParseRule(s string) (Rule, error) {
	if v, ok := parseName[Rule](ruleNames[:], s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown swap rule %q (want exact, resgld, mresgld or fresgld)", s)
}

// Swap configures the swap moves.
type Swap struct {
	Rule Rule
	// A is the intensity a: a swap between levels l and l+1 happens at step
	// k with probability a·η_k·min(1, Ŝ), η_k the colder level's step size.
	// A = 0 switches swaps off.
	A float64
	// PerStep attempts a swap at every step, accepted with probability
	// min(1, Ŝ): the convention of the reference reSGLD codes (a = 1/η).
	// A is then ignored.
	PerStep bool
	// A1 is m-reSGLD's weight on the colder level's estimator, in [0, 1].
	A1 float64
	// Scheme decides which pairs are offered a swap at which step (Sweep,
	// the zero value, or DEO); Window is DEO's round length W in steps
	// (0 means 1). See DEO.
	Scheme Scheme
	Window int
}

// logRatio returns log Ŝ = τδ·D − τδ²·V/2.
func logRatio(tauDelta, d, v float64) float64 { return tauDelta*d - tauDelta*tauDelta*v/2 }

// PairStats records the swaps between levels l and l+1.
type PairStats struct {
	Attempts int   `json:"attempts"` // swap ratios evaluated
	Accepts  int   `json:"accepts"`  // swaps made
	Times    []int `json:"-"`        // steps at which swaps were made, if Config.RecordSwaps
	// Noise is the mean over attempts of τδ²V/2 in nats: the swap noise.
	// Under DrawEnergies it is the penalty, and acceptance falls like
	// e^{−Noise} once it exceeds about 1, whatever S is; under the noisy
	// data modes it is the screen's estimated noise, and a noisy screen
	// passes more attempts to the full data.
	Noise float64 `json:"noise"`
	// Capped counts the attempts declined because their swap noise
	// exceeded Energies.MaxNoise.
	Capped int `json:"capped"`
	// Under the noisy data modes: Screened is the examples evaluated by the
	// screens (both states counted), Confirmed the attempts that passed
	// their screen and went to the exact D (2N evaluations each, or DiffCost
	// on energy.DiffTerms).
	Screened  int64 `json:"screened_examples,omitempty"`
	Confirmed int   `json:"confirmed,omitempty"`

	// ProbSum is Σ min(1, Ŝ) over the attempts: the acceptance
	// probabilities under the noisy rule, noise included. Their mean
	// estimates the acceptance rate with less variance than Accepts does.
	ProbSum float64 `json:"accept_prob_sum"`
}

// Rejection is 1 − ProbSum/Attempts, the estimated rejection rate of the
// pair (NaN before any attempt).
func (p PairStats) Rejection() float64 {
	if p.Attempts == 0 {
		return math.NaN()
	}
	return 1 - p.ProbSum/float64(p.Attempts)
}

// Rate is the fraction of attempts accepted (NaN before any attempt).
func (p PairStats) Rate() float64 {
	if p.Attempts == 0 {
		return math.NaN()
	}
	return float64(p.Accepts) / float64(p.Attempts)
}
