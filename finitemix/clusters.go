package finitemix

import "math"

// expFloor is the log ratio below which a component's share of a value
// is left out: e^−40 ≈ 4e−18 is below half an ulp of a sum of at least 1
// (the largest term), so adding it changes nothing in double precision.
const expFloor = -40

// ClustersAt writes into out[k] (k < K) P(K+ = k + 1 | θ), as Clusters
// of the responsibilities at θ does, in one pass over the data with no
// scratch of N·K: each value's responsibilities are used as they are
// computed, and only the subsets T whose product P_T has not underflowed
// to 0 are updated (at large N most die within a few hundred values, so
// a value costs its K terms and a few products, not 2^K). The same
// arithmetic as Clusters but for the exponentials, which are fastExp's
// (within 1e-13 of Clusters's math.Exp): at 10⁶ values math.Exp made
// this function cost as much as a sweep of the kernel. It allocates
// nothing and is safe for concurrent use.
func (m *FiniteMixture) ClustersAt(out, theta []float64) {
	k := m.K
	var s scratch
	p, r, _ := m.unpack(&s, theta)
	var c, inv [8]float64
	for j := range k {
		c[j] = p.LogW[j] - math.Log(p.Sigma[j])
		inv[j] = 1 / p.Sigma[j]
	}
	nsub := 1 << k
	var prod, rs [256]float64
	var live [256]uint16
	nl := 0
	for t := 1; t < nsub; t++ {
		prod[t] = 1
		live[nl] = uint16(t)
		nl++
	}
	for _, z := range m.Z {
		lmax := math.Inf(-1)
		for j := range k {
			d := (z - p.Mu[j]) * inv[j]
			r[j] = c[j] - d*d/2
			if r[j] > lmax {
				lmax = r[j]
			}
		}
		var sum float64
		for j := range k {
			if r[j]-lmax < expFloor {
				r[j] = 0
				continue
			}
			r[j] = fastExp(r[j] - lmax)
			sum += r[j]
		}
		is := 1 / sum
		for j := range k {
			r[j] *= is
		}
		// Subset sums in increasing order of t, each from a smaller one.
		rs[0] = 0
		for t := 1; t < nsub; t++ {
			low := t & -t
			rs[t] = rs[t&^low] + r[lowBits[low]]
		}
		w := 0
		for _, t := range live[:nl] {
			prod[t] *= rs[t]
			if prod[t] != 0 {
				live[w] = t
				w++
			}
		}
		nl = w
		if nl == 1 {
			// Only the whole set is left, whose factor is 1 up to
			// rounding: every component is used, whatever the other
			// values (P(K+ = K) = 1 to about N ulps).
			break
		}
	}
	clustersFromProducts(out, prod[:nsub], k)
}

// lowBits[1<<j] is j, j < 8.
var lowBits = func() (t [256]uint8) {
	for j := range 8 {
		t[1<<j] = uint8(j)
	}
	return t
}()
