package plan

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/modes"
)

// HeatDraws is the number of minibatch gradients a forecast draws at the
// mode to measure the clamp.
const HeatDraws = 2000

// HeatTolerance is the change in a coordinate's stationary variance, made
// by the gradient noise, beyond which a run is warned before sampling (its
// sd changes by about half of it).
const HeatTolerance = 0.02

// fullForecastWork bounds the work of the full correction's clamp forecast,
// draws × (n·p² + p³): each draw takes a p×p covariance and its eigen
// decomposition.
const fullForecastWork = 2e9

// forecastRows bounds the examples a forecast reads where N·p² exceeds
// HessianWork: the subset's Hessian and gradient covariance err by a few
// per cent (of order √(p/m)), and their 2p passes by central differences
// stay near a second.
const forecastRows = 100_000

// NoiseForecast is the stationary variance a corrected chain (f-reSGLD's
// cold level: exchange.Level with Noise langevin.Corrected, or
// CorrectedFull) is predicted to have, coordinate by coordinate, against
// the posterior's, from the gradient noise at the posterior mode.
//
// The correction injects max(0, 2τη − η²ŝ_j²) on coordinate j (diagonal)
// so that the total noise of a step is 2τη on average. Two things keep the
// total from being 2τη·I:
//
//   - The clamp. Where a minibatch's noise alone exceeds the budget (an
//     outlier in the batch), the step cannot inject less than nothing, and
//     the total exceeds 2τη by E[(η²ŝ_j² − 2τη)⁺]: the chain runs hotter.
//   - The covariances between coordinates (diagonal correction only). The
//     gradient noise's covariance Σ keeps its off-diagonal part in the
//     total, 2τη·I + η²(Σ − diag Σ). Noise from a few gross outliers lies
//     along their feature vectors, and with correlated features a
//     zero-diagonal η²(Σ − diag Σ) takes noise away from most directions:
//     the chain runs colder there, and its marginal sds come out too small
//     although every coordinate's own noise is right and many steps clamp
//     (issue 50: 0.96 of MALA's sds, where the clamp alone predicted 4.5%
//     too large a variance).
//
// The forecast linearises the chain at the mode m: θ' − m = (I − ηH)(θ − m)
// + w, H the Hessian of U there and w the step's total noise, whose mean
// covariance Q is η²Σ off the diagonal and 2τη + E[(η²ŝ_j² − 2τη)⁺] on it
// (diagonal), or 2τη·I + E[(η²Σ̂ − 2τη·I)⁺] (full: the excess of each draw's
// covariance Σ̂ over the budget along its eigen-directions). The stationary
// covariance C solves C = (I − ηH)C(I − ηH) + Q, which in H's eigenbasis is
// C̃_ab = Q̃_ab/(1 − (1 − ηλ_a)(1 − ηλ_b)); the posterior's is τH⁻¹ (the
// Laplace approximation). Σ is N(N − n)/n times the per-example gradients'
// covariance (every example where N·p² ≤ 5·10⁸, else a random subset of
// ⌈5·10⁸/p²⌉, at most 10⁵); the clamps come from 2000 minibatch draws at
// the mode.
//
// On a heavy-tailed logistic regression (2% outliers, correlated features)
// the forecast sds were within 1–2% of those measured against MALA from
// 0.86 to 1.36 of them (TestNoiseForecastAgainstMALA); it errs most where
// most steps clamp, since it ignores the state's excursions along the clamp.
type NoiseForecast struct {
	N          int                 // the minibatch size
	Eta, Tau   float64             // the step size and temperature
	Correction exchange.Correction // the correction forecast
	// VarRatio[j] is coordinate j's predicted stationary variance over the
	// posterior's: the gradient noise and the Euler step's own bias.
	VarRatio []float64
	// EulerRatio[j] is the same for exact noise 2τη·I: the step's own bias
	// alone (1/(1 − ηλ/2) along an eigenvalue λ of H).
	EulerRatio []float64
	// Over is the share of the draws at the mode in which the gradient
	// noise exceeded the budget 2τη in some coordinate (diagonal) or some
	// direction (full): the share of steps that clamp there.
	Over float64
	// Excess is the energy the gradient noise adds on average,
	// ½Σ_a λ_a(C̃_aa − C̃⁰_aa)/τ in H's eigenbasis (nats; C⁰ the stationary
	// covariance with exact noise 2τη·I). Each direction counts alike, so
	// the stiff directions along the outliers' features, which the
	// coordinates' sds hardly show, count here in full: it is what a
	// ladder's swaps read (LadderForecast).
	Excess float64
	// EulerExcess is the energy the Euler step's own bias adds,
	// ½Σ_a (λ_a C̃⁰_aa/τ − 1): a ladder with exact gradients has it too.
	EulerExcess float64
}

