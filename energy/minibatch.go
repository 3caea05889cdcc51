package energy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/internal/pad"
)

// Minibatch estimates U = U_0 + Σ_{i<N} U_i and its gradient from n of the N
// examples drawn without replacement:
//
//	Û = U_0 + (N/n) Σ_{i∈I} U_i,   ∇Û = ∇U_0 + (N/n) Σ_{i∈I} ∇U_i.
//
// It reports their variances at no extra evaluation: the sample variance s²
// of the n per-example terms in the same minibatch, with the finite-population
// correction of sampling without replacement,
//
//	Var̂ = N²(1 − n/N)/n · s² = N(N − n)/n · s²,
//
// is unbiased for the variance of the estimate (E s² = S², the population
// variance with divisor N − 1) and is exactly zero at n = N.
//
// Cost is counted in per-example evaluations: GradCost and EnergyCost return
// n. The prior term is not counted: it is one O(p) evaluation per draw that
// does not grow with the data, like the Langevin update itself.
//
// A draw takes O(n) expected work and no allocation, never O(N): rejection
// through a small hash set for n ≤ N/4, a partial Fisher–Yates shuffle
// above (see sampler). Changing n allocates only when n grows past every
// size so far.
//
// A Minibatch is not safe for concurrent use: give each chain its own
// (Clone; exchange's presets clone an estimator they put on a second level).
type Minibatch struct {
	t     Terms
	touch Toucher     // nil if t is not one
	lin   LinearTerms // nil if t is not one
	batch BatchTerms  // nil if t is not one
	mo    Moments     // a batch's moments; the gradients' alias g's buffers
	slope []float64   // the slopes d_i of a LinearTerms draw
	track bool        // accumulate spread on every gradient draw (TrackSpread)
	sink  float64     // keeps Touch's loads alive
	n     int
	ne    int // energy draws' size; 0: n
	s     sampler

	gradN, energyN int // the n of the last Grad and Energy draws

	g, shift, sum, sq []float64 // per-example gradient and shifted moments

	keep bool      // keep the per-example gradients of each draw in rows
	rows []float64 // n×p, row-major, when keep
	rowN int       // the n of the draw in rows

	// spread accumulates the per-example sample variances s_j² of the
	// gradient draws, for the automatic size rule.
	spread []float64
	draws  int
}

var (
	_ Estimator = (*Minibatch)(nil)
	_ Coster    = (*Minibatch)(nil)
)

// NewMinibatch returns an estimator drawing n of t's N examples. n must lie
// in [2, N], or equal N: a variance estimate needs two examples.
func NewMinibatch(t Terms, n int) (*Minibatch, error) {
	N, p := t.Len(), t.Dim()
	if N < 1 {
		return nil, fmt.Errorf("minibatch: the data set has %d examples", N)
	}
	if N > math.MaxInt32 {
		return nil, fmt.Errorf("minibatch: the data set has %d examples, more than %d", N, math.MaxInt32)
	}
	if p < 1 {
		return nil, fmt.Errorf("minibatch: dimension %d", p)
	}
	// A chain's estimator, written at every draw, on cache lines of its
	// own (pad): chains on different cores then do not slow each other.
	m := pad.New[Minibatch]()
	*m = Minibatch{
		t: t, s: sampler{N: N},
		g: pad.Slice[float64](p), shift: pad.Slice[float64](p), sum: pad.Slice[float64](p), sq: pad.Slice[float64](p),
		spread: pad.Slice[float64](p),
	}
	m.touch, _ = t.(Toucher)
	m.lin, _ = t.(LinearTerms)
	m.batch, _ = t.(BatchTerms)
	if err := m.SetSize(n); err != nil {
		return nil, err
	}
	return m, nil
}

// Clone returns a Minibatch on the same data with the same sizes and
// buffers of its own, for another chain.
func (m *Minibatch) Clone() Estimator {
	c, _ := NewMinibatch(m.t, m.n) // m's settings are already valid
	c.SetEnergySize(m.ne)          // reserves the draws of that size
	if m.keep {
		c.KeepRows()
	}
	c.track = m.track
	return c
}

var _ Cloner = (*Minibatch)(nil)

