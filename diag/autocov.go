package diag

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/floats"
)

// acovWork is the scratch of essOf.
type acovWork struct {
	y      []float64 // the centred chains, one after another
	means  []float64
	sums   []float64 // Σ over chains of the autocovariance at each lag computed so far
	rho    []float64
	fft    *fourier.FFT
	padded []float64
	coef   []complex128

	n int // draws per chain

	// For an indicator series (0 or 1 draws): each chain's draws as bits,
	// words per chain, and the count of ones before each position.
	ind    bool
	bitset []uint64
	words  int
	prefix []int32
}

// essOf is posterior's .ess of (already split) chains of equal length n:
// Geyer's initial positive sequence of the multi-chain autocorrelations
// ρ_t = 1 − (W − mean autocovariance at t)/var⁺, made monotone, with the
// last even lag added (it lowers the variance for antithetic chains), and
// the effective size capped at S·log10(S) for S draws. NaN for fewer than 3
// draws per chain or draws posterior calls NA.
//
// The autocovariances are computed lag by lag while the sequence needs few
// of them, as it does for chains that mix well, and by FFT (as posterior
// always does) once it needs many: the two differ only by rounding.
func essOf(chains [][]float64, w *acovWork) float64 {
	return essOfChecked(chains, w, false)
}

// essOfChecked is essOf, skipping posterior's NA check when the caller
// knows the chains pass it.
func essOfChecked(chains [][]float64, w *acovWork, known bool) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	if n < 3 || !w.prepare(chains, known) {
		return math.NaN()
	}
	return w.geyer(m, n)
}

// geyer is the part of essOf after the chains are prepared.
func (w *acovWork) geyer(m, n int) float64 {
	nf := float64(n)
	mf := float64(m)
	meanAcov := func(t int) float64 { return w.lag(t) / mf }
	meanVar0 := meanAcov(0) * nf / (nf - 1)
	varPlus := meanVar0 * (nf - 1) / nf
	if m > 1 {
		_, vb := meanVar(w.means)
		varPlus += vb
	}
	w.rho = grow(w.rho, n)
	rho := w.rho
	clear(rho)
	t := 0
	even := 1.0
	rho[0] = even
	odd := 1 - (meanVar0-meanAcov(1))/varPlus
	rho[1] = odd
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar0-meanAcov(t))/varPlus
		odd = 1 - (meanVar0-meanAcov(t+1))/varPlus
		if even+odd >= 0 {
			rho[t] = even
			rho[t+1] = odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	// Geyer's initial monotone sequence.
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	s := mf * nf
	var sum float64
	for _, r := range rho[:maxT] {
		sum += r
	}
	if maxT == 0 {
		sum = rho[0] // posterior sums rho[1:max_t], and R's 1:0 is c(1, 0)
	}
	tau := -1 + 2*sum + rho[maxT]
	tau = math.Max(tau, 1/math.Log10(s)) // ESS at most S·log10(S)
	return s / tau
}

// rangeOK extends a running minimum, maximum and sum over xs, with plain
// comparisons (not math.Min and math.Max) to keep it cheap; okRange then
// applies posterior's should_return_NA.
func rangeOK(xs []float64, lo, hi, sum float64) (float64, float64, float64) {
	for _, x := range xs {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
		sum += x
	}
	return lo, hi, sum
}

// okRange is false for what posterior's should_return_NA flags: a NaN or
// infinite value, or a range below the machine epsilon. A NaN, which the
// comparisons skip, shows in the sum; a sum that is NaN from overflow alone
// is told apart by looking for the NaN.
func okRange(lo, hi, sum float64, chains [][]float64) bool {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.Abs(hi-lo) < eps {
		return false
	}
	if math.IsNaN(sum) {
		for _, c := range chains {
			for _, x := range c {
				if x != x {
					return false
				}
			}
		}
	}
	return true
}

