package variance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// AutoBatch is the variance model of a chain on a minibatch estimator that
// also picks the chain's minibatch size n. It trusts the estimator's own
// variance reports, as Known does, and every Every steps of burn-in (until
// Freeze) it resizes the minibatch so that the gradient noise supplies the share Share of the
// chain's noise budget 2τη at the coordinate where the examples disagree most:
//
//	η² · N(N − n)/n · S²_max = Share · 2τη,  so  n* = 1 / (1/N + 2·Share·τ / (η N² S²_max)),
//
// where S²_max = max_j S̄_j² and S̄_j² is the average per-example sample
// variance of ∂_jU_i over the gradient draws since the last check (the
// minibatch's Spread, unbiased for the population variance at any n). It
// takes n = ⌈n*⌉, so the share is at most Share; the other coordinates get a
// smaller share and more injected noise. η is the level's step size at the
// step of the check, so a decreasing schedule shrinks n as it goes.
//
// When no n in [Min, Max] meets the target, the nearest one is used and the
// check is counted: Below when even n = Min leaves the noise under the target
// (harmless: the chain injects the rest; the data are too uniform, or η too
// small, for noise to be free), Above when n* > Max (the noise exceeds the
// target and per-coordinate clamping follows; lower η or raise Max). Warning
// describes the second case.
//
// The first check, at step 0, has nothing to go on, so it draws one pilot
// gradient at the estimator's initial size; the sampler counts that draw as
// variance-estimation cost. Choose the initial size with that in mind.
//
// An AutoBatch serves one level: it resizes the estimator it was given,
// which must be that level's alone, for that level's τ (Binding tells a
// sampler which, so that it can refuse a model on the wrong level).
// exchange.Setup's HotVar serves a two-level ladder; for more levels use
// Setup.HotVarAt, which makes one AutoBatch per level on that level's own
// clone of Hot.
type AutoBatch struct {
	mb  *energy.Minibatch
	tau float64
	eta langevin.Schedule
	opt AutoOptions

	spread, grad, gv []float64
	smooth           []float64 // S̄_j² of the last check's window
	smoothed         bool      // smooth averages a full window, not the pilot
	frozen           bool      // burn-in is over: n and the smoothed spread stay
	stats            AutoStats
}

// AutoOptions are the settings of AutoBatch; zero values take the defaults.
type AutoOptions struct {
	Share float64 // target share of the noise budget, in (0, 1]; default 0.9
	Every int     // steps between checks; default 100
	// Min and Max bound n; defaults 2 and N. Min = Max fixes n, for a
	// chain that wants only the smoothed variance below.
	Min, Max int
	// Smooth makes GradVar report N(N − n)/n · S̄_j², the per-example spread
	// averaged over the window that ended at the last check, instead of the
	// draw's own estimate N(N − n)/n · s_j². The own estimate is unbiased,
	// but the corrected step injects max(0, 2τη − η²ŝ_j²): on draws whose
	// spread happens to be large it cannot inject less than nothing, so at
	// small n, where s_j² scatters widely, the chain runs hotter than τ
	// (at n = 5 and share 0.9 its variance is about 20% too large; see
	// TestAutoBatchTemperature, go test -v -run Temperature ./variance).
	// The smoothed value does not scatter; it lags a spread that changes
	// with θ by up to one window. Until the first full window (while only
	// the pilot draw has been seen) GradVar reports the draw's own estimate.
	Smooth bool
}

// AutoStats is what an AutoBatch did.
type AutoStats struct {
	Checks int // checks made, the one at step 0 included
	// Below and Above count checks where no n in [Min, Max] met the target
	// and n = Min, respectively n = Max, was used.
	Below, Above int
	N            int     // current n
	Lo, Hi       int     // smallest and largest n chosen
	S2           float64 // S²_max estimated at the last check
	Share        float64 // share of the budget met at the last check, at its S2
}

var (
	_ Model = (*AutoBatch)(nil)
	_ Bound = (*AutoBatch)(nil)
)

// Binding is the estimator the model resizes and the temperature it sizes
// for.
func (a *AutoBatch) Binding() (energy.Estimator, float64) { return a.mb, a.tau }

