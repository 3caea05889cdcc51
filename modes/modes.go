package modes

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/results"
)

// Hessianer is a model that writes its Hessian ∇²U(θ) into h (models.LinReg
// does). Without it the plan takes the Hessian by central differences of
// the full gradient, 2p full passes.
type Hessianer interface {
	Hessian(h *mat.SymDense, theta []float64)
}

// Mode is a local minimum of U that the plan's search found: its energy,
// the Hessian there and its Laplace weight.
type Mode struct {
	Theta []float64
	U     float64
	H     *mat.SymDense
	// Weight is the mode's share of the Laplace approximation of the
	// posterior as a mixture over the modes, ∝ e^{−U}·det(H)^{−1/2}.
	Weight float64
	pre    *langevin.Precond
	// barrier is the barrier between this mode and the heaviest (0 for
	// the heaviest).
	barrier float64
}

// ModeSearch is what the search for modes found.
type ModeSearch struct {
	// Modes are the distinct modes, heaviest first.
	Modes []Mode
	// Starts is the number of searches; Saddles those that ended where the
	// Hessian is not positive definite (a saddle or a flat ridge), Failed
	// those that did not converge.
	Starts, Saddles, Failed int
	// Merged counts the minima set aside as one basin with a mode: within
	// basinBarrier nats of it along the segment (keep, OneBasin).
	Merged int
	// Random is the searches from random starts, at Spread[0] to
	// Spread[1] Laplace sds about the first mode; Checked says they
	// stopped after modeCheck, the posterior having shown one basin.
	Random  int
	Spread  [2]float64
	Checked bool
	// Rays were read from the first mode out to RayReach Laplace sds
	// (rayScan); rayStarts are the points past a fall in U along them,
	// each a search's start.
	Rays      int
	RayReach  float64
	rayStarts [][]float64
	// Evals are the evaluations of U or ∇U the search spent, the
	// Hessians' finite differences included.
	Evals int
}

// Mode search settings.
const (
	// modeStarts are the searches after the first: the starts are
	// θ̂ + s·R⁻ᵀz, z ~ N(0, I), with s cycling through modeSpread, from 2
	// to 16 times the Laplace spread about the first mode θ̂ found.
	modeStarts = 24
	// modeQuiet ends the search early once this many starts in a row
	// found no new mode, after a new one was found in the check.
	modeQuiet = 8
	// modeCheck are the random starts, two at each of modeSpread, after
	// which a search that found one mode alone (and nothing along the
	// rays) ends: the posterior showed one basin. One at each was too
	// few: on posteriordb's Lotka–Volterra (seed 2) the first search ended
	// in a basin 40 nats above the mode, and the 4 starts about it all
	// fell back into it, so the run sampled it alone, trusted, 12 sds off;
	// with two at each, seeds 1–4 all find the mode.
	modeCheck = 2 * len(modeSpread)
	// modePolish is the Newton decrement (a squared distance in sds) above
	// which a minimum L-BFGS reported is taken on to its basin's bottom by
	// Newton's method (keep): 10⁻⁶, the mode to 10⁻³ of its sds, a
	// hundredth of modeSame.
	modePolish = 1e-6
	// modeSame is the distance, in sds of the Laplace approximation at
	// either, within which two searches ended at the same mode.
	modeSame = 0.1
	// modeMinWeight drops modes lighter than this share of the heaviest:
	// a chain would not visit them in any run the plan makes.
	modeMinWeight = 1e-6
	// barrierPoints are the points of the segment between two modes at
	// which the barrier is read.
	barrierPoints = 64
)

var modeSpread = [...]float64{2, 4, 8, 16}

// Energy is U for the search: its own when the model has one, else
// the prior plus every term (one batch for an energy.BatchTerms).
func Energy(t energy.Terms) energy.Energy {
	if e, ok := t.(energy.Energy); ok {
		return e
	}
	return energy.NewFull(t)
}

// Hessian is ∇²U at theta: the model's own, or central differences.
func Hessian(t energy.Terms, e energy.Energy, theta []float64) *mat.SymDense {
	if h, ok := t.(Hessianer); ok {
		m := mat.NewSymDense(len(theta), nil)
		h.Hessian(m, theta)
		return m
	}
	return mala.Hessian(e, theta)
}

