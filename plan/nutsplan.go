package plan

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/nuts"
	"github.com/fresgld/fresgld/report"
	"github.com/fresgld/fresgld/results"
)

// NUTSPlan runs one chain of the No-U-Turn Sampler (package nuts) per
// chain, each after a warmup of its own: Stan's windowed adaptation of the
// step size and a metric, from a start of its own. The warmup is the
// chains' burn-in and every adaptation ends with it: the chains then step
// a fixed kernel. The plan chooses it where the posterior's scale changes
// with position, so that a preconditioner fixed at a mode (the log-concave
// plan's, the mode plan's) cannot follow it: funnels, Gaussian processes'
// length-scales, ODE parameters near their bounds, posteriors with no mode.
type NUTSPlan struct {
	t   energy.Terms
	cfg nuts.Config
	// deltaFlag says the run's command has --adapt-delta, which the
	// divergences' remedy then names.
	deltaFlag bool
	// ridges is the mode searches, every one of which ended where the
	// Hessian is not positive definite (0: not so), which Warnings
	// reports: a posterior flat along a parameter the data do not inform
	// and no proper prior bounds has no mode, is improper, and no run
	// converges on it; its chains drift (θ2 at 3.9e20, R̂ 2.6) and the
	// remedies of a slow run, a longer one, do not help.
	ridges int
	warm   map[int]*warmChain
	why    string
	leap   float64 // mean leapfrog steps a transition at the end of warmup
	iters  int
	// rejects0 is the states the model had rejected before the warmups
	// (the mode search's far probes, the pilots'), which the divergences'
	// warning does not count: a model that keeps them (rejecter).
	rejects0 int64
	// chains are the kernels Sampler made, by chain id, which count what
	// the chains' transitions did.
	mu     sync.Mutex
	chains map[int]*nutsChain
}

// nutsChain is a chain's NUTS kernel with Stan's diagnostics of its
// transitions after warmup: divergences, trajectories cut at the largest
// depth, and the energies for E-BFMI (Betancourt 2016: the mean squared
// change of the Hamiltonian between transitions over its variance, Stan's
// e_bfmi; below report.EBFMIMin the momenta explore the energy levels too
// slowly). Running sums: a step allocates nothing.
type nutsChain struct {
	*nuts.Kernel
	maxDepth            int
	n, divergent, atMax int
	prev, dSq, mean, m2 float64
}

func (c *nutsChain) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	moved, cost := c.Kernel.Step(theta, rng)
	t := c.Last()
	if t.Stopped {
		return moved, cost // not a transition (Cut): nothing to count
	}
	if t.Divergent {
		c.divergent++
	}
	if t.Depth >= c.maxDepth {
		c.atMax++
	}
	c.n++
	if c.n > 1 {
		d := t.Energy - c.prev
		c.dSq += d * d
	}
	c.prev = t.Energy
	d := t.Energy - c.mean
	c.mean += d / float64(c.n)
	c.m2 += d * (t.Energy - c.mean)
	return moved, cost
}

// Cut reports whether the run's stop cut the last transition short
// (exchange.StoppableKernel): the sampler then takes no step.
func (c *nutsChain) Cut() bool { return c.Last().Stopped }

// ebfmi is Σ(E_t − E_{t−1})² / Σ(E_t − Ē)², NaN under two transitions.
func (c *nutsChain) ebfmi() float64 {
	if c.n < 2 {
		return math.NaN()
	}
	return c.dSq / c.m2
}

// warmChain is one chain after its warmup.
type warmChain struct {
	tuned nuts.Tuned
	state []float64
	stats nuts.WarmupStats
	err   error
	// seconds is the warmup's wall time.
	seconds float64
}

// Stan's warmup length, and the most coordinates for which the plan adapts
// a dense metric: a dense one needs the warmup's draws to pin p(p+1)/2
// covariances, and costs p² a leapfrog step, which past 50 coordinates a
// diagonal one does not.
const (
	nutsWarmup   = 1000
	nutsDenseMax = 50
	// nutsIAT is the transitions per effective draw that the plan
	// assumes of an adapted NUTS chain. The slowest quantity's was about 2
	// where measured (a minimum bulk ESS of 4096–4109 in 8000 draws in
	// TestPlanRunsNUTSWhereLaplaceIsPoor; 2295–2367 in 4000 on eight
	// schools, non-centred): at 1000 draws a chain the thinning is 1
	// either way, and the comparison with MALA's cost leans towards NUTS
	// by that factor, which only matters where the Laplace fit is good.
	nutsIAT = 1
	// nutsStartTries are Stan's tries at a start of finite density.
	nutsStartTries = 100
)

