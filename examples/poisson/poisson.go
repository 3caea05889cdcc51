package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Poisson is Bayesian Poisson regression with a log link and a Gaussian
// prior β ~ N(0, σ₀² I): per example, with features x_i and count y_i,
//
//	U_i(β) = e^{η_i} − y_i η_i + log y_i!,  η_i = x_i·β,   ∇U_i = (e^{η_i} − y_i) x_i,
//
// the negative log-likelihood, and U_0(β) = |β|²/(2σ₀²). It is an
// energy.Terms and nothing more: minibatches, control variates and exact
// swap energies all work from these four methods.
type Poisson struct {
	X       [][]float64 // features, one row per example
	Y       []float64   // counts
	Sigma0  float64     // prior sd; +Inf: a flat prior
	logFact []float64   // log y_i!
}

func NewPoisson(x [][]float64, y []float64, sigma0 float64) (*Poisson, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, fmt.Errorf("poisson regression: %d rows of features for %d counts", len(x), len(y))
	}
	if !(sigma0 > 0) {
		return nil, fmt.Errorf("poisson regression: prior sd σ₀ = %v must be positive", sigma0)
	}
	m := &Poisson{X: x, Y: y, Sigma0: sigma0, logFact: make([]float64, len(y))}
	for i, v := range y {
		if !(v >= 0) || v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("poisson regression: count %d is %v, not a non-negative integer", i+1, v)
		}
		m.logFact[i], _ = math.Lgamma(v + 1)
	}
	return m, nil
}

func (m *Poisson) Dim() int { return len(m.X[0]) }
func (m *Poisson) Len() int { return len(m.Y) }

func (m *Poisson) Term(grad, beta []float64, i int) float64 {
	x, y := m.X[i], m.Y[i]
	var eta float64
	for j, v := range x {
		eta += v * beta[j]
	}
	mu := math.Exp(eta)
	if grad != nil {
		for j, v := range x {
			grad[j] = (mu - y) * v
		}
	}
	return mu - y*eta + m.logFact[i]
}

func (m *Poisson) Prior(grad, beta []float64) float64 {
	prec := 1 / (m.Sigma0 * m.Sigma0)
	var u float64
	for j, b := range beta {
		u += 0.5 * prec * b * b
		if grad != nil {
			grad[j] = prec * b
		}
	}
	return u
}

// Names are the coefficients of Warpbreaks' design.
var Names = []string{"intercept", "woolB", "tensionM", "tensionH"}

// Warpbreaks reads warpbreaks.csv (breaks,wool,tension) into the design of
// R's glm(breaks ~ wool + tension): an intercept and treatment contrasts
// against wool A and tension L.
func Warpbreaks(data []byte) (x [][]float64, y []float64, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 3
	head, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("warpbreaks: %w", err)
	}
	if fmt.Sprint(head) != "[breaks wool tension]" {
		return nil, nil, fmt.Errorf("warpbreaks: header %q, want breaks,wool,tension", head)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("warpbreaks: %w", err)
		}
		b, err := strconv.ParseFloat(rec[0], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("warpbreaks line %d: breaks %q is not a number", line, rec[0])
		}
		row := []float64{1, 0, 0, 0}
		switch rec[1] {
		case "A":
		case "B":
			row[1] = 1
		default:
			return nil, nil, fmt.Errorf("warpbreaks line %d: wool %q is neither A nor B", line, rec[1])
		}
		switch rec[2] {
		case "L":
		case "M":
			row[2] = 1
		case "H":
			row[3] = 1
		default:
			return nil, nil, fmt.Errorf("warpbreaks line %d: tension %q is not L, M or H", line, rec[2])
		}
		x, y = append(x, row), append(y, b)
	}
	return x, y, nil
}
