package variance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/meanvar"
)

// KRR is the paper's non-parametric variance model (f-reSGLD_nonp, §5.1):
// it records the first Points states its level visits (one every Period
// steps), draws Repeats gradient and energy estimates at each, and fits a
// kernel ridge regression of the sample variances ŝ_j²(θ) and σ̂²(θ) on the
// state θ ∈ R^p. Later steps evaluate the fit, clipped at zero, and make no
// more draws. Until the fit exists it answers with the running average of
// the variances it has seen, as Running does. The end of burn-in (Freeze)
// fits it to the states recorded by then, if it has not yet been fitted.
//
// The regression is chosen by the data alone, by leave-one-out
// cross-validation on the recorded points, through the closed-form shortcut
// of a linear smoother, which for this centred ridge approximates the
// brute-force leave-one-out error within 2% (see fitKRR and looShortcut).
// Nothing about the sampler's accuracy enters.
//
// A model made by Follower uses its leader's fit once it exists: the paper
// fits on the hot chain and applies the fit to every state, which is right
// when both levels draw from the same estimator.
type KRR struct {
	Points  int // states to fit on, ≥ 1 (the paper uses 100)
	Repeats int // draws per state, ≥ 2
	Period  int // steps between recorded states, ≥ 1

	leader  *KRR
	fitted  atomic.Pointer[krrFit]
	adopted *krrFit // a follower's copy of the leader's fit, taken at a step boundary
	frozen  bool    // burn-in is over: nothing more is recorded (Freeze)

	n      int       // states recorded
	xs, ys []float64 // Points×p states; Points×(p+1) variances (ŝ_1²…ŝ_p², σ̂²)
	gvar   []float64 // running average of ŝ², per coordinate
	evar   float64   // running average of σ̂²
	gv     []float64 // one state's sample variances
	rep    repeats

	// The last prediction: a level asks for σ²(θ) at the swap and then for
	// ŝ²(θ) at the same θ in its next step, so one kernel pass serves both.
	lastFit   *krrFit
	lastTheta []float64
	lastOut   []float64 // ŝ_1²…ŝ_p², σ²
}

var (
	_ Model   = (*KRR)(nil)
	_ Freezer = (*KRR)(nil)
)

// NewKRR returns a kernel-ridge model; it checks its settings.
func NewKRR(points, repeats, period int) (*KRR, error) {
	switch {
	case points < 1:
		return nil, fmt.Errorf("kernel ridge variance: points = %d, need at least 1", points)
	case repeats < 2:
		return nil, fmt.Errorf("kernel ridge variance: repeats = %d, need at least 2 for a sample variance", repeats)
	case period < 1:
		return nil, fmt.Errorf("kernel ridge variance: period = %d, need at least 1", period)
	}
	return &KRR{Points: points, Repeats: repeats, Period: period}, nil
}

// Follower returns a model for another level that draws from the same
// estimator: it keeps its own running average until k's fit exists and then
// evaluates k's fit, making no more draws. Leader and followers may step on
// different goroutines.
func (k *KRR) Follower() *KRR {
	return &KRR{Points: k.Points, Repeats: k.Repeats, Period: k.Period, leader: k}
}

// Fitted reports whether the regression is in use (the leader's, for a
// follower).
func (k *KRR) Fitted() bool { return k.current() != nil }

// Recorded is the number of states recorded so far.
func (k *KRR) Recorded() int { return k.n }

// Choice describes the fitted regression for output o (o < p: ŝ_o²; o = p:
// σ²): the bandwidth on standardised coordinates and the ridge parameter
// (+Inf when cross-validation preferred the constant). ok is false before
// the fit.
func (k *KRR) Choice(o int) (bandwidth, lambda float64, ok bool) {
	f := k.current()
	if f == nil || o < 0 || o >= len(f.lambda) {
		return 0, 0, false
	}
	return f.h, f.lambda[o], true
}

