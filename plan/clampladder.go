package plan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/exchange"
)

// ladderWork bounds the work of a ladder forecast's simulation, steps ×
// (2 + 1/2)p² (two levels' noise a step, the cold level's and its control
// variate's coordinates every 4th).
const ladderWork = 1e9

// ladderRelax is the number of the slowest relaxation times (or swap
// spacings, when longer) a ladder forecast simulates; ladderMinRelax the
// fewest it accepts before it declines (NoForecast).
const (
	ladderRelax    = 4000
	ladderMinRelax = 200
	ladderBatches  = 40
	ladderThin     = 4 // the cold level's state is read every 4th step
)

// LadderLevel is one level of a two-level ladder: its minibatch size and
// temperature.
type LadderLevel struct {
	N   int
	Tau float64
}

// LadderForecast is the stationary variance of the cold level of a
// two-level corrected ladder (f-reSGLD: both levels corrected, one step
// size, swaps on exact energies or screened and confirmed on them) against
// the posterior's, coordinate by coordinate.
//
// A lone corrected chain's forecast (NoiseForecast) does not carry over to
// the ladder's cold level, because a swap reads the cold state's energy.
// The gradient noise's clamps and covariances heat the stiff directions
// along the outliers' features most: a small change in the coordinates'
// sds (which the slow directions make), a large one in the energy (every
// direction counts ½ nat). The swap rule reads that excess energy as a
// cold state too hot for its level and accepts the hot level's states more
// often than it would for the posterior; they arrive wide in the slow
// directions, which the cold level's own steps take 1/(ηλ_min) steps to
// relax, and the cold level's sds come out larger than the lone chain's.
// The more often swaps are attempted, the larger: on wdbc's ten mean
// features with 6 gross outliers, n = 32, the hot level exact, the cold
// level's mean sd ratio was 0.99 with an attempt every 10⁴ steps, 1.09
// every 143, 1.17 every 10 (docs/experiments/minibatch.md).
//
// The forecast takes the lone chain's linearisation at the mode for both
// levels, each with its own batch, temperature and noise covariance Q
// (NoiseForecast), as Gaussian noise, and simulates the two linear chains
// with swaps attempted every Spacing steps (or with probability Rate a
// step) on the quadratic energies ½(θ − m)ᵀH(θ − m), in H's eigenbasis,
// from a fixed seed: the same approximation as the lone chain's, with the
// swaps' selection by energy kept. It errs where the chain's noise depends
// on the state (the measured sds were up to 0.05 above it on wdbc) and,
// for swaps screened on noisy energies, by the screen's rejections, which
// it does not see (it takes every attempt as one on exact energies: more
// swaps, an upper bound on their effect).
type LadderForecast struct {
	Cold, Hot *NoiseForecast // each level's own steps, alone
	Spacing   int            // steps between swap attempts (0: Rate a step)
	Rate      float64        // the probability of an attempt a step, where Spacing is 0
	Steps     int            // the steps simulated, after a burn-in
	// VarRatio[j] is the cold level's coordinate j's predicted stationary
	// variance over the posterior's, swaps included; SE[j] its Monte
	// Carlo standard error (batch means).
	VarRatio, SE []float64
	// Accept is the simulated swaps' acceptance.
	Accept float64
	// Relax is the slowest direction's relaxation time 1/(ηλ_min), in
	// steps.
	Relax float64
}

// Noise is the gradient noise's change in the cold level's coordinate j's
// variance, swaps included: VarRatio[j] over the Euler step's own ratio,
// − 1.
func (f *LadderForecast) Noise(j int) float64 { return f.VarRatio[j]/f.Cold.EulerRatio[j] - 1 }

// Worst is the coordinate whose variance the ladder's noise changes most.
func (f *LadderForecast) Worst() int { return worst(len(f.VarRatio), f.Noise) }

// Within says whether the ladder's noise changes no coordinate's variance
// by more than tol beyond twice the simulation's standard error:
// |Noise(j)| − 2·SE[j]/EulerRatio[j] ≤ tol for every j, a change the
// forecast cannot tell from one within tol.
func (f *LadderForecast) Within(tol float64) bool {
	for j := range f.VarRatio {
		if math.Abs(f.Noise(j))-2*f.SE[j]/f.Cold.EulerRatio[j] > tol {
			return false
		}
	}
	return true
}

// SDRange is the least and the greatest forecast sd ratio of the cold
// level over the coordinates.
func (f *LadderForecast) SDRange() (lo, hi float64) { return sdRange(f.VarRatio) }

