package multimodal

import (
	"fmt"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
)

// swapEvery is the steps between exact swap attempts: fresgld regress's
// 0.1 attempts a step, whatever N.
const swapEvery = 10

// swapEnergies are the ladders' swap energies on pr and their attempt
// probability per step.
//
// By default every attempt is exact: D = U(x) − U(y) from the sufficient
// statistics (models.LinReg.SumDiff, p evaluations), every swapEvery
// steps; no screen, no anchor to refresh, no confirmation pass.
//
// Screened is the setting before that, and what a model without
// sufficient statistics pays: first-order control-variate screens on a
// common minibatch (pair-taylor), each passed screen confirmed on the full
// data (2N evaluations; fullPass hides SumDiff), anchors refreshed every
// ⌈8N/n⌉ steps (a quarter of the cold gradient cost), attempts noisier
// than 2 nats declined, and the attempt rate fresgld regress's 0.1 lowered
// to 10·n/N on large data, so that screens passed at up to 5% of the
// attempts cost at most n evaluations a step. At N = 10⁶ that ladder made
// about one swap a run, and the adaptive ladder's tuning cost 2.3 budgets.
func (s Settings) swapEnergies(pr *Problem) (exchange.Energies, float64) {
	N := pr.LR.Len()
	if !s.Screened {
		return exchange.Energies{Mode: exchange.ExactEnergies, Terms: pr.LR, ExactEvery: swapEvery}, 1.0 / swapEvery
	}
	return exchange.Energies{Mode: exchange.PairTaylorEnergies, Terms: fullPass{pr.LR}, AnchorEvery: (8*N + s.NCold - 1) / s.NCold, MaxNoise: 2},
		min(0.1, 10*float64(s.NCold)/float64(N))
}

// fullPass is a linear model's data without its sufficient statistics: an
// exact D is a pass over the data, as for a model that has none. It keeps
// LinearTerms, so that a first-order anchor stores N slopes, not N·p
// gradients.
type fullPass struct{ energy.LinearTerms }

// swapNote says in the tables which swaps the ladders made.
func (s Settings) swapNote() string {
	if s.Screened {
		return "swaps screened on minibatches (pair-taylor) and confirmed by full passes, attempted with probability min(0.1, 10·n/N) a step"
	}
	return fmt.Sprintf("exact swaps from the sufficient statistics every %d steps", swapEvery)
}