// NewAutoBatch returns the model for a level at temperature tau stepping
// with schedule eta on the minibatch estimator mb.
func NewAutoBatch(mb *energy.Minibatch, tau float64, eta langevin.Schedule, opt AutoOptions) (*AutoBatch, error) {
	N := mb.Len()
	if opt.Share == 0 {
		opt.Share = 0.9
	}
	if opt.Every == 0 {
		opt.Every = 100
	}
	if opt.Min == 0 {
		opt.Min = min(2, N)
	}
	if opt.Max == 0 {
		opt.Max = N
	}
	switch {
	case !(opt.Share > 0 && opt.Share <= 1):
		return nil, fmt.Errorf("automatic minibatch: target share %v must lie in (0, 1]", opt.Share)
	case opt.Every < 1:
		return nil, fmt.Errorf("automatic minibatch: check period %d must be at least 1 step", opt.Every)
	case opt.Min < 2 && opt.Min != N:
		return nil, fmt.Errorf("automatic minibatch: smallest size %d must be at least 2", opt.Min)
	case opt.Max < opt.Min || opt.Max > N:
		return nil, fmt.Errorf("automatic minibatch: largest size %d must lie in [%d, N = %d]", opt.Max, opt.Min, N)
	case !(tau > 0) || math.IsInf(tau, 0):
		return nil, fmt.Errorf("automatic minibatch: temperature τ = %v must be positive and finite", tau)
	case eta == nil:
		return nil, fmt.Errorf("automatic minibatch: no step size schedule")
	}
	if err := eta.Validate(); err != nil {
		return nil, fmt.Errorf("automatic minibatch: %w", err)
	}
	mb.TrackSpread() // its draws count even under a policy that asks no variances
	p := mb.Dim()
	return &AutoBatch{
		mb: mb, tau: tau, eta: eta, opt: opt,
		spread: make([]float64, p), grad: make([]float64, p), gv: make([]float64, p), smooth: make([]float64, p),
		stats: AutoStats{N: mb.Size()},
	}, nil
}

// SizeFor is the real n* at which a size-n minibatch of N examples with
// per-example variance s2 gives gradient noise η²·N(N − n)/n·s2 equal to
// share·2τη. It is 0 when s2 is 0.
func SizeFor(N int, s2, eta, tau, share float64) float64 {
	if !(s2 > 0) {
		return 0
	}
	fN := float64(N)
	return 1 / (1/fN + 2*share*tau/(eta*fN*fN*s2))
}

// ShareAt is the share of the budget 2τη that the gradient noise of a size-n
// minibatch takes: η²·N(N − n)/n·s2 / (2τη).
func ShareAt(N, n int, s2, eta, tau float64) float64 {
	return eta * energy.FPC(N, n) * s2 / (2 * tau)
}

// Stats returns what the model did so far.
func (a *AutoBatch) Stats() AutoStats { return a.stats }

// Warning describes checks that could not meet the target share because n
// would have had to exceed Max; it is empty when there were none.
func (a *AutoBatch) Warning() string {
	if a.stats.Above == 0 {
		return ""
	}
	return fmt.Sprintf("automatic minibatch: at %d of %d checks the gradient noise at the largest size n = %d exceeded %.0f%% of the noise budget 2τη (τ = %v); expect clamped coordinates; lower η or allow a larger n",
		a.stats.Above, a.stats.Checks, a.opt.Max, 100*a.opt.Share, a.tau)
}

// Freeze ends the resizing: n and the smoothed spread stay as they are
// (the end of burn-in; see Freezer).
func (a *AutoBatch) Freeze() { a.frozen = true }

// Frozen reports whether the resizing has ended.
func (a *AutoBatch) Frozen() bool { return a.frozen }

func (a *AutoBatch) Observe(k int, theta []float64, est energy.Estimator, rng *rand.Rand) error {
	if a.frozen || k%a.opt.Every != 0 {
		return nil
	}
	if a.stats.Checks == 0 && a.mb.Spread(a.spread) == 0 {
		est.Grad(a.grad, a.gv, theta, rng) // the pilot
	}
	draws := a.mb.Spread(a.spread)
	if draws == 0 {
		return nil // n = N = 1: nothing to learn
	}
	a.mb.ResetSpread()
	copy(a.smooth, a.spread)
	a.smoothed = draws >= a.opt.Every
	s2 := 0.0
	for j, v := range a.spread {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("automatic minibatch at step %d: the per-example spread of gradient coordinate %d is %v", k, j, v)
		}
		s2 = max(s2, v)
	}
	N := a.mb.Len()
	eta := a.eta.Eta(k)
	want := SizeFor(N, s2, eta, a.tau, a.opt.Share)
	n := int(math.Ceil(want))
	switch {
	case n < a.opt.Min:
		n = a.opt.Min
		a.stats.Below++
	case n > a.opt.Max:
		n = a.opt.Max
		a.stats.Above++
	}
	if err := a.mb.SetSize(n); err != nil {
		return fmt.Errorf("automatic minibatch at step %d: %w", k, err)
	}
	if a.stats.Checks == 0 {
		a.stats.Lo, a.stats.Hi = n, n
	}
	a.stats.Checks++
	a.stats.N = n
	a.stats.Lo, a.stats.Hi = min(a.stats.Lo, n), max(a.stats.Hi, n)
	a.stats.S2 = s2
	a.stats.Share = ShareAt(N, n, s2, eta, a.tau)
	return nil
}

func (a *AutoBatch) GradVar(dst, _, reported []float64) {
	if !a.opt.Smooth || !a.smoothed {
		copy(dst, reported)
		return
	}
	f := energy.FPC(a.mb.Len(), a.mb.Size())
	for j, v := range a.smooth {
		dst[j] = f * v
	}
}

func (*AutoBatch) EnergyVar(_ []float64, reported float64, _ bool) float64 { return reported }

func (*AutoBatch) NeedsReport() bool { return true }
