package modes

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// farPair is 0.5 N(0, 1) + 0.5 N(mu, sd²) in one coordinate: issue 51's far
// mode at mu = 60, sd = 0.5, which 9 searches from 2 to 16 Laplace sds
// missed, so that the run gave a mean of −0.017 where the truth is 30.
type farPair struct{ mu, sd float64 }

func (farPair) Dim() int { return 1 }
func (f farPair) U(x []float64) float64 {
	g := make([]float64, 1)
	return f.uGrad(g, x)
}
func (f farPair) Grad(g, x []float64) { f.uGrad(g, x) }
func (f farPair) uGrad(g, x []float64) float64 {
	a := -x[0]*x[0]/2 - 0.5*math.Log(2*math.Pi)
	z := (x[0] - f.mu) / f.sd
	b := -z*z/2 - math.Log(f.sd) - 0.5*math.Log(2*math.Pi)
	m := max(a, b)
	lse := m + math.Log(0.5*math.Exp(a-m)+0.5*math.Exp(b-m))
	g[0] = 0.5*math.Exp(a-lse)*x[0] + 0.5*math.Exp(b-lse)*z/f.sd
	return -lse
}

// The far mode is found, by a search from the point past which U falls
// along a ray, with its Laplace weight: both components' Laplace fits are
// exact, so each weighs 0.5 to rounding. Without the ray scan (or with
// rays that stop short of 40 sds, where the far basin begins) the search
// finds one mode, as it did.
func TestSearchFindsFarMode(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		s, err := SearchModes(EnergyTerms(farPair{60, 0.5}), []float64{0}, seed)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(s.Line(), "; ", s.Searched())
		if len(s.Modes) != 2 || len(s.rayStarts) == 0 {
			t.Fatalf("seed %d: %s, from %d ray start(s); want 2 modes, one from a ray", seed, s.Line(), len(s.rayStarts))
		}
		for _, m := range s.Modes {
			if math.Abs(m.Weight-0.5) > 1e-6 {
				t.Errorf("seed %d: mode at %.6g weighs %.6g, want 0.5", seed, m.Theta[0], m.Weight)
			}
		}
		if far := math.Max(s.Modes[0].Theta[0], s.Modes[1].Theta[0]); math.Abs(far-60) > 1e-6 {
			t.Errorf("seed %d: far mode at %.9g, want 60", seed, far)
		}
	}
}

// A mode beyond the rays' reach is not found, and the search says how far
// it looked: the verdict's "trusted" holds within that.
func TestSearchSaysHowFar(t *testing.T) {
	s, err := SearchModes(EnergyTerms(farPair{1e5, 0.5}), []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	sum := s.Summary(0)
	if len(s.Modes) != 1 || sum.RayReachSDs != rayReach || sum.Rays != 2 || !sum.OneBasin || sum.Searches != 1+modeCheck {
		t.Errorf("%s; summary %+v: want one mode, 2 rays read to %g sds, %d searches", s.Line(), sum, rayReach, 1+modeCheck)
	}
	for _, want := range []string{"out to 4096 Laplace sds", "2 to 16 Laplace sds", "would be missed"} {
		if !strings.Contains(sum.Searched, want) {
			t.Errorf("searched %q does not say %q", sum.Searched, want)
		}
	}
}

// illScaled is a Gaussian with sds 10⁻⁴ and 10⁴: L-BFGS's gradient
// threshold, set by the stiff coordinate, left its searches many sds
// apart along the wide one, and the plan reported "7 modes, barrier ≤ 0
// nats" after 25 searches.
type illScaled struct{}

func (illScaled) Dim() int { return 2 }
func (illScaled) U(x []float64) float64 {
	return (x[0]*x[0]/1e-8 + x[1]*x[1]/1e8) / 2
}
func (illScaled) Grad(g, x []float64) { g[0], g[1] = x[0]/1e-8, x[1]/1e8 }

type termsOnly struct{ energy.Terms }

// On a posterior with one basin the search stops after the check: the
// first search and modeCheck over-dispersed ones, with the rays, where it
// ran 1 + modeQuiet (9) before, or 25 on the ill-scaled Gaussian; and it
// reports one mode, with its sds right. The evaluations it spends are
// logged (go test ./analysis -run TestSearchOneBasinIsCheap -v); they were
// 1530 on the ill-scaled Gaussian, 135 and 318 on the logistic
// regressions, before the check.
func TestSearchOneBasinIsCheap(t *testing.T) {
	lg5, _, err := models.SyntheticLogistic(200, 5, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	lg20, _, err := models.SyntheticLogistic(500, 20, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		t    energy.Terms
	}{{"Gaussian, sds 1e-4 and 1e4", EnergyTerms(illScaled{})}, {"logistic 200×5", termsOnly{lg5}}, {"logistic 500×20", termsOnly{lg20}}} {
		s, err := SearchModes(c.t, make([]float64, c.t.Dim()), 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d searches, %d evaluations: %s", c.name, s.Starts, s.Evals, s.Line())
		if len(s.Modes) != 1 || !s.Checked || s.Starts != 1+modeCheck {
			t.Errorf("%s: %s (checked %v); want one mode after %d searches", c.name, s.Line(), s.Checked, 1+modeCheck)
		}
	}
	s, err := SearchModes(EnergyTerms(illScaled{}), []float64{1e-3, 1e5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The mode is 0, found to 10⁻³ sds; the Hessian's diagonal is 1/sd²,
	// to rounding.
	m := s.Modes[0]
	if math.Abs(m.Theta[0]) > 1e-7 || math.Abs(m.Theta[1]) > 10 || math.Abs(m.H.At(0, 0)*1e-8-1) > 1e-3 || math.Abs(m.H.At(1, 1)*1e8-1) > 1e-3 {
		t.Errorf("ill-scaled Gaussian: mode %v, H diagonal %v %v; want 0 and 1e8, 1e-8", m.Theta, m.H.At(0, 0), m.H.At(1, 1))
	}
}

// A minimum L-BFGS reports 10 sds out along the wide coordinate (its
// gradient threshold, set by the stiff one, is met there: from (10⁻³, 10⁵)
// it stops at (0, 10⁵)) is taken to the mode by Newton's method before it
// is kept; kept as it was, the plan's chains and pilots would start from
// a point 10 sds out and call it the mode.
func TestKeepPolishesTheMode(t *testing.T) {
	var e illScaled
	s := &ModeSearch{}
	var spread func([]float64)
	x := []float64{0, 1e5}
	if !s.keep(EnergyTerms(e), e, x, e.U(x), func(x []float64) *mat.SymDense { return Hessian(EnergyTerms(e), e, x) }, &spread) {
		t.Fatal("the first minimum was not kept")
	}
	if m := s.Modes[0]; math.Abs(m.Theta[1]) > 1 || m.U > 1e-8 {
		t.Errorf("kept the mode at %v (U = %g); want (0, 0) to 10⁻⁴ sds", m.Theta, m.U)
	}
}
