package models

// SumDiff is Σ_i [U_i(a) − U_i(b)], the data part of U(a) − U(b), from the
// sufficient statistics G = XᵀX/σ² and c = Xᵀy/σ² (one pass, made once):
//
//	Σ_i [(y_i − x_i·a)² − (y_i − x_i·b)²]/(2σ²) = ½(a − b)ᵀG(a + b) − c·(a − b),
//
// exact up to rounding, with no pass over the data (energy.DiffTerms).
// The form is in a − b and a + b rather than a difference of two energies:
// yᵀy/(2σ²), the large constant both energies share, never enters.
func (l *LinReg) SumDiff(a, b []float64) float64 {
	l.gram()
	p := l.P
	var d float64
	for j := range p {
		dj := a[j] - b[j]
		var gs float64
		for k := range p {
			gs += l.xtx.At(j, k) * (a[k] + b[k])
		}
		d += dj * (0.5*gs - l.xty[j])
	}
	return d
}

// DiffCost is SumDiff's cost in per-example evaluations: p² + p
// multiply-adds, about as many as p/2 + 1 examples' residuals and squares
// (2p each) — counted as p, to round up.
func (l *LinReg) DiffCost() float64 { return float64(l.P) }