// Ladder forecasts the cold level of a two-level ladder at step size eta
// whose levels cold and hot correct their gradient noise by c, with swaps
// attempted every spacing steps (spacing > 0) or with probability rate a
// step (see LadderForecast). draws are each level's minibatch draws at the
// mode (Forecast). It returns NoForecast where the simulation would take
// more than about 10⁹ operations for 200 of the slowest relaxation times.
func (nm *NoiseModel) Ladder(cold, hot LadderLevel, eta float64, c exchange.Correction, spacing int, rate float64, draws int) (*LadderForecast, error) {
	if !(hot.Tau > cold.Tau) {
		return nil, fmt.Errorf("ladder forecast: hot temperature %v not above the cold %v", hot.Tau, cold.Tau)
	}
	if spacing <= 0 && !(rate > 0 && rate <= 1) {
		return nil, fmt.Errorf("ladder forecast: swap rate %v a step, want (0, 1]", rate)
	}
	fc, err := nm.Forecast(cold.N, eta, cold.Tau, c, draws)
	if err != nil {
		return nil, err
	}
	fh, err := nm.Forecast(hot.N, eta, hot.Tau, c, draws)
	if err != nil {
		return nil, err
	}
	p := len(nm.lambda)
	lmin := nm.lambda[0]
	for _, l := range nm.lambda {
		lmin = min(lmin, l)
	}
	relax := 1 / (eta * lmin)
	every := float64(spacing)
	if spacing <= 0 {
		every = 1 / rate
	}
	scale := max(relax, every)
	steps := int(math.Min(ladderRelax*scale, ladderWork/((2+2.0/ladderThin)*float64(p*p))))
	if float64(steps) < ladderMinRelax*scale {
		return nil, NoForecast{fmt.Sprintf("p = %d, slowest relaxation %.3g steps, swaps every %.3g: the ladder's simulation would cost too much", p, relax, every)}
	}
	steps -= steps % (ladderBatches * ladderThin)
	qc, _, err := nm.noiseCov(cold.N, eta, cold.Tau, c, draws)
	if err != nil {
		return nil, err
	}
	qh, _, err := nm.noiseCov(hot.N, eta, hot.Tau, c, draws)
	if err != nil {
		return nil, err
	}
	f := &LadderForecast{Cold: fc, Hot: fh, Spacing: spacing, Rate: rate, Steps: steps, Relax: relax}
	lc, lh := nm.eigenRoot(qc), nm.eigenRoot(qh)
	f.VarRatio, f.SE, f.Accept = nm.simulateLadder(lc, lh, fc.EulerRatio, eta, cold.Tau, hot.Tau, spacing, rate, int(10*relax), steps)
	return f, nil
}

// eigenCov is the linearised chain's stationary covariance in H's
// eigenbasis, C̃_ab = Q̃_ab/(1 − (1 − ηλ_a)(1 − ηλ_b)), for noise q.
func (nm *NoiseModel) eigenCov(q *mat.SymDense, eta float64) *mat.Dense {
	var qt, tmp mat.Dense
	tmp.Mul(nm.v.T(), q)
	qt.Mul(&tmp, nm.v)
	for a, la := range nm.lambda {
		for b, lb := range nm.lambda {
			qt.Set(a, b, qt.At(a, b)/(1-(1-eta*la)*(1-eta*lb)))
		}
	}
	return &qt
}

// eigenRoot is the symmetric square root R of q in H's eigenbasis,
// R² = VᵀqV (row-major p×p), from its own eigen decomposition with any
// negative eigenvalue, a rounding of a positive semi-definite mean, taken
// as 0. Symmetric, so that noise near 2τη·I has a root near √(2τη)·I and
// drives the chain as the exact reference's normals do (simulateLadder).
func (nm *NoiseModel) eigenRoot(q *mat.SymDense) []float64 {
	p := len(nm.lambda)
	var qt, tmp mat.Dense
	tmp.Mul(nm.v.T(), q)
	qt.Mul(&tmp, nm.v)
	s := mat.NewSymDense(p, nil)
	for a := range p {
		for b := a; b < p; b++ {
			s.SetSym(a, b, (qt.At(a, b)+qt.At(b, a))/2)
		}
	}
	var es mat.EigenSym
	r := make([]float64, p*p)
	if !es.Factorize(s, true) {
		// Fall back on the diagonal: the noise's own variances.
		for a := range p {
			r[a*p+a] = math.Sqrt(max(s.At(a, a), 0))
		}
		return r
	}
	vals := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	for a := range p {
		for b := range p {
			var v float64
			for d, l := range vals {
				v += u.At(a, d) * math.Sqrt(max(l, 0)) * u.At(b, d)
			}
			r[a*p+b] = v
		}
	}
	return r
}

