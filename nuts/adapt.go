package nuts

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// dualAveraging is Nesterov's dual averaging of x = log ε (Hoffman and
// Gelman 2014, as Stan's stepsize_adaptation): after t transitions with
// acceptance statistics a_i,
//
//	s̄_t = (1 − η_t)s̄_{t−1} + η_t(δ − a_t),   η_t = 1/(t + t0),
//	x_t = μ − s̄_t·√t/γ,
//	x̄_t = (1 − t^{−κ})x̄_{t−1} + t^{−κ}x_t.
//
// The step size in use is e^{x_t}; the final one e^{x̄_t}.
type dualAveraging struct {
	mu, delta, gamma, kappa, t0 float64
	t, sBar, xBar               float64
}

func (d *dualAveraging) restart() { d.t, d.sBar, d.xBar = 0, 0, 0 }

// learn takes one acceptance statistic and returns the next step size.
func (d *dualAveraging) learn(accept float64) float64 {
	d.t++
	accept = min(accept, 1)
	eta := 1 / (d.t + d.t0)
	d.sBar = (1-eta)*d.sBar + eta*(d.delta-accept)
	x := d.mu - d.sBar*math.Sqrt(d.t)/d.gamma
	w := math.Pow(d.t, -d.kappa)
	d.xBar = (1-w)*d.xBar + w*x
	return math.Exp(x)
}

// final is the adapted step size e^{x̄}.
func (d *dualAveraging) final() float64 { return math.Exp(d.xBar) }

// windows is Stan's schedule of metric windows (windowed_adaptation):
// after an initial buffer, windows of doubling length end at the returned
// transitions, the last stretched to end a terminal buffer before the end
// of warmup.
type windows struct {
	warmup, initBuf, termBuf, base int
	counter, next, size            int
	off                            bool // no metric adaptation
}

// newWindows lays out the schedule for a warmup of n transitions. Under
// 20 there is no metric window; when the three stages overflow n they
// become 15%, 75% and 10% of it.
//
// In Stan 2.2x the short-warmup branch of set_window_params does not
// restart the window counters, so for 20 ≤ n < init+window+term its first
// window's end stays at the unsigned wrap-around and the metric is never
// updated, contrary to the 15%/75%/10% split its message announces. Here
// the split is what happens: one window over the middle 75%.
func newWindows(n, initBuf, termBuf, base int) *windows {
	w := &windows{warmup: n}
	switch {
	case n < 20:
		w.off = true
		return w
	case initBuf+base+termBuf > n:
		w.initBuf = int(0.15 * float64(n))
		w.termBuf = int(0.10 * float64(n))
		w.base = n - (w.initBuf + w.termBuf)
	default:
		w.initBuf, w.termBuf, w.base = initBuf, termBuf, base
	}
	w.size = w.base
	w.next = w.initBuf + w.size - 1
	return w
}

// inWindow reports whether the current transition's draw feeds the metric
// estimate.
func (w *windows) inWindow() bool {
	return !w.off && w.counter >= w.initBuf && w.counter < w.warmup-w.termBuf
}

// endOfWindow reports whether the current transition ends a window.
func (w *windows) endOfWindow() bool {
	return !w.off && w.counter == w.next && w.counter < w.warmup-w.termBuf
}

