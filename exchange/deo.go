package exchange

import "fmt"

// Scheme decides which adjacent pairs are offered a swap at which step.
type Scheme int

const (
	// Sweep offers every pair a swap at every step, the colder pair first.
	// Its index process is reversible: a replica's level does a random walk,
	// so a round trip across K levels takes O(K²) steps.
	Sweep Scheme = iota
	// DEO is the deterministic even–odd scheme (Okabe et al. 2001; Syed et
	// al. 2022). Steps are grouped into rounds, windows of Swap.Window steps;
	// round r = ⌊k/W⌋ offers the pairs (l, l+1) with l ≡ r (mod 2) exactly
	// one swap attempt, at the round's last step, and the other pairs none.
	// A replica that swaps upwards is offered the next upward swap in the
	// next round, so the index process is non-reversible and a round trip
	// takes O(K + Λ) rounds rather than O(K²).
	//
	// Why one attempt at a fixed step of the window, rather than attempts at
	// every step until one succeeds (Deng et al. 2023): the step of the
	// attempt does not depend on the states, so every attempt is a Metropolis
	// move on the product law and the ladder keeps π_{τ_1} ⊗ … ⊗ π_{τ_K}
	// invariant; stopping at the first success makes the time of the last
	// swap a stopping time of the states, which biases the levels (the bias
	// Deng et al. then have to correct). The window exists because one
	// Langevin step barely moves a state: attempts one step apart see nearly
	// the same energies, so a rejected pair is rejected again, and every
	// attempt costs two energy evaluations. W steps between attempts give the
	// levels time to decorrelate (Syed et al.'s round-trip rate 1/(2 + 2Λ)
	// per round assumes the energies are fresh at each round) and divide the
	// swap cost by W. It also divides the attempts per step by W: on the
	// mixtures of docs/experiments/ladder.md, W = 5 brings the
	// round-trip rate per round from 47–79% to 72–94% of the fresh-energy
	// rate but makes less than half the round trips of W = 1 at equal cost,
	// so the default is W = 1; a longer window pays where an attempt costs
	// much more than a step.
	DEO
)

var schemeNames = [...]string{Sweep: "sweep", DEO: "deo"}

func (s Scheme) String() string { return nameOf(schemeNames[:], s, "Scheme") }

// ParseScheme reads a scheme by name.
func ParseScheme(s string) (Scheme, error) {
	if v, ok := parseName[Scheme](schemeNames[:], s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown swap scheme %q (want sweep or deo)", s)
}

func validateScheme(sw Swap) error {
	switch sw.Scheme {
	case Sweep:
		if sw.Window != 0 && sw.Window != 1 {
			return fmt.Errorf("swap window W = %d: only the DEO scheme has windows", sw.Window)
		}
	case DEO:
		if sw.Window < 0 {
			return fmt.Errorf("swap window W = %d: must be ≥ 1 (0 means 1)", sw.Window)
		}
		if !sw.PerStep {
			return fmt.Errorf("DEO swaps attempt each offered pair once a round: set PerStep (swap intensity a = 0), not a = %v", sw.A)
		}
	default:
		return fmt.Errorf("swap scheme %v: unknown", sw.Scheme)
	}
	return nil
}

// window is the round length W ≥ 1.
func (sw Swap) window() int { return max(sw.Window, 1) }

// Offered reports whether pair l (levels l and l+1) is offered a swap at
// step k (counting from 0).
func (sw Swap) Offered(l, k int) bool {
	if sw.Scheme != DEO {
		return true
	}
	W := sw.window()
	return (k+1)%W == 0 && l%2 == (k/W)%2
}

// Round is the DEO round of step k, ⌊k/W⌋ (for Sweep, k itself).
func (sw Swap) Round(k int) int {
	if sw.Scheme != DEO {
		return k
	}
	return k / sw.window()
}
