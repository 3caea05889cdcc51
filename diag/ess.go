package diag

import "math"

// ESS is the effective sample size of a chain's draws xs by Geyer's initial
// monotone sequence estimator: n / (1 + 2Σρ_k), the autocorrelations summed
// in pairs Γ_m = ρ_{2m} + ρ_{2m+1} while the pairs stay positive, each pair
// capped by the previous one. It costs O(n·L) for the L lags it needs.
// Returns NaN for fewer than 4 draws or a constant chain. This is the
// classic single-chain estimate; ESSBulk, ESSTail and ESSMean are the
// split-chain ones of R's posterior package, for one chain or several.
func ESS(xs []float64) float64 {
	n := len(xs)
	if n < 4 {
		return math.NaN()
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	acov := func(k int) float64 {
		var s float64
		for i := 0; i+k < n; i++ {
			s += (xs[i] - mean) * (xs[i+k] - mean)
		}
		return s / float64(n)
	}
	c0 := acov(0)
	if c0 == 0 {
		return math.NaN()
	}
	sum := -1.0 // Σ over pairs counts ρ_0 = 1 once in 2Σ − 1
	prev := math.Inf(1)
	for m := 0; 2*m+1 < n; m++ {
		g := (acov(2*m) + acov(2*m+1)) / c0
		if g <= 0 {
			break
		}
		g = math.Min(g, prev)
		prev = g
		sum += 2 * g
	}
	return float64(n) / math.Max(sum, 1/float64(n))
}