// minimize runs L-BFGS on e from x0 to a gradient of 1e-8·(1 + |∇U(x0)|∞)
// (gonum's optimize), and returns the point and U there. Where L-BFGS
// stops short (its line search fails in a mode far stiffer in one
// direction than in the others, as in a spike of width s0 = 0.02 beside a
// slab's posterior sd ~0.3), Newton's method with the Hessian hess, when
// given, finishes the search from where it stopped.
//
// A stop closed (the run's interrupt) ends the search within one
// evaluation of U, with ErrInterrupted.
func minimize(e energy.Energy, x0 []float64, hess func(x []float64) *mat.SymDense, stop <-chan struct{}) ([]float64, float64, error) {
	g0 := make([]float64, len(x0))
	e.Grad(g0, x0)
	tol := 1e-8 * (1 + mat.Norm(mat.NewVecDense(len(g0), g0), math.Inf(1)))
	// L-BFGS asks for U and ∇U at each point separately: one pass gives
	// both, kept for the call that follows.
	c := uGradCache{e: e, g: make([]float64, len(x0))}
	p := optimize.Problem{Func: c.u, Grad: c.grad}
	var rec optimize.Recorder
	if stop != nil {
		rec = stopRecorder(stop)
	}
	res, err := optimize.Minimize(p, x0, &optimize.Settings{GradientThreshold: tol, MajorIterations: 2000, Recorder: rec}, &optimize.LBFGS{})
	if errors.Is(err, results.ErrInterrupted) {
		return nil, 0, err
	}
	if err != nil && res == nil {
		return nil, 0, err
	}
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, 0, fmt.Errorf("the energy is %v at the search's end", res.F)
	}
	if res.Status != optimize.GradientThreshold && res.Status != optimize.FunctionConvergence {
		if hess != nil {
			if x, u, ok := newtonPolish(e, hess, res.X, tol); ok {
				return x, u, nil
			}
		}
		return res.X, res.F, fmt.Errorf("the search stopped with %v", res.Status)
	}
	return res.X, res.F, nil
}

// stopRecorder ends an L-BFGS search (gonum calls it after every
// evaluation) once stop is closed.
type stopRecorder <-chan struct{}

func (stopRecorder) Init() error { return nil }

func (s stopRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	select {
	case <-s:
		return results.ErrInterrupted
	default:
		return nil
	}
}

// newtonPolish runs Newton's method from x, each step halved until U falls,
// until |∇U|∞ ≤ tol or the Newton decrement gᵀH⁻¹g is below 1e-16 (ok:
// the mode to 10⁻⁸ of its sds, where U's fall is below its rounding), or
// 50 iterations, a Hessian that is not positive definite or a step that
// cannot lower U (not ok).
func newtonPolish(e energy.Energy, hess func(x []float64) *mat.SymDense, x []float64, tol float64) ([]float64, float64, bool) {
	p := len(x)
	x = slices.Clone(x)
	g, trial := make([]float64, p), make([]float64, p)
	d := mat.NewVecDense(p, nil)
	u := energy.UGrad(e, g, x)
	for range 50 {
		if mat.Norm(mat.NewVecDense(p, g), math.Inf(1)) <= tol {
			return x, u, true
		}
		var ch mat.Cholesky
		if !ch.Factorize(hess(x)) {
			return nil, 0, false
		}
		if err := ch.SolveVecTo(d, mat.NewVecDense(p, g)); err != nil {
			return nil, 0, false
		}
		if dec := mat.Dot(d, mat.NewVecDense(p, g)); dec < decrementFloor(u) {
			return x, u, true
		}
		t := 1.0
		for ; t > 1e-10; t /= 2 {
			for j := range trial {
				trial[j] = x[j] - t*d.AtVec(j)
			}
			if ut := e.U(trial); ut <= u {
				break
			}
		}
		if t <= 1e-10 {
			return nil, 0, false
		}
		copy(x, trial)
		u = energy.UGrad(e, g, x)
	}
	return nil, 0, false
}

