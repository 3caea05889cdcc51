package energy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// batchOnly answers batches from its inner BatchTerms but poisons every
// per-example call (NaN energy and gradient) and counts the calls: a
// result that stays finite and equal to the per-example one shows that the
// batch path was taken, and taken alone.
type batchOnly struct {
	in           BatchTerms
	batches, ids int
}

func (b *batchOnly) Dim() int { return b.in.Dim() }
func (b *batchOnly) Len() int { return b.in.Len() }
func (b *batchOnly) Prior(g, th []float64) float64 {
	return b.in.Prior(g, th)
}

func (b *batchOnly) Term(grad, _ []float64, _ int) float64 {
	for j := range grad {
		grad[j] = math.NaN()
	}
	return math.NaN()
}

func (b *batchOnly) Batch(m *Moments, x, y []float64, idx []int32) {
	b.batches++
	b.ids += len(idx)
	b.in.Batch(m, x, y, idx)
}

// misSummed is a batch that loses one example of each batch: the kind of
// mistake compareBatch must catch.
type misSummed struct{ *PerTerm }

func (m misSummed) Batch(mo *Moments, x, y []float64, idx []int32) {
	if len(idx) > 2 {
		idx = idx[:len(idx)-1]
	}
	m.PerTerm.Batch(mo, x, y, idx)
}

// compareBatch draws from every estimator and function that takes the batch
// path on ref (per-example) and got (a BatchTerms over the same data) with
// the same random streams, and returns the first disagreement beyond tol
// relative to the value's size (0: bit for bit). NewCVGrad's full pass sums
// in another order on the batch path, so its draws are compared to rounding
// whatever tol.
func compareBatch(ref, got Terms, tol float64) error {
	p, N := ref.Dim(), ref.Len()
	theta := make([]float64, p)
	anchor := make([]float64, p)
	for j := range theta {
		theta[j] = 0.3*float64(j) - 0.5
		anchor[j] = 0.25*float64(j) - 0.4
	}
	near := func(what string, a, b, tol float64) error {
		if a == b || math.Abs(a-b) <= tol*(1+math.Abs(a)) {
			return nil
		}
		return fmt.Errorf("%s: per-example %v, batch %v", what, a, b)
	}
	// Rounding of a sum of N terms about N·U: N ulps of its size.
	round := float64(N) * 0x1p-52
	for _, n := range []int{2, 7, N} {
		var mr, mg [2]Estimator
		r, err := NewMinibatch(ref, n)
		if err != nil {
			return err
		}
		g, _ := NewMinibatch(got, n)
		mr[0], mg[0] = r, g
		cr, err := NewCVGrad(ref, anchor, n)
		if err != nil {
			return err
		}
		cg, _ := NewCVGrad(got, anchor, n)
		mr[1], mg[1] = cr, cg
		for e, name := range []string{"minibatch", "cv"} {
			tl := tol
			if e == 1 {
				tl = max(tol, round)
			}
			rr, rg := rand.New(rand.NewPCG(uint64(n), 1)), rand.New(rand.NewPCG(uint64(n), 1))
			ga, va, gb, vb := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
			for rep := range 3 {
				mr[e].Grad(ga, va, theta, rr)
				mg[e].Grad(gb, vb, theta, rg)
				for j := range ga {
					if err := near(fmt.Sprintf("%s n=%d draw %d: ∂_%dÛ", name, n, rep, j), ga[j], gb[j], tl); err != nil {
						return err
					}
					if err := near(fmt.Sprintf("%s n=%d draw %d: Var ∂_%dÛ", name, n, rep, j), va[j], vb[j], tl); err != nil {
						return err
					}
				}
				ua, sa := mr[e].Energy(theta, rr)
				ub, sb := mg[e].Energy(theta, rg)
				if err := near(fmt.Sprintf("%s n=%d draw %d: Û", name, n, rep), ua, ub, tl); err != nil {
					return err
				}
				if err := near(fmt.Sprintf("%s n=%d draw %d: Var Û", name, n, rep), sa, sb, tl); err != nil {
					return err
				}
			}
		}
		idx := NewIndices(N).Draw(rand.New(rand.NewPCG(uint64(n), 2)), n)
		ua, sa := EnergyOn(ref, nil, theta, idx)
		ub, sb := EnergyOn(got, nil, theta, idx)
		if err := near(fmt.Sprintf("EnergyOn n=%d", n), ua, ub, tol); err != nil {
			return err
		}
		if err := near(fmt.Sprintf("EnergyOn n=%d: s²", n), sa, sb, tol); err != nil {
			return err
		}
		da, sa := DiffOn(ref, nil, theta, nil, anchor, idx)
		db, sb := DiffOn(got, nil, theta, nil, anchor, idx)
		if err := near(fmt.Sprintf("DiffOn n=%d", n), da, db, tol); err != nil {
			return err
		}
		if err := near(fmt.Sprintf("DiffOn n=%d: s²", n), sa, sb, tol); err != nil {
			return err
		}
	}
	return near("Sum", Sum(ref, theta), Sum(got, theta), max(tol, round))
}

