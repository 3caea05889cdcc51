package plan

import (
	"fmt"
	"math"
)

// The default run length of `fresgld logistic` (--burn auto, --thin auto).
//
// Near the mode the posterior is about Gaussian with Hessian H, and a
// Langevin chain with step η, whatever mix of gradient noise and injected
// noise makes up its budget 2τη, moves along an eigenvector of H with
// eigenvalue λ as the autoregression x' = (1 − ηλ)x + noise. Its slowest
// direction, λ_min, has lag-one correlation ρ = 1 − ηλ_min and integrated
// autocorrelation time τ_int = (1 + ρ)/(1 − ρ) steps: T steps hold T/τ_int
// effective draws of every linear function, fewer of none. Started at
// distance D from the mode (D² = 2(U(θ0) − U(mode)), the Mahalanobis
// distance for a Gaussian), the chain's mean approaches the mode as ρ^k·D
// in posterior sds.
const (
	// essGoal is the bulk ESS per chain below which the command warns.
	essGoal = 100
	// essMargin is the factor by which the rule aims above essGoal: the
	// bulk ESS of four chains is an estimate (its relative sd at 100 per
	// chain is about 10%), and on data/wdbc.csv the measured bulk ESS of
	// the slowest coefficient was two thirds of T/τ_int (the diagonal
	// correction and minibatch noise make the chain only nearly AR(1)).
	essMargin = 2
	// burnBias is the distance from the mode, in posterior sds along the
	// slowest direction, at which the burn-in ends: ρ^burn·D ≤ burnBias.
	// Burn-in also lets the spread grow from a point to its stationary
	// size, 1 − ρ^(2k), which is within 1% after the same steps for D ≥ 1.
	burnBias = 0.1
	// runWork bounds the default run: multiply-adds of the cold chain's
	// gradients (steps × n × p) per chain. At 10⁶ examples × 101
	// coefficients and n = 2048 it allows 12,000 steps a chain, the old
	// default run (2000 + 5000 × 2), which took about a minute on a
	// two-core machine (BENCHMARKS.md, defaults that scale).
	runWork = 2.5e9
)

// RunLength is the default burn-in and thinning and how they were found.
type RunLength struct {
	Burn, Thin         int     // what the run uses
	NeedBurn, NeedThin int     // what the rule asks for, before the budget
	Lmin               float64 // λ_min, the Hessian's smallest eigenvalue at the mode
	Rho                float64 // 1 − ηλ_min
	IAT                float64 // τ_int of the slowest direction, steps
	Dist               float64 // D, posterior sds from the start to the mode
	Capped             bool    // the budget cut the run short of the rule
	ESS                float64 // expected bulk ESS per chain of the slowest direction: keep·thin/τ_int
}

// RunLengthFor applies the rule: thin = ⌈essMargin·essGoal·τ_int/keep⌉,
// burn = ⌈ln(D/burnBias)/(−ln ρ)⌉ (D taken at least 1), then, if
// (burn + keep·thin)·n·p exceeds runWork, burn is cut to at most half the
// affordable steps and thin to what remains (at least 1). It needs
// 0 < ηλ_min < 1 (ρ in (0, 1)); else ok is false and the caller keeps
// fixed defaults.
func RunLengthFor(eta, lmin, dist float64, keep, n, p int) (r RunLength, ok bool) {
	r.Lmin, r.Rho = lmin, 1-eta*lmin
	if !(r.Rho > 0 && r.Rho < 1) || keep < 1 {
		return r, false
	}
	r.IAT = (1 + r.Rho) / (1 - r.Rho)
	r.Dist = dist
	r.NeedThin = max(1, int(math.Ceil(essMargin*essGoal*r.IAT/float64(keep))))
	r.NeedBurn = max(0, int(math.Ceil(math.Log(max(dist, 1)/burnBias)/-math.Log(r.Rho))))
	r.Burn, r.Thin = r.NeedBurn, r.NeedThin
	steps := math.Floor(runWork / (float64(n) * float64(p)))
	if float64(r.Burn)+float64(keep)*float64(r.Thin) > steps {
		r.Capped = true
		r.Burn = min(r.Burn, int(steps/2))
		r.Thin = max(1, int((steps-float64(r.Burn))/float64(keep)))
	}
	r.ESS = float64(keep) * float64(r.Thin) / r.IAT
	return r, true
}

// note describes the rule's outcome for the summary.
func (r RunLength) Note() string {
	return fmt.Sprintf("λ_min = %.4g, ρ = 1 − ηλ_min = %.6g, τ_int = %.4g steps, start %.3g posterior sds from the mode: burn %d, thin %d for bulk ESS ≈ %d×%d per chain",
		r.Lmin, r.Rho, r.IAT, r.Dist, r.NeedBurn, r.NeedThin, essMargin, essGoal)
}

// warning is the message for a run the budget cut short, with the numbers
// and the remedy; empty when it was not cut.
func (r RunLength) Warning(keep int) string {
	if !r.Capped {
		return ""
	}
	need := float64(r.NeedBurn) + float64(keep)*float64(r.NeedThin)
	have := float64(r.Burn) + float64(keep)*float64(r.Thin)
	return fmt.Sprintf("default run length: bulk ESS ≥ %d per chain needs --burn %d --thin %d (τ_int = %.4g steps in the slowest direction, the start %.3g posterior sds from the mode), %.3g times the steps that the default budget of %.3g cold-gradient multiply-adds a chain allows; running --burn %d --thin %d, which expects bulk ESS ≈ %.0f per chain%s: for a trustworthy run give --burn %d --thin %d",
		essGoal, r.NeedBurn, r.NeedThin, r.IAT, r.Dist, need/have, runWork, r.Burn, r.Thin, r.ESS, r.burnShort(), r.NeedBurn, r.NeedThin)
}

// burnShort says when the burn-in itself was cut.
func (r RunLength) burnShort() string {
	if r.Burn >= r.NeedBurn {
		return ""
	}
	return fmt.Sprintf(" and starts %.3g posterior sds from the mode", r.Dist*math.Pow(r.Rho, float64(r.Burn)))
}

// Fixed run length where the rule cannot apply (no posterior mode, or a
// given η with ηλ_min outside (0, 1)).
// FallbackBurn and FallbackThin are the run length when the rule cannot
// be applied (no mode or λ_min, or ηλ_min outside (0, 1)).
const FallbackBurn, FallbackThin = 2000, 2