// NewNUTSPlan warms up one chain per id, at once on as many cores as there
// are, from starts uniform in (−2, 2) about start (Stan's, about θ = 0 when
// start is nil), or at fallback (a mode) when set and no start of finite
// density is found, and from the inverse metric inv (nil: the identity;
// see nutsConfig). why says why the plan chose NUTS.
func NewNUTSPlan(t energy.Terms, ids []int, seed uint64, start, fallback, inv []float64, why string, status *Status) (*NUTSPlan, error) {
	np := &NUTSPlan{t: t, cfg: nutsConfig(t.Dim(), inv, status), warm: map[int]*warmChain{}, why: why, iters: nutsWarmup, chains: map[int]*nutsChain{}}
	np.deltaFlag = status != nil && status.adaptDelta > 0
	if r, ok := t.(rejecter); ok {
		np.rejects0, _ = r.Rejected()
	}
	// The run's interrupt stops a warmup between leapfrog steps, and so
	// the chains' kernels after it (nuts.Config.Stop): on a slow model a
	// warmup takes minutes, and stopped only between chains.
	np.cfg.Stop = status.Stop()
	np.cfg.Progress = warmupProgress(status, len(ids), nutsWarmup, fmt.Sprintf("warming up %d NUTS chains", len(ids)))
	status.Set("warming up %d NUTS chains (%d transitions each)", len(ids), nutsWarmup)
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for _, id := range ids {
		w := &warmChain{}
		np.warm[id] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if w.err = status.Stopped(); w.err != nil {
				return // a chain still waiting for a core never starts
			}
			*w = warmUp(t, np.cfg, nutsWarmup, exchange.ChainSeed(seed, id), start, fallback, nil)
		}()
	}
	wg.Wait()
	if err := status.Stopped(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := np.warm[id].err; err != nil {
			return nil, fmt.Errorf("NUTS warmup of chain %d: %w", id, err)
		}
	}
	np.leap = meanLeapfrogs(np.warm[ids[0]].stats.Trace)
	return np, nil
}

// warmupProgress counts the transitions of n warmups of iters each, and
// says on status, after what, how many are done and the time left.
func warmupProgress(status *Status, n, iters int, what string) func() {
	if status == nil {
		return nil
	}
	var done atomic.Int64
	began := time.Now()
	total := int64(n * iters)
	return func() {
		if k := done.Add(1); k%16 == 0 {
			left := time.Duration(float64(time.Since(began)) * float64(total-k) / float64(k))
			status.Set("%s (%d transitions each): %d of %d, about %s left", what, iters, k, total, left.Round(time.Second))
		}
	}
}

// nutsConfig is Stan's, with a dense metric up to nutsDenseMax coordinates,
// whose warmup starts from the inverse metric inv where it is given (nil:
// the identity), and tunes the step size to the run's --adapt-delta
// (status's; Stan's 0.8 where none was given).
func nutsConfig(p int, inv []float64, status *Status) nuts.Config {
	cfg := nuts.DefaultConfig()
	cfg.Dense = p <= nutsDenseMax
	cfg.InvMetric = inv
	if status != nil && status.adaptDelta > 0 {
		cfg.Delta = status.adaptDelta
	}
	return cfg
}

// laplaceMetric is the inverse Hessian h⁻¹ at a mode as an inverse metric,
// dense (p×p) or its diagonal, for NUTS's warmup to start from: where the
// Laplace fit is good, the warmup's first trajectories then have the
// posterior's scales already, instead of the identity's, which on a
// posterior whose sds span 10⁴ cost a hundredfold in gradients
// (nuts.TestWarmupFromInvMetric). nil where h is not positive definite.
func laplaceMetric(h *mat.SymDense, dense bool) []float64 {
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil
	}
	p := h.SymmetricDim()
	out := make([]float64, 0, p*p)
	for i := range p {
		if !dense {
			out = append(out, inv.At(i, i))
			continue
		}
		for j := range p {
			out = append(out, inv.At(i, j))
		}
	}
	return out
}

