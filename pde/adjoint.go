package pde

// ReadingGrad returns the sensor reading at T for the centre x0 and writes
// its gradient with respect to x0 into grad (length 2), by the discrete
// adjoint of the Crank–Nicolson scheme.
//
// The scheme is linear in its data, so the reading is a weighted sum of
// them: J = Σ_k ν^k·c^k + φ·u^0, where c^k is the right-hand side data at
// time level k and u^0 the initial state. The weights come from one
// backward sweep: λ^N = ŵ (the sensor weights in sine coefficients),
// λ^{m} = R λ^{m+1}, and c^k is weighted by P(λ^k + λ^{k+1}) (with the
// terms that do not exist left out). The same weights applied to ∂c^k/∂x0
// and ∂u^0/∂x0, which are known in closed form, give the exact gradient
// of the discrete reading. The cost is that of one forward solve.
func (s *Solver) ReadingGrad(grad []float64, x0 [2]float64) float64 {
	n, N := s.n, s.cfg.Steps
	s.setCentre(x0)
	lam, plam, nu := s.u, s.c, s.d
	copy(lam, s.what)
	for q := range plam {
		plam[q] = 0 // P·λ^{k+1}, zero beyond the last level
	}
	var j, ga, gb float64
	for k := N; k >= 0; k-- {
		for q := range nu {
			pl := 0.0
			if k >= 1 {
				pl = s.p[q] * lam[q]
			}
			nu[q] = pl + plam[q]
			plam[q] = pl
		}
		s.tr.apply(nu)
		sc := s.scale(k)
		j += sc * dot(nu, n, s.dz, s.source())
		ga += sc * dot(nu, n, s.dz, s.sourceDA())
		gb += sc * dot(nu, n, s.dz, s.sourceDB())
		if k >= 1 {
			for q, l := range lam {
				lam[q] = s.r[q] * l
			}
		}
	}
	s.tr.apply(lam) // φ = S λ^0, the weight of the initial state
	j += s.beta * dot(lam, n, s.dz, s.initial())
	ga += s.beta * dot(lam, n, s.dz, s.initialDA())
	gb += s.beta * dot(lam, n, s.dz, s.initialDB())
	grad[0], grad[1] = ga, gb
	j += s.boundaryReading(grad)
	return j
}
