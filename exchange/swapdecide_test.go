package exchange

import (
	"math"
	"testing"
)

// TestNoiseCapDecisions sets the cap between the noises the screens draw
// (their median) and checks each attempt as OnSwap reports it: an attempt
// whose noise exceeds the cap is declined (log-ratio −∞, not accepted),
// one at or below it is decided as usual (some are accepted), and Capped
// counts exactly the attempts above the cap.
func TestNoiseCapDecisions(t *testing.T) {
	const T = 4000
	p := kernelPairs[0]
	eachCap(t, func(mode EnergyMode, rule Rule, cap float64) {
		s := kernelSampler(t, rule, mode, p.ax, p.ay, cap, 6)
		var above, wrong, acceptedBelow int
		s.onSwap = func(_ int, _, _ []float64, lr, noise float64, accepted bool) {
			switch {
			case noise > cap:
				above++
				if accepted || !math.IsInf(lr, -1) {
					wrong++
				}
			case accepted:
				acceptedBelow++
			}
		}
		for range T {
			if _, err := s.decide(0, []float64{p.x}, []float64{p.y}); err != nil {
				t.Fatal(err)
			}
		}
		st := s.Stats().Pairs[0]
		if wrong > 0 || st.Capped != above || above == 0 || above == T || acceptedBelow == 0 {
			t.Errorf("%v/%v, cap %.4g nats: %d of %d attempts above it, %d of them not declined, %d counted capped; %d accepted below it", mode, rule, cap, above, T, wrong, st.Capped, acceptedBelow)
		}
	})
}

// TestSwapRoutesAnchorsOfSwappedReplicas drives the sampler's own swap
// (trySwap: the attempt, the screen about each level's replica's anchor,
// the confirmation and the exchange) on a ladder whose replicas have
// already swapped, so that level l's anchor is not replica l's. State x
// with its replica's anchor a_x sits at the cold level and y with a_y at
// the hot one; then the two replicas trade levels. Detailed balance asks
// that the acceptance frequencies of the two configurations be in the
// ratio S = e^{τδD}, whatever the sampler's model of its draws. With T
// attempts each, log(α̂_f/α̂_r) has standard error √((1 − α_f)/(Tα_f) +
// (1 − α_r)/(Tα_r)); the threshold is Bonferroni over the 36 comparisons.
// Anchors routed by level instead of by replica break it.
func TestSwapRoutesAnchorsOfSwappedReplicas(t *testing.T) {
	const T = 20000
	td := 1/ktau1 - 1/ktau2
	modes := []EnergyMode{CVEnergies, PairCVEnergies, TaylorEnergies, PairTaylorEnergies}
	zMax := lawThreshold(len(modes) * len(noisyRules) * len(kernelPairs))
	eachKernelCase(modes, func(mode EnergyMode, _ outlierTerms, rule Rule, i int, p kernelPair, D float64) {
		// Replica 0 carries the anchor a_y, replica 1 a_x.
		s := kernelSampler(t, rule, mode, p.ay, p.ax, 0, uint64(40+i))
		freq := func(at [2]int) float64 {
			acc := 0
			for range T {
				copy(s.at, at[:])
				s.reps[1].theta[0], s.reps[0].theta[0] = p.x, p.y
				if err := s.trySwap(0); err != nil {
					t.Fatal(err)
				}
				if s.at[0] != at[0] {
					acc++
				}
			}
			return float64(acc) / T
		}
		// Forward: replica 1 (x, a_x) at the cold level, as after a
		// swap; reverse: the two trade levels.
		af, ar := freq([2]int{1, 0}), freq([2]int{0, 1})
		se := math.Sqrt((1-af)/(T*af) + (1-ar)/(T*ar))
		z := (math.Log(af/ar) - td*D) / se
		if !(math.Abs(z) <= zMax) {
			t.Errorf("%v/%v, x = %v (anchor %v), y = %v (anchor %v): acceptance %.4f forward, %.4f reverse, log ratio %.4f, log S = %.4f (%.1f standard errors)", mode, rule, p.x, p.ax, p.y, p.ay, af, ar, math.Log(af/ar), td*D, z)
		}
	})
}