// decrementFloor is the Newton decrement below which newtonPolish stops:
// 1e-16 (the mode to 10⁻⁸ of its sds), or, where U is large, the
// decrement whose fall in U, about half of it, is within U's rounding:
// 10⁴ ulps of |U|, the typical rounding (√N ulps) of a sum of up to 10⁸
// examples. Below it a step's fall in U is lost in that rounding, so
// steps are refused at random: on spike-and-slab logistic posteriors of
// 10⁴–10⁵ rows the finish spent 33 halvings, each a pass over the data,
// on step after step and then gave the mode up.
func decrementFloor(u float64) float64 {
	return max(1e-16, 1e4*0x1p-52*math.Abs(u))
}

// uGradCache answers U and ∇U at the last point from one UGrad.
type uGradCache struct {
	e  energy.Energy
	x  []float64
	v  float64
	g  []float64
	ok bool
}

func (c *uGradCache) at(x []float64) {
	if c.ok && slices.Equal(c.x, x) {
		return
	}
	c.v = energy.UGrad(c.e, c.g, x)
	c.x, c.ok = append(c.x[:0], x...), true
}

func (c *uGradCache) u(x []float64) float64 { c.at(x); return c.v }

func (c *uGradCache) grad(grad, x []float64) { c.at(x); copy(grad, c.g) }

// SearchModes finds the modes of exp(−U) for the terms t: a search from
// first, searches from past every fall in U along rays out of the first
// mode (rayScan), then up to modeStarts more from points spread from 2 to
// 16 times the Laplace approximation's spread about the first mode (or,
// where the first search ends at a saddle, about the point it reached, on
// the scale the Hessian's diagonal gives), only modeCheck of them where
// all ended in one basin. It keeps the distinct local minima, their
// Hessians and Laplace weights, heaviest first, and the barrier between
// the heaviest and the rest.
func SearchModes(t energy.Terms, first []float64, seed uint64) (*ModeSearch, error) {
	return SearchModesFrom(t, first, nil, seed)
}

// SearchModesFrom is SearchModes with searches from the model's own extra
// starts as well, after the first and before the random ones (Model.Starts:
// where a model knows its modes' basins are too narrow for random starts to
// hit, as a spike's is). They count neither as random starts nor towards
// the quiet run that ends the search.
func SearchModesFrom(t energy.Terms, first []float64, extra [][]float64, seed uint64) (*ModeSearch, error) {
	return Search(t, first, extra, seed, quiet{})
}

// Status is where a search says what it is doing and learns to stop: the
// plan's status (plan.Status), which carries the run's context. The search
// takes it as this interface so that it needs nothing of the plan.
type Status interface {
	// Set says what the search is doing now.
	Set(format string, args ...any)
	// Stopped is non-nil, wrapping results.ErrInterrupted, once the run is
	// cancelled.
	Stopped() error
	// Stop is closed when the run is cancelled (nil: never).
	Stop() <-chan struct{}
}

// quiet is the Status of a search that says nothing and is never stopped.
type quiet struct{}

func (quiet) Set(string, ...any)    {}
func (quiet) Stopped() error        { return nil }
func (quiet) Stop() <-chan struct{} { return nil }