// Freeze ends the recording at the end of burn-in (see Freezer). A leader
// that has not yet recorded its Points states fits the regression to those
// it has (below 3 points, their mean: the constant), and a follower takes
// its leader's fit at once, freezing the leader first if need be. From
// then on the model makes no draws and records nothing, and its answers
// depend on θ alone, so the kernel the chain steps is fixed. With no state
// recorded at all it answers 0, as before any Observe.
func (k *KRR) Freeze() {
	if k.frozen {
		return
	}
	k.frozen = true
	if k.leader != nil {
		k.leader.Freeze()
		if f := k.leader.fitted.Load(); f != nil {
			k.adopted = f
		}
		return
	}
	if k.fitted.Load() == nil && k.n > 0 {
		f := fitKRR(k.xs, k.ys, len(k.xs)/k.n, k.n)
		f.step = -1 // made between steps: a follower may adopt it at once
		k.fitted.Store(f)
	}
}

// Frozen reports whether Freeze has been called.
func (k *KRR) Frozen() bool { return k.frozen }

func (k *KRR) current() *krrFit {
	if k.leader != nil {
		return k.adopted
	}
	return k.fitted.Load()
}

func (k *KRR) Observe(step int, theta []float64, est energy.Estimator, rng *rand.Rand) error {
	if k.leader != nil && k.adopted == nil {
		// Adopt the leader's fit only from the step after it was made:
		// levels stepping concurrently may or may not see it during that
		// step, and the output must not depend on which.
		if f := k.leader.fitted.Load(); f != nil && f.step < step {
			k.adopted = f
		}
	}
	if k.frozen || k.current() != nil || step%k.Period != 0 || k.n >= k.Points {
		return nil
	}
	p := len(theta)
	if k.gvar == nil {
		k.gvar, k.gv = make([]float64, p), make([]float64, p)
		if k.leader == nil {
			k.xs = make([]float64, 0, k.Points*p)
			k.ys = make([]float64, 0, k.Points*(p+1))
		}
	}
	ev := k.rep.sample(k.gv, theta, est, rng, k.Repeats)
	if math.IsNaN(ev) || math.IsInf(ev, 0) {
		return fmt.Errorf("kernel ridge variance at step %d: energy estimates are not finite (σ̂² = %v)", step, ev)
	}
	k.n++
	w := 1 / float64(k.n)
	for j, v := range k.gv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kernel ridge variance at step %d: gradient coordinate %d estimates are not finite (ŝ² = %v)", step, j, v)
		}
		k.gvar[j] += w * (v - k.gvar[j])
		if k.leader == nil {
			k.ys = append(k.ys, v)
		}
	}
	k.evar += w * (ev - k.evar)
	if k.leader != nil {
		return nil
	}
	k.ys = append(k.ys, ev)
	k.xs = append(k.xs, theta...)
	if k.n == k.Points {
		f := fitKRR(k.xs, k.ys, p, k.n)
		f.step = step
		k.fitted.Store(f)
	}
	return nil
}

func (k *KRR) GradVar(dst, theta, _ []float64) {
	f := k.current()
	if f == nil {
		copy(dst, k.gvar)
		return
	}
	copy(dst, k.predict(f, theta)[:f.p])
}

func (k *KRR) EnergyVar(theta []float64, _ float64, _ bool) float64 {
	f := k.current()
	if f == nil {
		return k.evar
	}
	return k.predict(f, theta)[f.p]
}

// predict returns the p+1 predictions at theta, reusing the last ones when
// theta has not changed. The buffers belong to this model (one level), so
// leader and followers never share them.
func (k *KRR) predict(f *krrFit, theta []float64) []float64 {
	if k.lastFit == f && slices.Equal(k.lastTheta, theta) {
		return k.lastOut
	}
	if len(k.lastOut) != f.p+1 {
		k.lastOut = make([]float64, f.p+1)
		k.lastTheta = make([]float64, f.p)
	}
	f.predict(k.lastOut, theta)
	copy(k.lastTheta, theta)
	k.lastFit = f
	return k.lastOut
}

func (*KRR) NeedsReport() bool { return false }

// krrFit is an immutable fitted regression: for output o,
// ŷ_o(θ) = mean_o + Σ_i α_{o,i} exp(−|D(θ − x_i)|²/(2h²)), D = diag(1/scale).
type krrFit struct {
	p, n   int
	step   int       // the step at which it was fitted
	xs     []float64 // n×p recorded states
	inv    []float64 // 1/scale_j
	h2     float64   // 2h²
	h      float64
	means  []float64   // per output
	alpha  [][]float64 // per output, nil for the constant
	lambda []float64   // per output, +Inf for the constant
}