// Noise is the gradient noise's own change in coordinate j's variance,
// VarRatio[j]/EulerRatio[j] − 1: negative where the chain runs colder.
func (f *NoiseForecast) Noise(j int) float64 { return f.VarRatio[j]/f.EulerRatio[j] - 1 }

// Worst is the coordinate whose variance the gradient noise changes most
// (|Noise(j)| largest).
func (f *NoiseForecast) Worst() int { return worst(len(f.VarRatio), f.Noise) }

// worst is the j < n of the largest |noise(j)|, the first where several are.
func worst(n int, noise func(int) float64) int {
	w := 0
	for j := range n {
		if math.Abs(noise(j)) > math.Abs(noise(w)) {
			w = j
		}
	}
	return w
}

// SDRange is the least and the greatest predicted sd ratio over the
// coordinates, √VarRatio.
func (f *NoiseForecast) SDRange() (lo, hi float64) { return sdRange(f.VarRatio) }

// sdRange is the least and the greatest √v over the variance ratios v.
func sdRange(varRatio []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range varRatio {
		lo, hi = min(lo, math.Sqrt(r)), max(hi, math.Sqrt(r))
	}
	return lo, hi
}

// ForecastNoise forecasts the stationary variances of a chain on t at step
// size eta and temperature tau whose gradients are minibatches of n
// examples under correction c, from the posterior mode (see NoiseForecast).
// It returns an error where the forecast cannot be made: p > 1000 (no p×p
// Hessian is formed), a Hessian at mode that is not positive definite, a
// step at which the Euler chain is unstable (ηλ_max ≥ 2), or a gradient
// noise that is not finite.
func ForecastNoise(t energy.Terms, mode []float64, n int, eta, tau float64, c exchange.Correction, seed uint64) (*NoiseForecast, error) {
	nm, err := NewNoiseModel(t, mode, seed)
	if err != nil {
		return nil, err
	}
	return nm.Forecast(n, eta, tau, c, HeatDraws)
}

// NoForecast is the error of a forecast that cannot be made for the
// model's shape or step (not for a broken gradient): a run is then not
// warned, and not stopped.
type NoForecast struct{ msg string }

func (e NoForecast) Error() string { return e.msg }

// NoiseModel is what a forecast needs at the mode whatever n, η and τ: the
// Hessian's eigen decomposition and the per-example gradients' covariance.
// It keeps each noise covariance it forecasts, so that a ladder's forecast
// and its remedies draw each level's minibatches once (a model served by
// a process answers a request a draw). It is not safe for concurrent use.
type NoiseModel struct {
	t      energy.Terms
	mode   []float64
	seed   uint64
	lambda []float64  // H's eigenvalues
	v      *mat.Dense // H's eigenvectors, by column
	exact  []float64  // diag(H⁻¹)
	s2     *mat.SymDense
	memo   map[noiseKey]noiseVal
}

// noiseKey and noiseVal are a noise covariance's arguments and result
// (noiseCov: the same arguments draw the same minibatches).
type noiseKey struct {
	n, draws int
	eta, tau float64
	c        exchange.Correction
}

type noiseVal struct {
	q     *mat.SymDense
	share float64
}

