package models

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// HarmonicPeak is one peak of the frequency posterior: the periods it
// spans (from one trough to the next), where it is highest, and its
// posterior probability.
type HarmonicPeak struct {
	Period, Shortest, Longest float64
	Prob                      float64
	// LogHeight is log p(ω|y) at the peak, against the highest peak's.
	LogHeight float64
}

// HarmonicExact is ω's exact marginal posterior on a grid.
type HarmonicExact struct {
	Omega, LogP []float64 // the grid and log p(ω|y) up to a constant
	// Peaks are the frequency posterior's peaks, most probable first,
	// each from trough to trough.
	Peaks []HarmonicPeak
	// QuadErr bounds the quadrature's error in any peak's probability:
	// the largest change when every other grid point is dropped.
	QuadErr float64
}

// Exact integrates b and σ out in closed form and ω on a grid of
// perStep points per 1/N of frequency (trapezoids). Given ω, y is
// linear in b = (b0, b1, a, c) with design X(ω); with b ~ N(0, σ²S²I) and
// p(σ) ∝ 1/σ,
//
//	log p(ω|y) = −½ log|A| − (N/2) log R + const,
//	A = XᵀX + I/S²,  R = yᵀy − (Xᵀy)ᵀ A⁻¹ (Xᵀy),
//
// and ω's prior is uniform. Peaks are split at the troughs (local minima)
// of log p(ω|y).
func (m *Harmonic) Exact(perStep int) (*HarmonicExact, error) {
	if perStep < 2 {
		return nil, errors.New("harmonic: the grid needs at least 2 points per 1/N of frequency")
	}
	n := len(m.Z)
	pts := int(math.Ceil((math.Pi-m.Lo)*float64(n)/(2*math.Pi)*float64(perStep))) + 1
	pts |= 1 // odd, so that every other point spans the same interval
	e := &HarmonicExact{Omega: make([]float64, pts), LogP: make([]float64, pts)}
	var yy float64
	for _, z := range m.Z {
		yy += z * z
	}
	x := make([]float64, 4)
	A := mat.NewSymDense(4, nil)
	b := mat.NewVecDense(4, nil)
	var chol mat.Cholesky
	sol := mat.NewVecDense(4, nil)
	for k := range pts {
		w := m.Lo + (math.Pi-m.Lo)*float64(k)/float64(pts-1)
		e.Omega[k] = w
		A.Zero()
		b.Zero()
		for i, z := range m.Z {
			t := float64(i)
			sn, cs := math.Sincos(w * t)
			x[0], x[1], x[2], x[3] = 1, t/float64(n-1), cs, sn
			for r := range 4 {
				b.SetVec(r, b.AtVec(r)+x[r]*z)
				for c := r; c < 4; c++ {
					A.SetSym(r, c, A.At(r, c)+x[r]*x[c])
				}
			}
		}
		for r := range 4 {
			A.SetSym(r, r, A.At(r, r)+1/(m.S*m.S))
		}
		if !chol.Factorize(A) {
			return nil, errors.New("harmonic: the design is singular at a frequency of the grid")
		}
		if err := chol.SolveVecTo(sol, b); err != nil {
			return nil, err
		}
		R := yy - mat.Dot(b, sol)
		e.LogP[k] = -chol.LogDet()/2 - float64(n)/2*math.Log(R)
	}
	e.Peaks = peaks(e.Omega, e.LogP, 1)
	coarse := peaks(e.Omega, e.LogP, 2)
	// The coarse grid's peaks are matched to the fine grid's by period.
	for _, p := range e.Peaks {
		for _, q := range coarse {
			if q.Shortest <= p.Period && p.Period <= q.Longest {
				e.QuadErr = math.Max(e.QuadErr, math.Abs(p.Prob-q.Prob))
			}
		}
	}
	return e, nil
}

// peaks splits the grid (every stride-th point) at the troughs of lp and
// integrates exp(lp) over each part by trapezoids.
func peaks(omega, lp []float64, stride int) []HarmonicPeak {
	var w, l []float64
	for k := 0; k < len(omega); k += stride {
		w, l = append(w, omega[k]), append(l, lp[k])
	}
	top := math.Inf(-1)
	for _, v := range l {
		top = math.Max(top, v)
	}
	var out []HarmonicPeak
	var total float64
	start := 0
	for k := 1; k < len(w); k++ {
		last := k == len(w)-1
		if !last && !(l[k] < l[k-1] && l[k] <= l[k+1]) {
			continue
		}
		p := HarmonicPeak{LogHeight: math.Inf(-1)}
		for j := start; j < k; j++ {
			p.Prob += (w[j+1] - w[j]) * (math.Exp(l[j]-top) + math.Exp(l[j+1]-top)) / 2
		}
		for j := start; j <= k; j++ {
			if l[j] > p.LogHeight {
				p.LogHeight, p.Period = l[j], 2*math.Pi/w[j]
			}
		}
		p.LogHeight -= top
		p.Shortest, p.Longest = 2*math.Pi/w[k], 2*math.Pi/w[start]
		total += p.Prob
		out = append(out, p)
		start = k
	}
	for i := range out {
		out[i].Prob /= total
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prob > out[j].Prob })
	return out
}