// prepare centres every chain by its mean and forgets the lags computed
// for the previous series; it returns false for chains posterior calls NA.
func (w *acovWork) prepare(chains [][]float64, known bool) bool {
	m, n := len(chains), len(chains[0])
	w.n, w.ind = n, false
	w.means = grow(w.means, m)
	w.y = grow(w.y, m*n)
	lo, hi, total := math.Inf(1), math.Inf(-1), 0.0
	for c, ch := range chains {
		var l, h, sum float64
		if known {
			l, h, sum = 0, 1, floats.Sum(ch) // a range okRange passes
		} else {
			l, h, sum = rangeOK(ch, math.Inf(1), math.Inf(-1), 0)
		}
		lo, hi, total = min(lo, l), max(hi, h), total+sum
		mu := sum / float64(n)
		w.means[c] = mu
		y := w.y[c*n : (c+1)*n]
		if known && isConstant(ch) || !known && l == h {
			clear(y) // a constant chain has no autocovariance, as in posterior
			w.means[c] = ch[0]
			continue
		}
		for i, x := range ch {
			y[i] = x - mu
		}
	}
	w.sums = w.sums[:0]
	return okRange(lo, hi, total, chains)
}

// lag is the sum over chains of the biased autocovariance at lag t,
// Σ_i y_i·y_{i+t} / n, computing lags as they are asked for.
func (w *acovWork) lag(t int) float64 {
	if t < len(w.sums) {
		return w.sums[t]
	}
	return w.extend(t)
}

// extend computes lags up to t, as Geyer's sequence asks for them, and
// returns lag t; past directLags it computes all lags by FFT instead.
func (w *acovWork) extend(t int) float64 {
	m := len(w.means)
	n := w.n
	have := len(w.sums)
	want := t + 1
	if w.ind {
		for k := have; k < want; k++ {
			w.sums = append(w.sums, w.indicatorLag(k))
		}
		return w.sums[t]
	}
	if want > directLags(n) {
		w.byFFT(m, n)
		return w.sums[t]
	}
	for k := have; k < want; k++ {
		var s float64
		for c := 0; c < m; c++ {
			y := w.y[c*n : (c+1)*n]
			s += floats.Dot(y[:n-k], y[k:])
		}
		w.sums = append(w.sums, s/float64(n))
	}
	return w.sums[t]
}

// directLags is how many lags cost about what an FFT of all of them does:
// measured with gonum (3–4 ms for the FFTs of 8 chains of 5000 draws,
// padded to 10000, against 7 µs per lag by floats.Dot for the same chains),
// and scaled by the FFT's n·log n.
func directLags(n int) int {
	return 32 * bits.Len(uint(2*n))
}

// essIndicator is essOf of the split chains of the indicator x ≤ q, which
// the caller knows to be neither all 0 nor all 1. Its autocovariances come
// from counts of coinciding ones, 64 draws to a machine word:
// Σ_i (I_i − μ)(I_{i+t} − μ) = C_t − μ(A_t + B_t) + (n − t)μ², with C_t the
// number of i with I_i = I_{i+t} = 1 and A_t, B_t the ones among the first
// and the last n − t draws. They are exact counts where posterior's FFT
// rounds, so the two differ by rounding only.
func essIndicator(chains [][]float64, q float64, w *acovWork) float64 {
	m, n := len(chains), len(chains[0])
	if n < 3 {
		return math.NaN()
	}
	w.n, w.ind = n, true
	w.words = n/64 + 2 // a zero word past the end keeps shifted reads in range
	w.bitset = grow(w.bitset, m*w.words)
	clear(w.bitset)
	w.prefix = grow(w.prefix, m*(n+1))
	w.means = grow(w.means, m)
	for c, ch := range chains {
		b := w.bitset[c*w.words : (c+1)*w.words]
		pre := w.prefix[c*(n+1) : (c+1)*(n+1)]
		var ones int32
		for i, x := range ch {
			pre[i] = ones
			if x <= q {
				b[i>>6] |= 1 << (i & 63)
				ones++
			}
		}
		pre[n] = ones
		w.means[c] = float64(ones) / float64(n)
	}
	w.sums = w.sums[:0]
	return w.geyer(m, n)
}