// Search is SearchModesFrom saying on status which search it is at,
// and stopping, with ErrInterrupted, when status's context is cancelled.
//
// The search is in three parts. The first search, and the model's own
// starts. Then the check for one basin: the ray scan (rayScan) out to
// rayReach sds from the first mode, a search from every point past which
// U fell, and modeCheck searches from over-dispersed starts, one at each
// of modeSpread. Where all of that found the first mode alone, the
// posterior showed one basin and the search ends there: 1 + modeCheck
// searches, not the 1 + modeQuiet a quiet run took. Else the random
// starts go on until modeQuiet in a row find nothing new, or modeStarts.
func Search(t energy.Terms, first []float64, extra [][]float64, seed uint64, status Status) (*ModeSearch, error) {
	ce := &countingEnergy{Energy: Energy(t)}
	e := energy.Energy(ce)
	p := t.Dim()
	s := &ModeSearch{Spread: [2]float64{modeSpread[0], modeSpread[len(modeSpread)-1]}}
	defer func() { s.Evals = ce.n }()
	rng := rand.New(rand.NewPCG(seed, 1<<45))
	var centre []float64
	var spread func(z []float64)
	began := time.Now()
	n := len(extra)
	hess := func(x []float64) *mat.SymDense { return Hessian(t, e, x) }
	// search runs one search from x0, keeps what it found, and says
	// whether that was a mode not seen before (a kept one: lighter than
	// modeMinWeight of the heaviest does not count).
	search := func(x0 []float64, what string) (bool, error) {
		s.Starts++
		left := ""
		if s.Starts > 1 {
			per := time.Since(began) / time.Duration(s.Starts-1)
			left = fmt.Sprintf(", at most %s left", (per * time.Duration(max(0, 1+modeStarts+n+len(s.rayStarts)-s.Starts))).Round(time.Second))
		}
		status.Set("searching the posterior's modes: search %d (%s; %d mode(s) found so far; %d energy and gradient evaluations%s)", s.Starts, what, len(s.Modes), ce.n, left)
		if err := status.Stopped(); err != nil {
			return false, err
		}
		x, u, err := minimize(e, x0, hess, status.Stop())
		if errors.Is(err, results.ErrInterrupted) {
			return false, status.Stopped()
		}
		if x == nil {
			s.Failed++
			return false, nil
		}
		if centre == nil {
			centre = x
			spread = diagSpread(Hessian(t, e, x))
		}
		if err != nil {
			s.Failed++
			return false, nil
		}
		return s.keep(t, e, x, u, hess, &spread), nil
	}
	if _, err := search(first, "from the start"); err != nil {
		return s, err
	}
	for k, x0 := range extra {
		if _, err := search(x0, fmt.Sprintf("the model's start %d of %d", k+1, n)); err != nil {
			return s, err
		}
	}
	if len(s.Modes) > 0 {
		status.Set("searching the posterior's modes: reading U along rays out to %g sds of the first mode", rayReach)
		f := rayScan(e, s.Modes[0], rng, status.Stop())
		if err := status.Stopped(); err != nil {
			return s, err
		}
		s.Rays, s.RayReach, s.rayStarts = f.Rays, f.Reach, f.Starts
		for k, x0 := range f.Starts {
			if _, err := search(x0, fmt.Sprintf("from a fall in U along ray %d of %d", k+1, len(f.Starts))); err != nil {
				return s, err
			}
		}
	}
	quiet := 0
	for k := 0; k < modeStarts; k++ {
		if k == modeCheck && s.heavy() == 1 {
			s.Checked = true
			break // one basin, shown cheaply
		}
		if quiet >= modeQuiet {
			break
		}
		if centre == nil {
			break // the first search failed outright
		}
		x0 := make([]float64, p)
		sc := modeSpread[k%len(modeSpread)]
		for j := range x0 {
			x0[j] = sc * rng.NormFloat64()
		}
		spread(x0)
		for j, c := range centre {
			x0[j] += c
		}
		s.Random++
		found, err := search(x0, fmt.Sprintf("random start %d, at %g Laplace sds; it ends after %d in a row find nothing new, or %d", k+1, sc, modeQuiet, modeStarts))
		if err != nil {
			return s, err
		}
		if found {
			quiet = 0
		} else {
			quiet++
		}
	}
	if len(s.Modes) == 0 {
		return s, fmt.Errorf("no mode found: of %d searches, %d ended at a saddle or ridge (the Hessian there is not positive definite) and %d did not converge", s.Starts, s.Saddles, s.Failed)
	}
	s.weigh()
	s.barriers(e)
	return s, nil
}