// simulateLadder runs the linearised two-level ladder in H's eigenbasis:
// each level x' = (I − ηΛ)x + Rz with its own root R (row-major), z
// standard normal; a swap attempted every spacing steps (or with
// probability rate a step) and accepted with probability
// min(1, exp((1/τ1 − 1/τ2)(U(x_cold) − U(x_hot)))), U(x) = ½Σλ_a x_a². It
// returns the cold level's coordinate variances (about the mode, the
// linear chain's exact mean) over τ1·diag(H⁻¹) after burn steps, their
// batch-means standard errors, and the swaps' acceptance.
//
// The variances are euler + E[c_j² − r_j²]: r a reference ladder driven by
// the same normals and the same swap decisions' uniforms with exact noise
// 2τη·I on each level, whose cold level's variances are taken for the
// Euler step's alone (euler: NoiseForecast.EulerRatio; its swaps on the
// posterior's energies move them by about as much as the Euler bias's
// own ½Σ(1/(1 − ηλ_a/2) − 1) nats of energy, against the several nats of
// the noise's that the forecast is for). The difference is the gradient
// noise's own effect, swaps included; where it is small the two ladders
// swap alike and the ladders' own fluctuations, most of a plain
// estimate's error, cancel.
func (nm *NoiseModel) simulateLadder(rc, rh []float64, euler []float64, eta, tau1, tau2 float64, spacing int, rate float64, burn, steps int) (ratio, se []float64, accept float64) {
	p := len(nm.lambda)
	d := make([]float64, p)
	for a, l := range nm.lambda {
		d[a] = 1 - eta*l
	}
	vt := make([]float64, p*p) // V row-major: coordinate j = Σ_a V_ja x_a
	for j := range p {
		for a := range p {
			vt[j*p+a] = nm.v.At(j, a)
		}
	}
	rng := rand.New(rand.NewPCG(nm.seed, 0x6c6164646572))
	x, y, xr, yr := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	z := make([]float64, p)
	s1, s2 := math.Sqrt(2*tau1*eta), math.Sqrt(2*tau2*eta)
	step := func(s, ref, r []float64, sr float64) {
		for a := range z {
			z[a] = rng.NormFloat64()
		}
		for a := range p {
			w := d[a] * s[a]
			for b, zb := range r[a*p : (a+1)*p] {
				w += zb * z[b]
			}
			s[a] = w
			ref[a] = d[a]*ref[a] + sr*z[a]
		}
	}
	energy := func(s []float64) float64 {
		var e float64
		for a, l := range nm.lambda {
			e += 0.5 * l * s[a] * s[a]
		}
		return e
	}
	beta := 1/tau1 - 1/tau2
	batch := steps / ladderBatches
	sums := make([]float64, ladderBatches*p)
	tried, took := 0, 0
	for k := -burn; k < steps; k++ {
		step(x, xr, rc, s1)
		step(y, yr, rh, s2)
		attempt := false
		if spacing > 0 {
			attempt = (k+burn)%spacing == spacing-1
		} else {
			attempt = rng.Float64() < rate
		}
		if attempt {
			tried++
			u := math.Log(rng.Float64())
			if u < beta*(energy(x)-energy(y)) {
				x, y = y, x
				took++
			}
			if u < beta*(energy(xr)-energy(yr)) {
				xr, yr = yr, xr
			}
		}
		if k < 0 || k%ladderThin != 0 {
			continue
		}
		acc := sums[(k/batch)*p : (k/batch+1)*p]
		for j := range p {
			var c, cr float64
			for a, v := range vt[j*p : (j+1)*p] {
				c += v * x[a]
				cr += v * xr[a]
			}
			acc[j] += c*c - cr*cr
		}
	}
	ratio, se = make([]float64, p), make([]float64, p)
	for j := range p {
		var m, m2 float64
		for b := range ladderBatches {
			v := sums[b*p+j] / float64(batch/ladderThin) / (tau1 * nm.exact[j])
			m += v / ladderBatches
			m2 += v * v / ladderBatches
		}
		ratio[j] = euler[j] + m
		se[j] = math.Sqrt(max(m2-m*m, 0) / (ladderBatches - 1))
	}
	if tried > 0 {
		accept = float64(took) / float64(tried)
	}
	return ratio, se, accept
}