// advance computes the next window's end, once a window has ended.
func (w *windows) advance() {
	last := w.warmup - w.termBuf - 1
	if w.next == last {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next == last {
		return
	}
	// Stretch this window to the end if the one after it would overrun.
	if w.next+2*w.size >= w.warmup-w.termBuf {
		w.next = last
	}
}

// welford accumulates the mean and the centred second moments of the
// draws, coordinate by coordinate (diagonal) or as a matrix (dense).
type welford struct {
	n     int
	dense bool
	k     float64
	mean  []float64
	m2    []float64 // p, or p×p row by row
	delta []float64
}

func newWelford(p int, dense bool) *welford {
	w := &welford{n: p, dense: dense, mean: make([]float64, p), delta: make([]float64, p)}
	if dense {
		w.m2 = make([]float64, p*p)
	} else {
		w.m2 = make([]float64, p)
	}
	return w
}

func (w *welford) restart() {
	w.k = 0
	clear(w.mean)
	clear(w.m2)
}

func (w *welford) add(q []float64) {
	w.k++
	for j, v := range q {
		w.delta[j] = v - w.mean[j]
		w.mean[j] += w.delta[j] / w.k
	}
	if !w.dense {
		for j, v := range q {
			w.m2[j] += w.delta[j] * (v - w.mean[j])
		}
		return
	}
	n := w.n
	for i, vi := range q {
		a := vi - w.mean[i]
		row := w.m2[i*n : i*n+n]
		for j := range row {
			row[j] += a * w.delta[j]
		}
	}
}

// variances are the draws' sample variances, coordinate by coordinate,
// before any shrinkage; nil under two draws.
func (w *welford) variances() []float64 {
	if w.k < 2 {
		return nil
	}
	v := make([]float64, w.n)
	for j := range v {
		if w.dense {
			v[j] = w.m2[j*w.n+j] / (w.k - 1)
		} else {
			v[j] = w.m2[j] / (w.k - 1)
		}
	}
	return v
}

// regularized returns the sample (co)variance of the draws shrunk towards
// 10⁻³·I as Stan does: (k/(k+5))·Σ̂ + 10⁻³·(5/(k+5))·I, k the draws. With
// fewer than two draws Σ̂ is taken as the current metric cur (Stan's
// estimator leaves it alone then).
func (w *welford) regularized(cur []float64) []float64 {
	out := append([]float64(nil), cur...)
	if w.k > 1 {
		for i, v := range w.m2 {
			out[i] = v / (w.k - 1)
		}
	}
	if w.dense {
		// The sums of (q_i − m_i)·δ_j are symmetric only to rounding.
		n := w.n
		for i := range n {
			for j := range i {
				v := 0.5 * (out[i*n+j] + out[j*n+i])
				out[i*n+j], out[j*n+i] = v, v
			}
		}
	}
	a, b := w.k/(w.k+5), 1e-3*5/(w.k+5)
	for i := range out {
		out[i] *= a
	}
	if w.dense {
		for i := range w.n {
			out[i*w.n+i] += b
		}
	} else {
		for i := range out {
			out[i] += b
		}
	}
	return out
}

// WarmupStats is what warmup did.
type WarmupStats struct {
	// Trace has one Transition per warmup transition.
	Trace []Transition
	// Divergences counts divergent warmup transitions, GradEvals every
	// gradient evaluation, the step-size searches' included.
	Divergences, GradEvals int
	// WindowEnds are the transitions (counted from 0) after which the
	// metric was updated and the step size searched for again.
	WindowEnds []int
	// Variances are the last metric window's sample variances of each
	// coordinate, before Stan's shrinkage towards 10⁻³·I (which, on a
	// coordinate of sd 10⁻³, makes the metric's variance twice the
	// posterior's): what the chain met of the posterior's spread. nil when
	// no window ended.
	Variances []float64
	// InitBuffer, Window and TermBuffer are the schedule used (after the
	// short-warmup rule); all zero when warmup was too short (< 20) to
	// adapt the metric.
	InitBuffer, Window, TermBuffer int
}

// Warmup runs Stan's windowed adaptation for iters transitions from init:
// NUTS transitions whose step size is tuned by dual averaging towards a
// mean acceptance statistic cfg.Delta, while the metric is learnt from the
// draws in windows of doubling length, each ending with the regularised
// (co)variance of its draws as the new inverse metric, a new step-size
// search, and a restart of the dual averaging shrinking towards ten times
// the step size found. It returns the frozen step size e^{x̄} and metric,
// the state at its end, and what it did. The metric starts as the identity.
//
// It fails if init is not a state of finite energy and gradient, if the
// step-size search runs past 10⁷ (an improper target) or to 0, or if a
// metric is not finite.
func Warmup(e energy.Energy, init []float64, iters int, rng *rand.Rand, cfg Config) (Tuned, []float64, WarmupStats, error) {
	var st WarmupStats
	cfg, err := cfg.filled()
	if err != nil {
		return Tuned{}, nil, st, err
	}
	p := e.Dim()
	switch {
	case p == 0:
		return Tuned{}, nil, st, errDim
	case len(init) != p:
		return Tuned{}, nil, st, fmt.Errorf("nuts: initial state has dimension %d, the energy %d", len(init), p)
	case iters < 1:
		return Tuned{}, nil, st, fmt.Errorf("nuts: warmup of %d transitions: need at least 1", iters)
	}
	ident := make([]float64, p)
	if cfg.Dense {
		ident = make([]float64, p*p)
		for i := range p {
			ident[i*p+i] = 1
		}
	} else {
		for i := range ident {
			ident[i] = 1
		}
	}
	if cfg.InvMetric != nil {
		ident = cfg.InvMetric
	}
	m, err := newMetric(p, cfg.Dense, ident)
	if err != nil {
		return Tuned{}, nil, st, fmt.Errorf("nuts: the initial metric: %w", err)
	}
	s := newSampler(e, m, cfg.StepSize, cfg.MaxDepth, cfg.MaxDeltaH)
	s.stop = cfg.Stop
	theta := append([]float64(nil), init...)
	if _, ok := s.load(theta); !ok {
		return Tuned{}, nil, st, fmt.Errorf("nuts: the energy or its gradient is not finite at the initial state (U = %v)", s.start.u)
	}
	da := dualAveraging{
		mu: math.Log(10 * cfg.StepSize), delta: cfg.Delta,
		gamma: cfg.Gamma, kappa: cfg.Kappa, t0: cfg.T0,
	}
	if err := s.initStepSize(rng); err != nil {
		st.GradEvals = s.gradEvals
		return Tuned{}, nil, st, err
	}
	win := newWindows(iters, cfg.InitBuffer, cfg.TermBuffer, cfg.Window)
	if !win.off {
		st.InitBuffer, st.Window, st.TermBuffer = win.initBuf, win.base, win.termBuf
	}
	est := newWelford(p, cfg.Dense)
	st.Trace = make([]Transition, 0, iters)
	for range iters {
		s.transition(theta, rng)
		if s.stopped {
			st.Divergences, st.GradEvals = s.divergences, s.gradEvals
			return Tuned{}, nil, st, ErrStopped
		}
		if cfg.Progress != nil {
			cfg.Progress()
		}
		st.Trace = append(st.Trace, s.last)
		s.eps = da.learn(s.last.AcceptStat)

		if win.inWindow() {
			est.add(theta)
		}
		if win.endOfWindow() {
			win.advance()
			st.Variances = est.variances()
			inv := est.regularized(m.inv)
			if err := m.set(inv); err != nil {
				st.Divergences, st.GradEvals = s.divergences, s.gradEvals
				return Tuned{}, nil, st, fmt.Errorf("nuts: metric at the end of the window at transition %d: %w", win.counter, err)
			}
			est.restart()
			st.WindowEnds = append(st.WindowEnds, win.counter)
			if err := s.initStepSize(rng); err != nil {
				st.Divergences, st.GradEvals = s.divergences, s.gradEvals
				return Tuned{}, nil, st, err
			}
			da.mu = math.Log(10 * s.eps)
			da.restart()
		}
		win.counter++
	}
	st.Divergences, st.GradEvals = s.divergences, s.gradEvals
	eps := da.final()
	if !(eps > 0) || math.IsInf(eps, 0) {
		return Tuned{}, nil, st, fmt.Errorf("nuts: adapted step size %v", eps)
	}
	return Tuned{StepSize: eps, Dense: cfg.Dense, InvMetric: m.values()}, theta, st, nil
}

var (
	errImproper = errors.New("nuts: step-size search passed 1e7: the posterior may be improper")
	errNoStep   = errors.New("nuts: step-size search reached 0: no step size is small enough; the posterior may not be continuous")
)

// initStepSize is Stan's heuristic (base_hmc::init_stepsize) from the
// cached state s.start: one leapfrog step of size ε from a fresh momentum
// decides whether e^{H0−H} is above 0.8; then ε doubles (above) or halves
// (below), each try from a fresh momentum, until a try falls on the other
// side.
func (s *sampler) initStepSize(rng *rand.Rand) error {
	try := func() float64 {
		z, h0 := s.fromStart(rng, s.tmp)
		s.leapfrog(z, s.eps)
		s.m.sharp(s.tmp, z.p)
		h := energyOf(z.u + 0.5*dot(z.p, s.tmp))
		return h0 - h
	}
	lim := math.Log(0.8)
	up := try() > lim
	for {
		dh := try()
		if up && !(dh > lim) || !up && !(dh < lim) {
			return nil
		}
		if up {
			s.eps *= 2
		} else {
			s.eps /= 2
		}
		if s.eps > 1e7 {
			return errImproper
		}
		if s.eps == 0 {
			return errNoStep
		}
	}
}
