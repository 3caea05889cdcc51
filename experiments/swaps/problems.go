package swaps

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// WellingTehN is the Welling–Teh generative model with N points (the first
// 100 are the paper problem's: the same stream PCG(WellingTehSeed, 0)),
// both chains started at its mode with θ2 < 0, under the minibatch study's
// setting rule. The likelihood is unchanged by (θ1, θ2) → (θ1 + θ2, −θ2),
// so at every N the posterior has two modes of nearly equal mass, and the
// barrier between them grows in proportion to N. The metric is the error
// of the mass on θ2 < 0 (mode weight), against its exact value from grids
// around the two modes (ModeMass).
func WellingTehN(N int, sz minibatch.Size) (minibatch.Problem, float64, error) {
	w := models.NewWellingTeh(N, 0, 1, rand.New(rand.NewPCG(models.WellingTehSeed, 0)))
	st, _, _, err := minibatch.SettingFor(w, []float64{1.3, -1.6}, sz)
	if err != nil {
		return minibatch.Problem{}, 0, err
	}
	e := minibatch.Energy(w)
	st.Init, _, err = mala.Laplace(e, st.Init)
	if err != nil {
		return minibatch.Problem{}, 0, err
	}
	neg, err := ModeMass(w, st.Init, []float64{-0.3, 1.6}, 8, 120)
	if err != nil {
		return minibatch.Problem{}, 0, err
	}
	pr := minibatch.Problem{
		Name: fmt.Sprintf("welling-teh-%d", N), Terms: w, Setting: st,
		Metrics: []string{"mode weight error"}, Targets: []float64{0.05},
		NewAcc: func() minibatch.Accumulator { return &modeWeight{want: neg} },
	}
	return pr, neg, nil
}

// ModeMass is the posterior mass on θ2 < 0 of a Welling–Teh posterior whose
// modes are reached from a (θ2 < 0) and b (θ2 > 0): exp(−U) summed on a
// cells×cells grid spanning ±width Laplace sds around each mode. Mass
// outside the two boxes, and on the wrong side of θ2 = 0 inside them, is
// neglected; at width 8 it is below e^{−32} of each mode's for a Gaussian.
func ModeMass(w *models.WellingTeh, a, b []float64, width float64, cells int) (float64, error) {
	e := minibatch.Energy(w)
	var mass [2]float64
	var umin [2]float64
	for k, start := range [][]float64{a, b} {
		m, _, err := mala.Laplace(e, start)
		if err != nil {
			return 0, err
		}
		if (k == 0) != (m[1] < 0) {
			return 0, fmt.Errorf("mode %d at %v is on the wrong side of θ2 = 0", k, m)
		}
		h := mala.Hessian(e, m)
		var inv [2][2]float64
		det := h.At(0, 0)*h.At(1, 1) - h.At(0, 1)*h.At(0, 1)
		inv[0][0], inv[1][1] = h.At(1, 1)/det, h.At(0, 0)/det
		sd := []float64{math.Sqrt(inv[0][0]), math.Sqrt(inv[1][1])}
		umin[k] = w.U(m)
		th := []float64{0, 0}
		dx, dy := 2*width*sd[0]/float64(cells), 2*width*sd[1]/float64(cells)
		for i := range cells {
			for j := range cells {
				th[0] = m[0] - width*sd[0] + (float64(i)+0.5)*dx
				th[1] = m[1] - width*sd[1] + (float64(j)+0.5)*dy
				if (k == 0) != (th[1] < 0) {
					continue
				}
				mass[k] += math.Exp(-(w.U(th) - umin[k])) * dx * dy
			}
		}
	}
	// Bring both to the scale of exp(−U_min of mode 0).
	mb := mass[1] * math.Exp(-(umin[1] - umin[0]))
	return mass[0] / (mass[0] + mb), nil
}

// modeWeight scores samples by |fraction with θ2 < 0 − the exact mass|.
type modeWeight struct {
	want   float64
	n, neg float64
}

func (a *modeWeight) Add(theta []float64) {
	a.n++
	if theta[1] < 0 {
		a.neg++
	}
}

func (a *modeWeight) Score(dst []float64) { dst[0] = math.Abs(a.neg/a.n - a.want) }