// keep files the minimum x (U = u) a search ended at, and says whether it
// is a mode not seen before: not within modeSame sds of a known mode,
// after Newton's method has taken it to the bottom of its basin (L-BFGS
// stops on a gradient threshold, which in a direction of sd 10⁴ beside one
// of 10⁻⁴ leaves it many sds from the mode: a Gaussian once gave "7
// modes"), not across less than basinBarrier nats from one, and not so
// light that weigh would drop it. A minimum in a known mode's basin that
// is heavier replaces it. spread becomes the first mode's.
func (s *ModeSearch) keep(t energy.Terms, e energy.Energy, x []float64, u float64, hess func([]float64) *mat.SymDense, spread *func(z []float64)) bool {
	if s.find(x) >= 0 {
		return false
	}
	h := Hessian(t, e, x)
	if newtonDecrement(e, h, x) > modePolish {
		if px, pu, ok := newtonPolish(e, hess, x, 0); ok {
			x, u, h = px, pu, Hessian(t, e, px)
			if s.find(x) >= 0 {
				return false
			}
		}
	}
	pre, err := langevin.NewPrecond(h)
	if err != nil {
		s.Saddles++
		return false
	}
	m := Mode{Theta: x, U: u, H: h, pre: pre}
	lw := m.logWeight()
	for i := range s.Modes {
		if segmentBarrier(e, s.Modes[i].Theta, x, s.Modes[i].U, u) < basinBarrier {
			s.Merged++
			if lw > s.Modes[i].logWeight() {
				s.Modes[i] = m
			}
			return false
		}
	}
	if len(s.Modes) == 0 {
		*spread = func(z []float64) { pre.Color(z) }
	}
	s.Modes = append(s.Modes, m)
	top := math.Inf(-1)
	for _, o := range s.Modes {
		top = max(top, o.logWeight())
	}
	return lw >= top+math.Log(modeMinWeight)
}

// newtonDecrement is gᵀH⁻¹g at x, the squared distance, in the Laplace
// fit's sds, from x to the minimum Newton's method points at: +Inf where H
// is not positive definite.
func newtonDecrement(e energy.Energy, h *mat.SymDense, x []float64) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return math.Inf(1)
	}
	g := make([]float64, len(x))
	e.Grad(g, x)
	var d mat.VecDense
	if err := ch.SolveVecTo(&d, mat.NewVecDense(len(g), g)); err != nil {
		return math.Inf(1)
	}
	return mat.Dot(&d, mat.NewVecDense(len(g), g))
}

// heavy counts the modes found so far that weigh at least modeMinWeight of
// the heaviest, those weigh keeps.
func (s *ModeSearch) heavy() int {
	top := math.Inf(-1)
	for _, m := range s.Modes {
		top = max(top, m.logWeight())
	}
	n := 0
	for _, m := range s.Modes {
		if m.logWeight() >= top+math.Log(modeMinWeight) {
			n++
		}
	}
	return n
}

// logWeight is log of the mode's Laplace mass, −U − ½ log det H.
func (m Mode) logWeight() float64 {
	var ch mat.Cholesky
	if !ch.Factorize(m.H) {
		return math.Inf(-1)
	}
	return -m.U - 0.5*ch.LogDet()
}

// segmentBarrier is max U along the segment from a to b, read at
// barrierPoints points, less max(ua, ub), in nats and at least 0.
func segmentBarrier(e energy.Energy, a, b []float64, ua, ub float64) float64 {
	x := make([]float64, len(a))
	top := math.Inf(-1)
	for k := 1; k < barrierPoints; k++ {
		f := float64(k) / barrierPoints
		for j := range x {
			x[j] = (1-f)*a[j] + f*b[j]
		}
		top = max(top, e.U(x))
	}
	if math.IsNaN(top) {
		return math.Inf(1)
	}
	return max(0, top-max(ua, ub))
}

// countingEnergy counts the evaluations of U and of ∇U the search spends
// (an evaluation of both counts once).
type countingEnergy struct {
	energy.Energy
	n int
}

func (c *countingEnergy) U(x []float64) float64 { c.n++; return c.Energy.U(x) }

func (c *countingEnergy) Grad(g, x []float64) { c.n++; c.Energy.Grad(g, x) }

func (c *countingEnergy) UGrad(g, x []float64) float64 { c.n++; return energy.UGrad(c.Energy, g, x) }

// diagSpread scales z by 1/√|H_jj| (1 where H_jj is 0): the spread about a
// point where H is not positive definite.
func diagSpread(h *mat.SymDense) func(z []float64) {
	return func(z []float64) {
		for j := range z {
			if d := math.Abs(h.At(j, j)); d > 0 {
				z[j] /= math.Sqrt(d)
			}
		}
	}
}

// find is the index of the mode x lies within modeSame sds of, or −1.
func (s *ModeSearch) find(x []float64) int {
	d := mat.NewVecDense(len(x), nil)
	for i, m := range s.Modes {
		for j := range x {
			d.SetVec(j, x[j]-m.Theta[j])
		}
		// The distance in the mode's sds: √(dᵀHd).
		if mat.Inner(d, m.H, d) < modeSame*modeSame {
			return i
		}
	}
	return -1
}