// Bandwidths are tried at these multiples of the median pairwise distance
// of the standardised states, ridge parameters at these values (the kernel
// has unit diagonal, so λ is on the scale of one point's own weight).
var (
	krrBandwidths = []float64{1.0 / 16, 1.0 / 11.3, 1.0 / 8, 1.0 / 5.66, 1.0 / 4, 1.0 / 2.83, 1.0 / 2, 1 / 1.41, 1, 1.41, 2, 2.83, 4}
	krrRidges     = []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100}
)

// fitKRR fits the regression of ys (n×(p+1)) on xs (n×p).
//
// Selection rule. Inputs are standardised per coordinate (sd over the
// points; 1 if it is 0). Each output o is centred at its mean ȳ_o and fitted
// by ridge regression with a Gaussian kernel, a linear smoother
// ŷ = S y with S = J + H(I − J), H = K(K + λI)⁻¹ = Q diag(Λ/(Λ+λ)) Qᵀ and
// J = 11ᵀ/n. Its leave-one-out residuals are approximated by the linear
// smoother's shortcut (y_i − ŷ_i)/(1 − S_ii) (not exact for a centred
// ridge: see looShortcut), so the LOO error of every (h, λ) costs one
// eigendecomposition per h. The
// constant ȳ_o (λ = ∞, S = J) is always a candidate. For each h, every
// output takes its best λ; h minimises the sum over outputs of their LOO
// errors relative to the constant's, so that outputs on different scales
// weigh alike and the kernel is evaluated once per prediction.
func fitKRR(xs, ys []float64, p, n int) *krrFit {
	q := p + 1
	f := &krrFit{p: p, n: n, xs: append([]float64(nil), xs...), inv: make([]float64, p),
		means: make([]float64, q), alpha: make([][]float64, q), lambda: make([]float64, q)}
	for o := range q {
		var m float64
		for i := range n {
			m += ys[i*q+o]
		}
		f.means[o] = m / float64(n)
		f.lambda[o] = math.Inf(1)
	}
	for j := range p {
		sd := meanvar.ColumnSD(xs, n, p, j)
		if !(sd > 0) || math.IsInf(sd, 0) {
			sd = 1
		}
		f.inv[j] = 1 / sd
	}
	f.h, f.h2 = 1, 2
	if n < 3 {
		return f // too few points to cross-validate: the constant
	}
	// Centred outputs and the constant's LOO error per output.
	yc := make([][]float64, q)
	base := make([]float64, q)
	for o := range q {
		yc[o] = make([]float64, n)
		for i := range n {
			yc[o][i] = ys[i*q+o] - f.means[o]
			r := yc[o][i] / (1 - 1/float64(n))
			base[o] += r * r
		}
	}
	d2 := make([]float64, n*n)
	var dists []float64
	for i := range n {
		for l := i + 1; l < n; l++ {
			var s float64
			for j := range p {
				d := (xs[i*p+j] - xs[l*p+j]) * f.inv[j]
				s += d * d
			}
			d2[i*n+l], d2[l*n+i] = s, s
			dists = append(dists, math.Sqrt(s))
		}
	}
	sort.Float64s(dists)
	med := dists[len(dists)/2]
	if !(med > 0) {
		med = 1
	}
	type best struct {
		score  float64
		h      float64
		lambda []float64
	}
	win := best{score: math.Inf(1)}
	K := mat.NewSymDense(n, nil)
	var eig mat.EigenSym
	var Q mat.Dense
	qty := make([]float64, n)  // Qᵀ y
	q1 := make([]float64, n)   // Qᵀ 1
	qr := make([]float64, n*n) // Q row-major
	dc := make([]float64, n)   // Λ/(Λ+λ)
	for _, mult := range krrBandwidths {
		h := mult * med
		for i := range n {
			for l := i; l < n; l++ {
				K.SetSym(i, l, math.Exp(-d2[i*n+l]/(2*h*h)))
			}
		}
		if !eig.Factorize(K, true) {
			continue
		}
		lam := eig.Values(nil)
		eig.VectorsTo(&Q)
		for i := range n {
			for c := range n {
				qr[i*n+c] = Q.At(i, c)
			}
		}
		for c := range n {
			lam[c] = math.Max(lam[c], 0)
			var s float64
			for i := range n {
				s += qr[i*n+c]
			}
			q1[c] = s
		}
		cand := best{h: h, lambda: make([]float64, q)}
		var total float64
		for o := range q {
			cand.lambda[o] = math.Inf(1)
			for c := range n {
				qty[c] = 0
			}
			for i := range n {
				y := yc[o][i]
				for c, v := range qr[i*n : (i+1)*n] {
					qty[c] += v * y
				}
			}
			bestErr := base[o]
			for _, l := range krrRidges {
				for c := range n {
					dc[c] = lam[c] / (lam[c] + l)
				}
				e := looShortcut(qr, dc, qty, q1, yc[o])
				if e < bestErr {
					bestErr, cand.lambda[o] = e, l
				}
			}
			if base[o] > 0 {
				total += bestErr / base[o]
			} else {
				total++ // a constant output: nothing to explain
			}
		}
		if total < win.score {
			win = best{score: total, h: h, lambda: cand.lambda}
		}
	}
	if win.lambda == nil {
		return f
	}
	f.h, f.h2 = win.h, 2*win.h*win.h
	f.lambda = win.lambda
	// α_o = (K + λ_o I)⁻¹ (y_o − ȳ_o) at the chosen bandwidth.
	for i := range n {
		for l := i; l < n; l++ {
			K.SetSym(i, l, math.Exp(-d2[i*n+l]/f.h2))
		}
	}
	for o := range q {
		if math.IsInf(f.lambda[o], 1) {
			continue
		}
		A := mat.NewSymDense(n, nil)
		for i := range n {
			for l := i; l < n; l++ {
				v := K.At(i, l)
				if i == l {
					v += f.lambda[o]
				}
				A.SetSym(i, l, v)
			}
		}
		var a mat.VecDense
		if err := a.SolveVec(A, mat.NewVecDense(n, append([]float64(nil), yc[o]...))); err != nil {
			f.lambda[o] = math.Inf(1) // numerically singular: keep the constant
			continue
		}
		f.alpha[o] = append([]float64(nil), a.RawVector().Data...)
		for _, v := range f.alpha[o] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				f.alpha[o], f.lambda[o] = nil, math.Inf(1)
				break
			}
		}
	}
	return f
}