// The batch path gives the per-example path's draws bit for bit (PerTerm
// sums in the same order), and is the only path taken: the per-example
// calls of batchOnly are NaN.
func TestBatchMatchesPerExample(t *testing.T) {
	ts := newShiftTerms(23, 3, 5)
	if err := compareBatch(ts, NewPerTerm(ts), 0); err != nil {
		t.Error(err)
	}
	b := &batchOnly{in: NewPerTerm(ts)}
	if err := compareBatch(ts, b, 0); err != nil {
		t.Error(err)
	}
	if b.batches == 0 {
		t.Error("no Batch call")
	}
}

// compareBatch can fail: a batch that drops an example, and the plain
// per-example terms themselves (which cannot stand in for batchOnly, whose
// Term is NaN), are caught.
func TestBatchCompareCatchesMistakes(t *testing.T) {
	ts := newShiftTerms(23, 3, 5)
	if err := compareBatch(ts, misSummed{NewPerTerm(ts)}, 1e-9); err == nil {
		t.Error("a batch missing one example passed")
	}
	if err := compareBatch(ts, &batchOnly{in: misSummed{NewPerTerm(ts)}}, 1e-9); err == nil {
		t.Error("a batch-only model missing one example passed")
	}
}

// One Batch call per draw, of the draw's size: the estimators make no
// per-example call besides and ask for each example once.
func TestBatchCalls(t *testing.T) {
	const N, n, p = 50, 6, 2
	b := &batchOnly{in: NewPerTerm(newShiftTerms(N, p, 1))}
	mb, err := NewMinibatch(b, n)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	th, g := []float64{0.1, 0.2}, make([]float64, p)
	mb.Grad(g, g, th, rng)
	mb.Energy(th, rng)
	if b.batches != 2 || b.ids != 2*n {
		t.Errorf("minibatch: %d Batch calls of %d examples in all, want 2 of %d", b.batches, b.ids, 2*n)
	}
	b.batches, b.ids = 0, 0
	Sum(b, th)
	if b.batches != 1 || b.ids != 0 {
		t.Errorf("Sum: %d Batch calls with %d listed examples, want 1 with none listed (all)", b.batches, b.ids)
	}
}

// The batch path allocates nothing per draw.
func TestBatchAllocs(t *testing.T) {
	const N, n, p = 50, 6, 2
	b := NewPerTerm(newShiftTerms(N, p, 1))
	mb, _ := NewMinibatch(b, n)
	cv, _ := NewCVGrad(b, []float64{0, 0}, n)
	rng := rand.New(rand.NewPCG(1, 1))
	th, g, v := []float64{0.1, 0.2}, make([]float64, p), make([]float64, p)
	idx := NewIndices(N).Draw(rng, n)
	allocs := testing.AllocsPerRun(100, func() {
		mb.Grad(g, v, th, rng)
		mb.Energy(th, rng)
		cv.Grad(g, v, th, rng)
		cv.Energy(th, rng)
		EnergyOn(b, nil, th, idx)
		DiffOn(b, nil, th, nil, g, idx)
		Sum(b, th)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per round of draws, want 0", allocs)
	}
}

// Full gives the sum of the prior and every term, by batch or by term,
// and its batch path is the only one a batch-only model can take.
func TestFull(t *testing.T) {
	const N, p = 31, 3
	ts := newShiftTerms(N, p, 2)
	th := []float64{0.2, -0.4, 1.1}
	u, g, _, _ := exact(ts, th, N)
	for name, terms := range map[string]Terms{"per-example": ts, "batch": &batchOnly{in: NewPerTerm(ts)}} {
		f := NewFull(terms)
		grad := make([]float64, p)
		uf := f.UGrad(grad, th)
		// Only the order of summation differs from exact's: N ulps.
		tol := float64(N) * 0x1p-52
		if !(math.Abs(uf-u) <= tol*(1+math.Abs(u))) || !(math.Abs(f.U(th)-u) <= tol*(1+math.Abs(u))) {
			t.Errorf("%s: U = %v and %v, want %v", name, uf, f.U(th), u)
		}
		for j := range g {
			if !(math.Abs(grad[j]-g[j]) <= tol*(1+math.Abs(g[j]))) {
				t.Errorf("%s: ∂_%dU = %v, want %v", name, j, grad[j], g[j])
			}
		}
	}
}