// weigh sets the Laplace weights, drops the modes below modeMinWeight of
// the heaviest, and sorts the rest heaviest first.
func (s *ModeSearch) weigh() {
	lw := make([]float64, len(s.Modes))
	top := math.Inf(-1)
	for i, m := range s.Modes {
		var ch mat.Cholesky
		ch.Factorize(m.H) // positive definite: SearchModes kept it
		lw[i] = -m.U - 0.5*ch.LogDet()
		top = max(top, lw[i])
	}
	var sum float64
	for i := range s.Modes {
		s.Modes[i].Weight = math.Exp(lw[i] - top)
		sum += s.Modes[i].Weight
	}
	s.Modes = slices.DeleteFunc(s.Modes, func(m Mode) bool { return m.Weight < modeMinWeight })
	for i := range s.Modes {
		s.Modes[i].Weight /= sum
	}
	slices.SortStableFunc(s.Modes, func(a, b Mode) int { return cmp.Compare(b.Weight, a.Weight) })
}

// barriers sets each mode's barrier to the heaviest: the energy barrier
// along the straight segment between them, max U(segment) − max(U_a, U_b)
// in nats, read at barrierPoints points. It is an upper bound on the
// barrier of the lowest path, so a ladder is sometimes planned where a
// single chain would have crossed, never the reverse.
func (s *ModeSearch) barriers(e energy.Energy) {
	a := s.Modes[0]
	x := make([]float64, len(a.Theta))
	for i := 1; i < len(s.Modes); i++ {
		m := &s.Modes[i]
		top := math.Inf(-1)
		for k := 1; k < barrierPoints; k++ {
			f := float64(k) / barrierPoints
			for j := range x {
				x[j] = (1-f)*a.Theta[j] + f*m.Theta[j]
			}
			top = max(top, e.U(x))
		}
		m.barrier = max(0, top-max(a.U, m.U))
	}
}

// basinBarrier is the barrier, in nats along the segment from the
// heaviest mode, below which another minimum is the heaviest's basin and
// not a mode of its own: the density along the segment never falls below
// e^−0.5 = 0.61 of its lower end, which a chain crosses as if it were not
// there. Minima that close are what a search finds along a flat ridge or
// down a funnel's neck, where the posterior has no mode to speak of.
const basinBarrier = 0.5

// OneBasin keeps the heaviest mode alone when every other lies within
// basinBarrier nats of it, and reports whether it did.
func (s *ModeSearch) OneBasin() bool {
	if len(s.Modes) < 2 || !(s.BarrierAbove(0) < basinBarrier) {
		return false
	}
	s.Merged += len(s.Modes) - 1
	s.Modes = s.Modes[:1]
	s.Modes[0].Weight = 1
	return true
}

// Line says what the search found, for the output.
func (s *ModeSearch) Line() string {
	if len(s.Modes) == 1 && s.Merged > 0 {
		minima := "1 other minimum, with no barrier to it (< %g nats along the segment), lies"
		if s.Merged > 1 {
			minima = fmt.Sprint(s.Merged) + " other minima, with no barrier to it (< %g nats along the segments), lie"
		}
		return fmt.Sprintf("%d searches found one mode (U = %.6g; "+minima+" in its basin)", s.Starts, s.Modes[0].U, basinBarrier)
	}
	if len(s.Modes) == 1 {
		return fmt.Sprintf("%d searches found one mode (U = %.6g)", s.Starts, s.Modes[0].U)
	}
	l := fmt.Sprintf("%d searches found %d modes, barrier ≤ %.3g nats along the segments from the heaviest to those of weight ≥ %g; weights (Laplace) and energies:", s.Starts, len(s.Modes), s.BarrierAbove(ModeWeight), ModeWeight)
	for i, m := range s.Modes[:min(len(s.Modes), 5)] {
		if i > 0 {
			l += ","
		}
		l += fmt.Sprintf(" %.3g at U = %.6g", m.Weight, m.U)
	}
	if len(s.Modes) > 5 {
		l += fmt.Sprintf(", and %d more", len(s.Modes)-5)
	}
	return l
}