func NewNoiseModel(t energy.Terms, mode []float64, seed uint64) (*NoiseModel, error) {
	N, p := t.Len(), t.Dim()
	if float64(p)*float64(p)*float64(p) > DenseWork {
		return nil, NoForecast{fmt.Sprintf("p = %d: no p×p Hessian is formed above p = 1000", p)}
	}
	rows := allRows(N, p)
	var h *mat.SymDense
	if rows == nil {
		rows = subsetRows(N, p, seed)
		if len(rows) < 10*p {
			// A subset's Hessian errs by about √(p/m): past a third, no
			// forecast is worth its number. With m = ⌈5·10⁸/p²⌉ that is
			// p above about 370.
			return nil, NoForecast{fmt.Sprintf("p = %d: a subset of %d examples is too few for the Hessian", p, len(rows))}
		}
		if ho, ok := t.(interface {
			HessianOf(theta []float64, rows []int) *mat.SymDense
		}); ok {
			h = ho.HessianOf(mode, rows) // models.Logistic: scaled by N/m
		} else {
			h = subsetHessian(t, mode, rows)
		}
	} else {
		h = modes.Hessian(t, modes.Energy(t), mode)
	}
	var es mat.EigenSym
	if !es.Factorize(h, true) {
		return nil, NoForecast{"the Hessian at the mode has no eigen decomposition"}
	}
	nm := &NoiseModel{t: t, mode: mode, seed: seed, lambda: es.Values(nil), v: &mat.Dense{}}
	es.VectorsTo(nm.v)
	for a, l := range nm.lambda {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, NoForecast{fmt.Sprintf("the Hessian at the mode is not positive definite (eigenvalue %d is %.4g)", a, l)}
		}
	}
	nm.exact = make([]float64, p)
	for j := range p {
		for a, l := range nm.lambda {
			x := nm.v.At(j, a)
			nm.exact[j] += x * x / l
		}
	}
	var err error
	if nm.s2, err = gradCov(t, mode, rows); err != nil {
		return nil, err
	}
	return nm, nil
}

// Len is the number of examples.
func (nm *NoiseModel) Len() int { return nm.t.Len() }

// Mode is the mode the model was made at.
func (nm *NoiseModel) Mode() []float64 { return nm.mode }

// allRows is nil where N·p² exceeds HessianWork (a subset is taken), else
// every example.
func allRows(N, p int) []int {
	if float64(N)*float64(p)*float64(p) > HessianWork {
		return nil
	}
	rows := make([]int, N)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// subsetRows is a uniformly random subset of ⌈HessianWork/p²⌉ of the N
// examples, at most forecastRows.
func subsetRows(N, p int, seed uint64) []int {
	m := min(N, forecastRows, int(math.Ceil(HessianWork/(float64(p)*float64(p)))))
	rng := rand.New(rand.NewPCG(seed, 0x7375627365))
	rows := rng.Perm(N)[:m]
	return rows
}

// subsetHessian is ∇²U at theta with the data sum estimated from rows,
// scaled by N/len(rows): central differences of the gradients, 2p passes
// over the rows.
func subsetHessian(t energy.Terms, theta []float64, rows []int) *mat.SymDense {
	p := len(theta)
	scale := float64(t.Len()) / float64(len(rows))
	grad := func(dst, x []float64) {
		gi := make([]float64, p)
		t.Prior(dst, x)
		for _, i := range rows {
			t.Term(gi, x, i)
			for j, g := range gi {
				dst[j] += scale * g
			}
		}
	}
	h := mat.NewSymDense(p, nil)
	gp, gm := make([]float64, p), make([]float64, p)
	x := append([]float64(nil), theta...)
	for k := range p {
		e := 1e-5 * max(1, math.Abs(theta[k]))
		x[k] = theta[k] + e
		grad(gp, x)
		x[k] = theta[k] - e
		grad(gm, x)
		x[k] = theta[k]
		for j := range p {
			d := (gp[j] - gm[j]) / (2 * e)
			switch {
			case j == k:
				h.SetSym(j, j, d)
			case j < k:
				h.SetSym(j, k, h.At(j, k)+d/2)
			default:
				h.SetSym(k, j, h.At(k, j)+d/2)
			}
		}
	}
	return h
}

// gradCov is the covariance of the per-example gradients ∇U_i at theta
// over rows (denominator len(rows) − 1): S², of which a minibatch of n
// takes N(N − n)/n·S² as its variance (energy.FPC). Rows are taken in
// blocks, each a rank-k update about the first row's gradient.
func gradCov(t energy.Terms, theta []float64, rows []int) (*mat.SymDense, error) {
	p := len(theta)
	if len(rows) < 2 {
		return nil, errors.New("fewer than 2 examples: no gradient covariance")
	}
	const block = 256
	buf := make([]float64, block*p)
	shift, sum := make([]float64, p), make([]float64, p)
	t.Term(shift, theta, rows[0])
	acc := blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: make([]float64, p*p)}
	for b := 0; b < len(rows); b += block {
		k := min(block, len(rows)-b)
		for r, i := range rows[b : b+k] {
			g := buf[r*p : (r+1)*p]
			t.Term(g, theta, i)
			for j := range g {
				g[j] -= shift[j]
				sum[j] += g[j]
			}
		}
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: k, Cols: p, Stride: p, Data: buf[:k*p]}, 1, acc)
	}
	m := float64(len(rows))
	s2 := mat.NewSymDense(p, nil)
	for a := range p {
		for b := a; b < p; b++ {
			v := (acc.Data[a*p+b] - sum[a]*sum[b]/m) / (m - 1)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("the gradient noise of coordinates %d and %d is not finite at the mode", a, b)
			}
			s2.SetSym(a, b, v)
		}
	}
	return s2, nil
}