// SetSize changes the minibatch size n for later draws.
func (m *Minibatch) SetSize(n int) error {
	if err := m.checkSize("minibatch size", n); err != nil {
		return err
	}
	m.n = n
	m.s.size(n)
	if m.lin != nil && len(m.slope) < n {
		m.slope = pad.Slice[float64](n)
	}
	if m.keep && len(m.rows) < n*len(m.g) {
		m.rows = make([]float64, n*len(m.g))
	}
	return nil
}

func (m *Minibatch) checkSize(what string, n int) error {
	N := m.s.N
	if n < 1 || n > N || (n == 1 && N > 1) {
		return fmt.Errorf("%s n = %d: must lie in [2, N = %d] (or equal N)", what, n, N)
	}
	return nil
}

// SetEnergySize gives energy draws their own size, independent of later
// SetSize calls; 0 makes them follow n again. Swap ratios pay for energy
// noise with the factor exp(−τδ²σ²/2), and σ² = N(N − n)/n·S² grows as N²/n:
// a minibatch small enough for a cheap gradient gives energies too noisy to
// swap on at any useful temperature gap, and n = N gives exact energies at a
// cost of N per swap attempt, which a swap intensity a·η ≪ 1 makes rare.
func (m *Minibatch) SetEnergySize(n int) error {
	if n != 0 {
		if err := m.checkSize("energy minibatch size", n); err != nil {
			return err
		}
		m.s.reserve(n)
	}
	m.ne = n
	return nil
}

// EnergySize is the size of energy draws.
func (m *Minibatch) EnergySize() int {
	if m.ne == 0 {
		return m.n
	}
	return m.ne
}

// ExactEnergy is true when energy draws take every example (size N).
func (m *Minibatch) ExactEnergy() bool { return m.EnergySize() == m.s.N }

// KeepRows makes every later gradient draw keep its n per-example gradients
// for Rows, at the memory cost of an n×p matrix (reallocated only when n
// grows beyond every size so far).
func (m *Minibatch) KeepRows() {
	m.keep = true
	if len(m.rows) < m.n*len(m.g) {
		m.rows = make([]float64, m.n*len(m.g))
	}
}

// Rows returns the per-example gradients ∇U_i of the last gradient draw as
// an n×p row-major matrix (the estimator's own storage, valid until the next
// draw) and n. It returns nil unless KeepRows was called before that draw.
func (m *Minibatch) Rows() ([]float64, int) {
	if !m.keep {
		return nil, 0
	}
	return m.rows[:m.rowN*len(m.g)], m.rowN
}

// Size is the minibatch size n.
func (m *Minibatch) Size() int { return m.n }

// Len is the number of examples N.
func (m *Minibatch) Len() int { return m.s.N }

func (m *Minibatch) Dim() int { return len(m.g) }

func (*Minibatch) KnowsVariance() bool { return true }

// GradCost is the n of the last Grad draw: its per-example gradients.
func (m *Minibatch) GradCost() float64 { return float64(m.gradN) }

// EnergyCost is the n of the last Energy draw: its per-example energies.
func (m *Minibatch) EnergyCost() float64 { return float64(m.energyN) }

// FPC is the factor N(N − n)/n that turns the per-example sample variance s²
// into the variance of a size-n minibatch estimate.
func FPC(N, n int) float64 { return float64(N) * float64(N-n) / float64(n) }

// draw returns a fresh uniformly random sample of n distinct examples.
func (m *Minibatch) draw(rng *rand.Rand) []int32 {
	idx := m.s.draw(rng)
	if m.touch != nil {
		m.sink += m.touch.Touch(idx)
	}
	return idx
}

