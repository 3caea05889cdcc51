package energy

// BatchTerms is implemented by Terms that answer a whole batch of examples
// in one call: a model in another process, which then pays one round trip
// per batch rather than one per example, or a model whose arithmetic is
// faster over many examples at once. Minibatch, CVGrad, Sum, and EnergyOn and
// DiffOn without anchors use Batch when t is a BatchTerms; what needs
// per-example values (Minibatch rows, Anchor's cached energies) still calls
// Term.
type BatchTerms interface {
	Terms
	// Batch writes into m the Moments over the examples idx (nil: every
	// example, 0 … N−1 in order) of v_i = U_i(x), or, when y is non-nil, of
	// the differences v_i = U_i(x) − U_i(y); and of their gradients when
	// m.G is non-nil (the squares GSq only when m.GSq is non-nil). It must
	// not keep x, y or idx.
	Batch(m *Moments, x, y []float64, idx []int32)
}

// Moments are what a minibatch estimate and its variance estimate need from
// the values v_0 … v_{n−1} of a batch, taken about the first one (which
// spares the sums of squares the cancellation raw sums suffer far from the
// mode):
//
//	U = v_0,   USum = Σ_{k≥1} (v_k − v_0),   USq = Σ_{k≥1} (v_k − v_0)²,
//
// and G, GSum, GSq the same coordinate by coordinate for the gradients. The
// batch's total is USum + n·U and its sample variance
// (USq − USum²/n)/(n − 1).
type Moments struct {
	U, USum, USq float64
	// G, GSum and GSq have length p; G nil asks for no gradients, GSq nil
	// for no squares of them.
	G, GSum, GSq []float64
}

// PerTerm answers batches by one Term call per example (two for a
// difference), summing in the order of idx: the reference a BatchTerms is
// tested against, and what one may delegate to. Its sums are those the
// estimators make from Term alone, bit for bit.
type PerTerm struct {
	Terms
	g, gy []float64
}

// NewPerTerm returns t answering batches term by term.
func NewPerTerm(t Terms) *PerTerm {
	return &PerTerm{Terms: t, g: make([]float64, t.Dim()), gy: make([]float64, t.Dim())}
}

var _ BatchTerms = (*PerTerm)(nil)

// value is v_i and, into g when non-nil, its gradient.
func (b *PerTerm) value(g, x, y []float64, i int) float64 {
	u := b.Term(g, x, i)
	if y == nil {
		return u
	}
	var gy []float64
	if g != nil {
		gy = b.gy
	}
	u -= b.Term(gy, y, i)
	for j, v := range gy {
		g[j] -= v
	}
	return u
}

func (b *PerTerm) Batch(m *Moments, x, y []float64, idx []int32) {
	n := len(idx)
	at := func(k int) int { return int(idx[k]) }
	if idx == nil {
		n = b.Len()
		at = func(k int) int { return k }
	}
	var g []float64
	if m.G != nil {
		g = b.g
		clear(m.GSum)
		clear(m.GSq)
	}
	m.U = b.value(m.G, x, y, at(0))
	m.USum, m.USq = 0, 0
	for k := 1; k < n; k++ {
		d := b.value(g, x, y, at(k)) - m.U
		m.USum += d
		m.USq += d * d
		if m.GSq != nil {
			for j, v := range g {
				e := v - m.G[j]
				m.GSum[j] += e
				m.GSq[j] += e * e
			}
		} else {
			for j, v := range g {
				m.GSum[j] += v - m.G[j]
			}
		}
	}
}

// Total is the sum over the batch of n values, USum + n·U.
func (m *Moments) Total(n int) float64 { return m.USum + float64(n)*m.U }