// Forecast is ForecastNoise at batch n, from draws minibatch gradients.
func (nm *NoiseModel) Forecast(n int, eta, tau float64, c exchange.Correction, draws int) (*NoiseForecast, error) {
	p := nm.t.Dim()
	for a, l := range nm.lambda {
		if r := 1 - eta*l; !(math.Abs(r) < 1) {
			return nil, NoForecast{fmt.Sprintf("η = %.4g: the Euler step is unstable along the Hessian's eigenvalue %d (ηλ = %.3g ≥ 2)", eta, a, eta*l)}
		}
	}
	f := &NoiseForecast{N: n, Eta: eta, Tau: tau, Correction: c}
	q, over, err := nm.noiseCov(n, eta, tau, c, draws)
	if err != nil {
		return nil, err
	}
	f.Over = over
	q0 := mat.NewSymDense(p, nil)
	for j := range p {
		q0.SetSym(j, j, 2*tau*eta)
	}
	f.VarRatio = nm.stationary(q, eta, tau)
	f.EulerRatio = nm.stationary(q0, eta, tau)
	ct, c0 := nm.eigenCov(q, eta), nm.eigenCov(q0, eta)
	for a, l := range nm.lambda {
		f.Excess += 0.5 * l * (ct.At(a, a) - c0.At(a, a)) / tau
		f.EulerExcess += 0.5 * (l*c0.At(a, a)/tau - 1)
	}
	return f, nil
}

// noiseCov is the mean covariance Q of a step's total noise at batch n
// (see NoiseForecast) and the share of draws that clamp, kept for the next
// call with the same arguments: q must not be changed.
func (nm *NoiseModel) noiseCov(n int, eta, tau float64, c exchange.Correction, draws int) (*mat.SymDense, float64, error) {
	k := noiseKey{n: n, draws: draws, eta: eta, tau: tau, c: c}
	if v, ok := nm.memo[k]; ok {
		return v.q, v.share, nil
	}
	q, share, err := nm.drawNoiseCov(n, eta, tau, c, draws)
	if err != nil {
		return nil, 0, err
	}
	if nm.memo == nil {
		nm.memo = map[noiseKey]noiseVal{}
	}
	nm.memo[k] = noiseVal{q, share}
	return q, share, nil
}

// drawNoiseCov is noiseCov, drawn.
func (nm *NoiseModel) drawNoiseCov(n int, eta, tau float64, c exchange.Correction, draws int) (*mat.SymDense, float64, error) {
	N, p := nm.t.Len(), nm.t.Dim()
	budget := 2 * tau * eta
	q := mat.NewSymDense(p, nil)
	fpc := 0.0
	if n < N {
		fpc = energy.FPC(N, n)
	}
	for a := range p {
		for b := a; b < p; b++ {
			q.SetSym(a, b, eta*eta*fpc*nm.s2.At(a, b))
		}
	}
	var share float64
	if n < N {
		var over []float64
		var err error
		if c == exchange.Full {
			over, share, err = nm.fullExcess(n, eta, budget, draws)
		} else {
			over, share, err = nm.diagExcess(n, eta, budget, draws)
		}
		if err != nil {
			return nil, 0, err
		}
		if c == exchange.Full {
			for a := range p {
				for b := a; b < p; b++ {
					v := over[a*p+b]
					if a == b {
						v += budget
					}
					q.SetSym(a, b, v)
				}
			}
		} else {
			for j := range p {
				q.SetSym(j, j, budget+over[j])
			}
		}
	} else {
		for j := range p {
			q.SetSym(j, j, budget)
		}
	}
	return q, share, nil
}

