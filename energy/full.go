package energy

// Full is the exact energy of Terms, U = U_0 + Σ_i U_i, with its gradient:
// one Batch call per evaluation for a BatchTerms (one round trip for a
// model in another process), else one Term call per example. It is not
// safe for concurrent use; Sum is.
type Full struct {
	t  Terms
	b  BatchTerms // nil if t is not one
	g  []float64
	mo Moments
}

var _ EnergyGrad = (*Full)(nil)

// NewFull returns the exact energy of t.
func NewFull(t Terms) *Full {
	p := t.Dim()
	f := &Full{t: t, g: make([]float64, p)}
	if b, ok := t.(BatchTerms); ok {
		f.b = b
		f.mo = Moments{G: f.g, GSum: make([]float64, p)}
	}
	return f
}

func (f *Full) Dim() int { return f.t.Dim() }

// U is Sum(t, θ).
func (f *Full) U(theta []float64) float64 { return Sum(f.t, theta) }

func (f *Full) Grad(grad, theta []float64) { f.UGrad(grad, theta) }

// UGrad writes ∇U(θ) into grad and returns U(θ), one pass over the data.
func (f *Full) UGrad(grad, theta []float64) float64 {
	if f.b != nil {
		// The batch first: a model in another process carries the prior
		// in its reply, and then answers Prior without another request.
		f.b.Batch(&f.mo, theta, nil, nil)
		u := f.t.Prior(grad, theta)
		n := float64(f.t.Len())
		for j, s := range f.mo.GSum {
			grad[j] += s + n*f.mo.G[j]
		}
		return u + f.mo.Total(f.t.Len())
	}
	u := f.t.Prior(grad, theta)
	for i := range f.t.Len() {
		u += f.t.Term(f.g, theta, i)
		for j, v := range f.g {
			grad[j] += v
		}
	}
	return u
}
