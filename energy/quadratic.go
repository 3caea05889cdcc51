package energy

// Quadratic is U(θ) = ½ Σ_j λ_j θ_j², a Gaussian target with precisions λ_j:
// the test bed with exact answers.
type Quadratic struct{ Lambda []float64 }

var _ Energy = Quadratic{}

// NewIsoQuadratic returns a p-dimensional Quadratic with every λ_j = lambda.
func NewIsoQuadratic(p int, lambda float64) Quadratic {
	l := make([]float64, p)
	for j := range l {
		l[j] = lambda
	}
	return Quadratic{Lambda: l}
}

func (q Quadratic) Dim() int { return len(q.Lambda) }

func (q Quadratic) U(theta []float64) float64 {
	var u float64
	for j, l := range q.Lambda {
		u += 0.5 * l * theta[j] * theta[j]
	}
	return u
}

func (q Quadratic) Grad(grad, theta []float64) {
	for j, l := range q.Lambda {
		grad[j] = l * theta[j]
	}
}