// warmUp is one chain's warmup of iters transitions, drawing from its own
// stream, from a start nutsStart draws (x0 nil) or from x0.
func warmUp(t energy.Terms, cfg nuts.Config, iters int, seed uint64, start, fallback, x0 []float64) warmChain {
	var w warmChain
	e := modes.Energy(t)
	rng := rand.New(rand.NewPCG(seed, 1<<43))
	if x0 == nil {
		if x0, w.err = nutsStart(e, start, fallback, rng); w.err != nil {
			return w
		}
	}
	began := time.Now()
	w.tuned, w.state, w.stats, w.err = nuts.Warmup(e, x0, iters, rng, cfg)
	w.seconds = time.Since(began).Seconds()
	return w
}

// meanLeapfrogs is the mean leapfrog steps a transition over the last 100
// of a warmup, when the step size has settled.
func meanLeapfrogs(tr []nuts.Transition) float64 {
	tail := tr[len(tr)-min(len(tr), 100):]
	n := 0.0
	for _, x := range tail {
		n += float64(x.NLeapfrog)
	}
	return n / float64(max(len(tail), 1))
}

// variances are w's posterior variances as its warmup met them: its last
// metric window's, before Stan's shrinkage towards 10⁻³·I (which swamps a
// coordinate whose variance is far below 10⁻³, as a regression's
// coefficients on predictors of size 100 are: sblrc's 9·10⁻⁷ read as
// 1.1·10⁻⁵ through the metric); the metric's diagonal where no window
// ended.
func (w *warmChain) variances() []float64 {
	if w.stats.Variances != nil {
		return w.stats.Variances
	}
	inv := w.tuned.InvMetric
	if !w.tuned.Dense {
		return inv
	}
	p := int(math.Sqrt(float64(len(inv))))
	v := make([]float64, p)
	for j := range p {
		v[j] = inv[j*p+j]
	}
	return v
}

// nutsStart is a start of finite energy and gradient: start (θ = 0 when
// nil) plus uniform(−2, 2) in each coordinate, as Stan draws its inits,
// tried nutsStartTries times; then fallback, if set.
func nutsStart(e energy.Energy, start, fallback []float64, rng *rand.Rand) ([]float64, error) {
	p := e.Dim()
	x, g := make([]float64, p), make([]float64, p)
	for range nutsStartTries {
		for j := range x {
			x[j] = -2 + 4*rng.Float64()
			if start != nil {
				x[j] += start[j]
			}
		}
		if finiteAt(e, g, x) {
			return x, nil
		}
	}
	if fallback != nil && finiteAt(e, g, fallback) {
		return append([]float64(nil), fallback...), nil
	}
	return nil, fmt.Errorf("no start of finite energy and gradient in %d draws uniform in (−2, 2) about the start", nutsStartTries)
}

// finiteAt reports whether e's energy and gradient (into g) are finite at x.
func finiteAt(e energy.Energy, g, x []float64) bool { return energy.Finite(energy.UGrad(e, g, x), g) }

// Sampler is chain id's NUTS chain at the state its warmup ended in, with
// the step size and metric it settled on.
func (np *NUTSPlan) Sampler(seed uint64, id int) (*exchange.Sampler, error) {
	w := np.warm[id]
	if w == nil {
		return nil, fmt.Errorf("NUTS plan: chain %d was not warmed up", id)
	}
	e := modes.Energy(np.t)
	k, err := nuts.NewKernel(e, w.tuned, np.cfg)
	if err != nil {
		return nil, err
	}
	c := &nutsChain{Kernel: k, maxDepth: np.cfg.MaxDepth}
	np.mu.Lock()
	np.chains[id] = c
	np.mu.Unlock()
	lv := exchange.Level{Tau: 1, Est: energy.Exact{E: e}, Eta: langevin.Constant{Step: w.tuned.StepSize}, Kernel: c}
	return exchange.New(exchange.Config{Levels: []exchange.Level{lv}, Seed: exchange.ChainSeed(seed, id)}, [][]float64{w.state})
}