// Grad draws ∇Û(θ); with gradVar non-nil it also writes the variance
// estimate N(N − n)/n · s_j² per coordinate. The sums of squares behind it
// are taken only when gradVar is non-nil or TrackSpread was called.
func (m *Minibatch) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	idx := m.draw(rng)
	n := len(idx)
	m.gradN = n
	sum, shift := m.sum, m.shift
	var sq []float64
	if gradVar != nil || m.track {
		sq = m.sq
	}
	switch {
	case m.batch != nil && !m.keep:
		m.mo.G, m.mo.GSum, m.mo.GSq = shift, sum, sq
		m.batch.Batch(&m.mo, theta, nil, idx)
	case m.lin != nil && !m.keep:
		d := m.slope[:n]
		m.lin.Slopes(d, theta, idx)
		linearGrad(m.lin, sum, sq, shift, d, idx)
	default:
		m.termGrad(sum, sq, theta, idx)
	}
	if n > 1 && sq != nil {
		f := FPC(m.s.N, n)
		inv, df := 1/float64(n), 1/float64(n-1)
		for j, s := range sum {
			s2 := math.Max(0, (sq[j]-s*s*inv)*df)
			m.spread[j] += s2
			if gradVar != nil {
				gradVar[j] = f * s2
			}
		}
		m.draws++
	} else {
		for j := range gradVar {
			gradVar[j] = 0
		}
	}
	m.t.Prior(grad, theta)
	scale := float64(m.s.N) / float64(n)
	fn := float64(n)
	for j, s := range sum {
		grad[j] += scale * (s + fn*shift[j])
	}
}

// termGrad is linearGrad for any Terms, one Term call per example; it also
// fills rows when KeepRows asked for them.
func (m *Minibatch) termGrad(sum, sq, theta []float64, idx []int32) {
	shift := m.shift
	n := len(idx)
	// Moments about the first example's gradient: cheap and free of the
	// cancellation that raw sums of squares suffer far from the mode.
	m.t.Term(shift, theta, int(idx[0]))
	p := len(shift)
	if m.keep {
		copy(m.rows, shift)
		m.rowN = n
	}
	g := m.g
	clear(sum)
	clear(sq)
	for k, i := range idx[1:] {
		m.t.Term(g, theta, int(i))
		if sq != nil {
			for j, x := range g {
				d := x - shift[j]
				sum[j] += d
				sq[j] += d * d
			}
		} else {
			for j, x := range g {
				sum[j] += x - shift[j]
			}
		}
		if m.keep {
			copy(m.rows[(k+1)*p:(k+2)*p], g)
		}
	}
}

// Energy draws Û(θ) and its variance estimate N(N − n)/n · s².
func (m *Minibatch) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	idx := m.s.drawN(rng, m.EnergySize())
	if m.touch != nil {
		m.sink += m.touch.Touch(idx)
	}
	n := len(idx)
	m.energyN = n
	var c, sum, sq float64
	if m.batch != nil {
		m.mo.G, m.mo.GSum, m.mo.GSq = nil, nil, nil
		m.batch.Batch(&m.mo, theta, nil, idx)
		c, sum, sq = m.mo.U, m.mo.USum, m.mo.USq
	} else {
		c = m.t.Term(nil, theta, int(idx[0]))
		for _, i := range idx[1:] {
			d := m.t.Term(nil, theta, int(i)) - c
			sum += d
			sq += d * d
		}
	}
	u := m.t.Prior(nil, theta) + float64(m.s.N)/float64(n)*(sum+float64(n)*c)
	if n == 1 {
		return u, 0
	}
	s2 := math.Max(0, (sq-sum*sum/float64(n))/float64(n-1))
	return u, FPC(m.s.N, n) * s2
}

// TrackSpread makes every later gradient draw count towards Spread, whether
// or not it reports variances; otherwise only draws with a gradVar count.
func (m *Minibatch) TrackSpread() { m.track = true }

// Spread writes into dst the average, over the gradient draws of at least
// two examples since the last ResetSpread (those that count: see
// TrackSpread), of the per-example sample variances s_j², and returns the
// number of those draws (dst untouched when zero). Each s_j² is unbiased for the population variance S_j² of ∂_jU_i
// (divisor N − 1) whatever the n of its draw.
func (m *Minibatch) Spread(dst []float64) int {
	if m.draws == 0 {
		return 0
	}
	inv := 1 / float64(m.draws)
	for j, s := range m.spread {
		dst[j] = s * inv
	}
	return m.draws
}

// ResetSpread forgets the draws Spread averages over.
func (m *Minibatch) ResetSpread() {
	for j := range m.spread {
		m.spread[j] = 0
	}
	m.draws = 0
}

// Toucher is implemented by Terms whose per-example data a minibatch reads
// at random from memory too large for the caches. Touch loads the data of the
// given examples (its return value only keeps the loads from being
// optimised away): its loads are independent of one another, so the
// processor overlaps their cache misses, instead of waiting for each one
// inside the dependent arithmetic of Term.
type Toucher interface {
	Touch(idx []int32) float64
}