// stationary is diag(C)/diag(τH⁻¹), C the stationary covariance of the
// linearised chain whose noise has covariance q.
func (nm *NoiseModel) stationary(q *mat.SymDense, eta, tau float64) []float64 {
	p := len(nm.lambda)
	var tmp mat.Dense
	tmp.Mul(nm.v, nm.eigenCov(q, eta))
	out := make([]float64, p)
	for j := range p {
		var c float64
		for a := range p {
			c += tmp.At(j, a) * nm.v.At(j, a)
		}
		out[j] = c / (tau * nm.exact[j])
	}
	return out
}

// diagExcess draws minibatch gradients of size n at the mode and returns
// E[(η²ŝ_j² − budget)⁺] per coordinate and the share of draws with some
// coordinate over the budget.
func (nm *NoiseModel) diagExcess(n int, eta, budget float64, draws int) ([]float64, float64, error) {
	mb, err := energy.NewMinibatch(nm.t, n)
	if err != nil {
		return nil, 0, err
	}
	p := nm.t.Dim()
	rng := rand.New(rand.NewPCG(nm.seed, 0x68656174))
	grad, gv, excess := make([]float64, p), make([]float64, p), make([]float64, p)
	over := 0
	for range draws {
		mb.Grad(grad, gv, nm.mode, rng)
		clamped := false
		for j, v := range gv {
			if e := eta*eta*v - budget; e > 0 {
				excess[j] += e / float64(draws)
				clamped = true
			}
		}
		if clamped {
			over++
		}
	}
	for j, e := range excess {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil, 0, fmt.Errorf("the gradient noise of coordinate %d is not finite at the mode", j)
		}
	}
	return excess, float64(over) / float64(draws), nil
}

// fullExcess is diagExcess for the full correction: E[(η²Σ̂ − budget·I)⁺]
// (p×p, row-major), the excess of each draw's covariance over the budget
// along its eigen-directions. Its draws are fewer where p is large
// (fullForecastWork); fewer than 100 is an error.
func (nm *NoiseModel) fullExcess(n int, eta, budget float64, draws int) ([]float64, float64, error) {
	N, p := nm.t.Len(), nm.t.Dim()
	fp, fn := float64(p), float64(n)
	draws = min(draws, int(fullForecastWork/(fn*fp*fp+fp*fp*fp)))
	if draws < 100 {
		return nil, 0, NoForecast{fmt.Sprintf("p = %d, n = %d: the full correction's clamp is too costly to forecast", p, n)}
	}
	mb, err := energy.NewMinibatch(nm.t, n)
	if err != nil {
		return nil, 0, err
	}
	mb.KeepRows()
	rng := rand.New(rand.NewPCG(nm.seed, 0x68656174))
	grad := make([]float64, p)
	mean := make([]float64, p)
	cov := blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: make([]float64, p*p)}
	sym := mat.NewSymDense(p, cov.Data)
	excess := make([]float64, p*p)
	var es mat.EigenSym
	var vec mat.Dense
	vals := make([]float64, p)
	over := 0
	for range draws {
		mb.Grad(grad, nil, nm.mode, rng)
		rows, k := mb.Rows()
		clear(mean)
		for i := range k {
			for j, g := range rows[i*p : (i+1)*p] {
				mean[j] += g / float64(k)
			}
		}
		centred := make([]float64, k*p)
		for i := range k {
			for j, g := range rows[i*p : (i+1)*p] {
				centred[i*p+j] = g - mean[j]
			}
		}
		clear(cov.Data)
		blas64.Syrk(blas.Trans, eta*eta*energy.FPC(N, k)/float64(k-1), blas64.General{Rows: k, Cols: p, Stride: p, Data: centred}, 0, cov)
		if !es.Factorize(sym, true) {
			return nil, 0, errors.New("a minibatch's gradient covariance at the mode has no eigen decomposition")
		}
		es.Values(vals)
		es.VectorsTo(&vec)
		clamped := false
		for d, l := range vals {
			e := l - budget
			if math.IsNaN(e) || math.IsInf(e, 0) {
				return nil, 0, errors.New("the gradient noise is not finite at the mode")
			}
			if e <= 0 {
				continue
			}
			clamped = true
			for a := range p {
				for b := a; b < p; b++ {
					excess[a*p+b] += e * vec.At(a, d) * vec.At(b, d) / float64(draws)
				}
			}
		}
		if clamped {
			over++
		}
	}
	return excess, float64(over) / float64(draws), nil
}