// Note is the plan's line for the output.
func (np *NUTSPlan) Note() string {
	kind := "diagonal"
	if np.cfg.Dense {
		kind = "dense"
	}
	steps := make([]float64, 0, len(np.warm))
	div := 0
	for _, w := range np.warm {
		steps = append(steps, w.tuned.StepSize)
		div += w.stats.Divergences
	}
	lo, hi := math.Inf(1), 0.0
	for _, s := range steps {
		lo, hi = min(lo, s), max(hi, s)
	}
	return fmt.Sprintf("NUTS (the No-U-Turn Sampler, as Stan's: a %s metric and the step size adapted in each chain's warmup of %d transitions, to a mean acceptance of %g, then fixed); %s; step sizes %.3g–%.3g, %.1f leapfrog steps a transition at the end of warmup, %d divergent warmup transitions",
		kind, np.iters, np.cfg.Delta, np.why, lo, hi, np.leap, div)
}

// Rate is 1/nutsIAT: a transition's draw is taken as independent.
func (np *NUTSPlan) Rate() float64 { return 1 / float64(nutsIAT+1) }

// RunLength: no burn-in after the warmup, and thinning for PlanESS.
func (np *NUTSPlan) RunLength(keep int) (burn, thin int, iat float64) {
	return 0, max(1, int(math.Ceil(PlanESS*nutsIAT/float64(keep)))), nutsIAT
}

// StartDistance is 0: the chains start where their warmups ended.
func (np *NUTSPlan) StartDistance() float64 { return 0 }

func (np *NUTSPlan) Algorithm() string { return "hmc_nuts" }

// Step is the first chain's step size: the lowest id's (a map's order
// would make it any chain's, and the header it goes into differ between
// a run and its resume).
func (np *NUTSPlan) Step() float64 {
	if len(np.warm) == 0 {
		return math.NaN()
	}
	return np.warm[slices.Min(slices.Collect(maps.Keys(np.warm)))].tuned.StepSize
}

// StepSeconds is the wall seconds a transition took in the warmups, the
// mean over the chains (each ran on a core of its own, or waited for one).
func (np *NUTSPlan) StepSeconds() float64 {
	var sec float64
	var n int
	for _, w := range np.warm {
		sec += w.seconds
		n += len(w.stats.Trace)
	}
	if n == 0 {
		return 0
	}
	return sec / float64(n)
}

// SDBias is 0: NUTS is exact in law.
func (np *NUTSPlan) SDBias() float64 { return 0 }

// WarmupGrads is the gradient evaluations of every chain's warmup.
func (np *NUTSPlan) WarmupGrads() int {
	n := 0
	for _, w := range np.warm {
		n += w.stats.GradEvals
	}
	return n
}

// deltaHigh is the highest --adapt-delta a divergence warning suggests:
// past it the step is so small that a chain crawls, and the posterior's
// geometry is the thing to change.
const deltaHigh = 0.99

// deltaRaise is the next target acceptance to try after delta: 0.9, 0.95
// and 0.99, as Stan users step adapt_delta.
func deltaRaise(delta float64) float64 {
	for _, d := range []float64{0.9, 0.95} {
		if delta < d {
			return d
		}
	}
	return deltaHigh
}