// looShortcut is Σ_i ((y_i − ŷ_i)/(1 − S_ii))² for the centred ridge
// smoother S = J + H(I − J), H = Q diag(dc) Qᵀ (qr is Q row-major, qty = Qᵀy
// with y centred, q1 = Qᵀ1), or +Inf where some S_ii is too near 1. It is
// the exact leave-one-out error of a smoother whose fit with y_i replaced by
// its own leave-one-out prediction reproduces that prediction; the centred
// ridge is not one (leaving a point out also moves the mean it is centred
// at), so this is an approximation to the brute-force leave-one-out error,
// within 2% on the problems tried (TestKRRLeaveOneOutShortcut measures the
// ratio: 0.9916–1.0059). It serves to rank candidates, not as an error
// estimate.
func looShortcut(qr, dc, qty, q1, y []float64) float64 {
	n := len(y)
	e := 0.0
	for i := range n {
		var fy, dh, hone float64 // (Hy)_i, H_ii, (H1)_i
		for c, qic := range qr[i*n : (i+1)*n] {
			w := qic * dc[c]
			fy += w * qty[c]
			dh += w * qic
			hone += w * q1[c]
		}
		sii := 1/float64(n) + dh - hone/float64(n)
		if !(1-sii > 1e-9) {
			return math.Inf(1)
		}
		r := (y[i] - fy) / (1 - sii)
		e += r * r
	}
	return e
}

// predict writes the clipped predictions of every output into out.
func (f *krrFit) predict(out, theta []float64) {
	copy(out, f.means)
	for i := range f.n {
		var d2 float64
		x := f.xs[i*f.p : (i+1)*f.p]
		for j, t := range theta[:f.p] {
			d := (t - x[j]) * f.inv[j]
			d2 += d * d
		}
		if d2 > 40*f.h2 { // kernel < e⁻⁴⁰: below double precision's reach
			continue
		}
		kv := math.Exp(-d2 / f.h2)
		for o, a := range f.alpha {
			if a != nil {
				out[o] += kv * a[i]
			}
		}
	}
	for o, v := range out {
		if !(v > 0) { // negative, or NaN from a non-finite θ
			out[o] = 0
		}
	}
}