// indicatorLag is the sum over chains of the biased autocovariance of the
// indicator at lag t.
func (w *acovWork) indicatorLag(t int) float64 {
	n := w.n
	q, r := t>>6, uint(t&63)
	var sum float64
	for c, mu := range w.means {
		b := w.bitset[c*w.words : (c+1)*w.words]
		pre := w.prefix[c*(n+1) : (c+1)*(n+1)]
		var both int
		for j := 0; j+q+1 < len(b); j++ {
			s := b[j+q] >> r
			if r != 0 {
				s |= b[j+q+1] << (64 - r)
			}
			both += bits.OnesCount64(b[j] & s)
		}
		a := float64(pre[n-t])         // ones among draws 0..n−t−1
		bt := float64(pre[n] - pre[t]) // ones among draws t..n−1
		sum += float64(both) - mu*(a+bt) + float64(n-t)*mu*mu
	}
	return sum / float64(n)
}

// isConstant reports whether all of xs are equal, stopping at the first
// that differs (at once, for a chain that moves).
func isConstant(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// byFFT computes every lag as posterior's autocovariance does: the centred
// chain zero-padded to twice the next size with no prime factor above 5,
// transformed, squared in modulus and transformed back.
func (w *acovWork) byFFT(m, n int) {
	size := 2 * fftGoodSize(n)
	if w.fft == nil || w.fft.Len() != size {
		w.fft = fourier.NewFFT(size)
	}
	w.padded = grow(w.padded, size)
	w.coef = grow(w.coef, size/2+1)
	w.sums = grow(w.sums, n)
	clear(w.sums)
	for c := 0; c < m; c++ {
		copy(w.padded, w.y[c*n:(c+1)*n])
		clear(w.padded[n:])
		w.fft.Coefficients(w.coef, w.padded)
		for i, v := range w.coef {
			w.coef[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
		}
		w.fft.Sequence(w.padded, w.coef)
		for t := range w.sums {
			w.sums[t] += w.padded[t]
		}
	}
	// Sequence(Coefficients(y)) is size times the circular autocorrelation.
	scale := 1 / (float64(size) * float64(n))
	for t := range w.sums {
		w.sums[t] *= scale
	}
}

// fftGoodSize is the least N ≥ n with no prime factor above 5 (2 for
// n ≤ 2), as posterior's fft_next_good_size.
func fftGoodSize(n int) int {
	if n <= 2 {
		return 2
	}
	for ; ; n++ {
		m := n
		for m%2 == 0 {
			m /= 2
		}
		for m%3 == 0 {
			m /= 3
		}
		for m%5 == 0 {
			m /= 5
		}
		if m <= 1 {
			return n
		}
	}
}

// rhatOf is posterior's .rhat of (already split) chains: the square root of
// ((n−1)/n·W + B/n)/W, with W the mean within-chain variance and B/n the
// variance of the chain means. Chains posterior calls NA give NaN.
func rhatOf(chains [][]float64) float64 { return rhatOfChecked(chains, false) }

// rhatOfChecked is rhatOf, skipping posterior's NA check when the caller
// knows the chains pass it.
func rhatOfChecked(chains [][]float64, known bool) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := float64(len(chains[0]))
	var buf [64]float64
	means := buf[:0]
	lo, hi, total := math.Inf(1), math.Inf(-1), 0.0
	var within float64
	for _, ch := range chains {
		var sum float64
		if known {
			sum = floats.Sum(ch)
			lo, hi = 0, 1 // a range okRange passes
		} else {
			lo, hi, sum = rangeOK(ch, lo, hi, 0)
		}
		total += sum
		mu := sum / n
		var ss float64
		for _, x := range ch {
			d := x - mu
			ss += d * d
		}
		means = append(means, mu)
		within += ss / (n - 1)
	}
	if !okRange(lo, hi, total, chains) {
		return math.NaN()
	}
	within /= float64(m)
	_, vb := meanVar(means)
	return math.Sqrt((n*vb/within + n - 1) / n)
}