// Warnings are Stan's warnings on the chains' transitions after warmup:
// any divergent transition (the trajectory met a region its step size
// cannot follow, so the draws may miss it), an E-BFMI below
// report.EBFMIMin, and more than report.TreedepthShareMax of the
// transitions cut at the largest depth.
func (np *NUTSPlan) Warnings() []results.Warning {
	np.mu.Lock()
	defer np.mu.Unlock()
	var ws []results.Warning
	div, n := 0, 0
	for _, c := range np.chains {
		div += c.divergent
		n += c.n
	}
	if div > 0 {
		remedy := "the draws may miss a region the step size cannot follow (a funnel, a boundary): reparameterise the model (non-centred), or check it against another sampler"
		if np.deltaFlag && np.cfg.Delta < deltaHigh {
			// Stan's first remedy: a higher target acceptance tunes a
			// smaller step, which follows a sharper curvature, at more
			// gradients a transition (eight schools, non-centred: 4 of
			// 8 seeds diverged at 0.8, 1 at 0.9, at 1.36 times the
			// gradients; docs/plan.md).
			remedy = fmt.Sprintf("the draws may miss a region the step size cannot follow (a funnel, a boundary): raise --adapt-delta (now %g) to %g for a smaller step; if they persist, reparameterise the model (non-centred), or check it against another sampler", np.cfg.Delta, deltaRaise(np.cfg.Delta))
		}
		// A trajectory that leaves a model's support ends at its reject
		// as a divergence, and a smaller step does not mend that (a
		// half-normal by reject below 0: half the transitions divergent
		// at --adapt-delta 0.8 and at 0.9). The rejects say so.
		if r, ok := np.t.(rejecter); ok {
			// As many rejects as divergences at least: a warmup's
			// step-size search that once stepped out is no cause.
			if k, msg := r.Rejected(); k-np.rejects0 >= int64(div) {
				remedy += fmt.Sprintf("; the model rejected %d states in NUTS's warmups and transitions (the latest: %q): where the trajectories leave its support, a smaller step does not help, sampling an unconstrained parameter (the log or logit of a bounded one) does", k-np.rejects0, msg)
			}
		}
		ws = append(ws, results.Warning{Code: "divergent", Number: float64(div), Remedy: remedy,
			Message: fmt.Sprintf("%d of %d NUTS transitions after warmup were divergent: %s", div, n, remedy)})
	}
	if np.ridges > 0 {
		remedy := "a posterior flat along a parameter that neither the data nor a proper prior bound is improper, and no run converges on it (its chains drift): give every parameter a proper prior; a ridge of equal density (parameters the data identify only together) slows every sampler: reparameterise"
		ws = append(ws, results.Warning{Code: "no-mode", Number: float64(np.ridges), Remedy: remedy,
			Message: fmt.Sprintf("no mode: every one of the %d searches for one ended where the Hessian is not positive definite (a saddle, a ridge or a flat direction): %s", np.ridges, remedy)})
	}
	for id, c := range np.chains {
		if e := c.ebfmi(); !(e >= report.EBFMIMin) && c.n >= 2 {
			remedy := "the momenta explore the energy levels slowly, so the tails may be under-sampled: reparameterise the model"
			ws = append(ws, results.Warning{Code: "e-bfmi", Chain: id, Number: e, Remedy: remedy,
				Message: fmt.Sprintf("chain %d: E-BFMI %.3f, below %g: %s", id, e, report.EBFMIMin, remedy)})
		}
		if share := float64(c.atMax) / float64(max(c.n, 1)); share > report.TreedepthShareMax {
			remedy := "the trajectories were cut short, so the chain moves less far than NUTS would: reparameterise the model, or its scales differ more than the metric adapted to"
			ws = append(ws, results.Warning{Code: "treedepth", Chain: id, Number: share, Remedy: remedy,
				Message: fmt.Sprintf("chain %d: %.1f%% of NUTS transitions reached the largest tree depth, %d: %s", id, 100*share, c.maxDepth, remedy)})
		}
	}
	slices.SortFunc(ws, func(a, b results.Warning) int { return a.Chain - b.Chain })
	return ws
}

// rejecter is a model that counts the states it rejected (a reject reply
// of a model process, a Stan model's reject()), and keeps the latest
// message: modelproc.Model and stan.Native.
type rejecter interface {
	Rejected() (int64, string)
}

// chainState is a nutsChain's state between steps: its kernel's, and its
// diagnostics' running sums.
type chainState struct {
	Kernel              []byte
	N, Divergent, AtMax int
	Prev, DSq, Mean, M2 float64
}

// SaveState saves the chain's kernel and its diagnostics' running sums
// (energy.StateSaver, which the sampler's checkpoint saves): a resumed run
// counts the divergences and E-BFMI of the transitions before its
// interrupt too, and reuses the gradient at the state it left.
func (c *nutsChain) SaveState() ([]byte, error) {
	k, err := c.Kernel.SaveState()
	if err != nil {
		return nil, err
	}
	return energy.EncodeState(chainState{Kernel: k, N: c.n, Divergent: c.divergent, AtMax: c.atMax, Prev: c.prev, DSq: c.dSq, Mean: c.mean, M2: c.m2})
}

// RestoreState restores what SaveState saved.
func (c *nutsChain) RestoreState(b []byte) error {
	var st chainState
	if err := energy.DecodeState(b, &st, "NUTS chain"); err != nil {
		return err
	}
	if err := c.Kernel.RestoreState(st.Kernel); err != nil {
		return err
	}
	c.n, c.divergent, c.atMax, c.prev, c.dSq, c.mean, c.m2 = st.N, st.Divergent, st.AtMax, st.Prev, st.DSq, st.Mean, st.M2
	return nil
}
