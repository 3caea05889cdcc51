package diag

import "math"

// Pareto k̂: how heavy a parameter's tails are, as posterior::pareto_khat
// (posterior ≥ 1.5; Vehtari, Simpson, Gelman, Yao and Gabry 2024, "Pareto
// smoothed importance sampling", JMLR 25(72), §3 and Appendix H). A
// generalized Pareto distribution is fitted to each tail's largest draws
// and k̂ is the larger shape. Its meaning for the summary a user reads: the
// draws have finite moments of order below 1/k. At k ≥ 1/2 the variance is
// infinite, so the sd estimates nothing and the MCSE of the mean, which the
// central limit theorem gives, does not hold; the quantiles still do. No
// well-kept Go library fits a generalized Pareto distribution, hence this
// file.

// KHat is the Pareto k̂ of the pooled draws of chains (both tails), NaN
// where posterior's is NA: a draw is NaN or infinite, the draws or a tail
// are constant, or there are too few draws for a tail.
func KHat(chains [][]float64) float64 {
	return with(chains, func(d *draws) float64 { return d.khat(d.essTail()) })
}

func (d *draws) essTail() float64 {
	return nanMin(d.essQuantile(0.05), d.essQuantile(0.95))
}

// khat fits both tails of the sorted draws, with essTail the draws' tail
// ESS, from which posterior takes the relative efficiency that sets the
// tail's length.
func (d *draws) khat(essTail float64) float64 {
	if d.bad {
		return math.NaN()
	}
	s := len(d.sorted)
	if math.IsNaN(essTail) {
		return math.NaN() // posterior: no tail length
	}
	tl := tailLength(float64(s), essTail/float64(s))
	n := int(max(tl, 5)) // posterior raises a tail under 5 draws to 5
	if n >= s {
		return math.NaN()
	}
	n = min(n, s/2) // both tails: at most half the draws each
	d.tail = grow(d.tail, n)
	// The left tail is the right tail of −x: its largest n values, −sorted[i]
	// for i < n, in ascending order, above the cutoff −sorted[n].
	for i := range n {
		d.tail[i] = -d.sorted[n-1-i]
	}
	left := d.tailShape(d.tail[:n], -d.sorted[n])
	copy(d.tail, d.sorted[s-n:])
	right := d.tailShape(d.tail[:n], d.sorted[s-n-1])
	return nanMax(left, right)
}

// tailLength is posterior's ps_tail_length: 3√(S/r_eff) draws where the
// effective sample size S·r_eff exceeds 225, a fifth of the draws below.
func tailLength(s, reff float64) float64 {
	if s*reff > 225 {
		return math.Floor(3 * math.Sqrt(s/reff))
	}
	return math.Floor(s / 5)
}

// tailShape is the shape of a generalized Pareto distribution fitted to a
// tail (ascending) above cutoff, NaN for a constant tail.
func (d *draws) tailShape(tail []float64, cutoff float64) float64 {
	if tail[len(tail)-1]-tail[0] < eps {
		return math.NaN() // posterior's is_constant, an absolute tolerance
	}
	if cutoff == tail[0] {
		cutoff -= eps // posterior: the cutoff must lie below the tail
	}
	for i := range tail {
		tail[i] -= cutoff
	}
	k, _ := gpdFit(tail, &d.gpd)
	return k
}

// gpdFit fits a generalized Pareto distribution with location 0 to x
// (ascending, positive): Zhang and Stephens's (2009, Technometrics 51,
// 316–325) empirical Bayes estimate, with posterior's grid of 30 + ⌊√N⌋
// points, its prior of 3 on θ, and its weakly informative prior on k, a
// Gaussian at 1/2 worth 10 draws. k is the negative of Zhang and
// Stephens's shape. k is NaN where the first quartile is the minimum (no
// Pareto tail to fit), +Inf where the fit breaks down.
func gpdFit(x []float64, buf *[]float64) (k, sigma float64) {
	n := len(x)
	xstar := x[int(math.Floor(float64(n)/4+0.5))-1] // the first quartile
	if !(xstar > x[0]) {
		return math.NaN(), math.NaN()
	}
	const prior = 3
	m := 30 + int(math.Floor(math.Sqrt(float64(n))))
	*buf = grow(*buf, 2*m)
	theta, ll := (*buf)[:m], (*buf)[m:2*m]
	meanLog1p := func(t float64) float64 {
		s := 0.0
		for _, v := range x {
			s += math.Log1p(-t * v)
		}
		return s / float64(n)
	}
	top := math.Inf(-1)
	for j := range m {
		theta[j] = 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j)+0.5)))/prior/xstar
		kj := meanLog1p(theta[j])
		ll[j] = float64(n) * (math.Log(-theta[j]/kj) - kj - 1) // profile log-likelihood
		top = math.Max(top, ll[j])
	}
	var wsum, tsum float64
	for j := range m {
		w := math.Exp(ll[j] - top)
		wsum += w
		tsum += w * theta[j]
	}
	th := tsum / wsum
	k = meanLog1p(th)
	sigma = -k / th
	k = (k*float64(n) + 0.5*10) / (float64(n) + 10)
	if math.IsNaN(k) {
		return math.Inf(1), math.NaN()
	}
	return k, sigma
}
