package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// heavyLogistic is a logistic regression of 500 examples and 8 features,
// each example's features an AR(1) sequence of correlation rho, whose
// first 2% are gross outliers, features ×4 and labels flipped: their
// per-example gradients are far larger than the others' and lie along
// their own feature vectors, so a small minibatch's gradient noise is
// heavy-tailed and strongly correlated between coordinates (issue 50's
// wine data with 4 such rows, made here).
func heavyLogistic(t *testing.T, rho float64) *models.Logistic {
	const N, p = 500, 8
	rng := rand.New(rand.NewPCG(11, 7))
	truth := make([]float64, p)
	for j := range truth {
		truth[j] = 2 / math.Sqrt(p) * rng.NormFloat64()
	}
	x, y := make([]float64, N*p), make([]float64, N)
	for i := range N {
		row := x[i*p : (i+1)*p]
		row[0] = rng.NormFloat64()
		for j := 1; j < p; j++ {
			row[j] = rho*row[j-1] + math.Sqrt(1-rho*rho)*rng.NormFloat64()
		}
		var z float64
		for j, v := range row {
			z += v * truth[j]
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	for i := range N / 50 {
		for j := range p {
			x[i*p+j] *= 4
		}
		y[i] = 1 - y[i]
	}
	l, err := models.NewLogistic(x, y, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// heavyMode is the posterior mode of l and λ_max of the Hessian there.
func heavyMode(t *testing.T, l *models.Logistic) ([]float64, float64) {
	rows := make([]int, l.Len())
	for i := range rows {
		rows[i] = i
	}
	mode, h, err := l.Mode(make([]float64, l.P), rows, 100)
	if err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	if !es.Factorize(h, false) {
		t.Fatal("no eigen decomposition of the Hessian")
	}
	ev := es.Values(nil)
	return mode, ev[len(ev)-1]
}

// TestNoiseForecastAgainstMALA checks the forecast of a corrected chain's
// sds on heavy-tailed, correlated gradient noise against what a chain
// measures, MALA (exact) the reference, at the default step η = 0.2/λ_max
// and three forced small batches:
//
//   - n = 64, diagonal: the covariances the diagonal correction leaves
//     make the chain colder (sds ≈ 0.93 of MALA's, though a quarter of the
//     steps clamp; the clamp alone would say hotter: issue 50's wrong sign);
//   - n = 16, diagonal: most steps clamp and the chain runs hotter (≈ 1.1);
//   - n = 64, full: the clamp alone, hotter (≈ 1.04).
//
// Each coordinate's measured sd ratio has a standard error from the MCSE of
// both sds (diag.MCSESd: kurtosis and ESS included); the forecast must lie
// within 3 of them plus 0.02, the linearisation's own error at these
// settings (it was 0.003–0.016 on every coordinate at n = 32–128 and with
// the full correction, but up to 0.045 at n = 16, where 85% of the steps
// clamp: that case gets 0.05). Its mean over the coordinates must have the
// measured side of 1 and lie within 0.02 of the measured mean.
//
// It fails for the clamp-only forecast the warning used to give (n = 64:
// sds ≈ 1.01, not 0.92), for a forecast without the off-diagonal noise,
// with its eigenbasis transposed, or without either correction's clamp.
// The finite-population factor is too small a change here to see
// (TestNoiseForecastExact sees it).
func TestNoiseForecastAgainstMALA(t *testing.T) {
	if testing.Short() {
		t.Skip("a MALA reference and three chains of 10⁵ steps")
	}
	l := heavyLogistic(t, 0.6)
	mode, lmax := heavyMode(t, l)
	eta := 0.2 / lmax
	ref, err := mala.Run(l, mode, mala.Config{Step: 0.05, Burn: 2000, Keep: 100_000, Thin: 1, Seed: 1, Adapt: true})
	if err != nil {
		t.Fatal(err)
	}
	refTr := exchange.Trace{P: l.P, Data: ref.Samples}
	for _, c := range []struct {
		n     int
		corr  exchange.Correction
		slack float64
		side  float64 // the measured mean sd ratio's side of 1
	}{
		{64, exchange.Diagonal, 0.02, -1},
		{16, exchange.Diagonal, 0.05, +1},
		{64, exchange.Full, 0.02, +1},
	} {
		f, err := ForecastNoise(l, mode, c.n, eta, 1, c.corr, 5)
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := energy.NewMinibatch(l, c.n)
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{{Tau: 1, Est: mb, Eta: langevin.Constant{Step: eta}, Noise: c.corr.Policy()}}, Seed: 3}, [][]float64{mode})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := exchange.Collect(s, exchange.Plan{Burn: 5000, Keep: 100_000, Thin: 1})
		if err != nil {
			t.Fatal(err)
		}
		var meanGot, meanWant float64
		for j := range l.P {
			a, b := tr.Coord(j), refTr.Coord(j)
			sa, sb := sd(a), sd(b)
			got := sa / sb
			se := got * math.Hypot(diag.MCSESd([][]float64{a})/sa, diag.MCSESd([][]float64{b})/sb)
			want := math.Sqrt(f.VarRatio[j])
			meanGot += got / float64(l.P)
			meanWant += want / float64(l.P)
			if math.Abs(got-want) > 3*se+c.slack {
				t.Errorf("n = %d, %v: coordinate %d's sd %.4f ± %.4f of MALA's, forecast %.4f", c.n, c.corr, j, got, se, want)
			}
		}
		t.Logf("n = %d, %v: mean sd ratio %.4f measured, %.4f forecast; %.0f%% of draws over the budget", c.n, c.corr, meanGot, meanWant, 100*f.Over)
		if (meanGot-1)*c.side <= 0 || (meanWant-1)*c.side <= 0 || math.Abs(meanGot-meanWant) > 0.02 {
			t.Errorf("n = %d, %v: mean sd ratio %.4f measured, %.4f forecast: want both on the %+.0f side of 1, within 0.02", c.n, c.corr, meanGot, meanWant, c.side)
		}
	}
}

// TestHeatWarningNamesTheDirection checks the warning given before
// sampling through the Go API (Defaults puts it in Result.Warnings): on the
// heavy-tailed data at n = 64 it says the sds come out too small, with a
// negative Number of the forecast's size, and a remedy batch at which the
// forecast is within the tolerance; at n = 16 it says too large; with
// uncorrelated features and n = 64 (the clamp alone, sds ≈ 1.10 measured) it
// says too large; at the whole data set (n = N) it says nothing. A warning
// that kept the clamp-only sign fails the n = 64 case; one that never fires
// fails all three.
func TestHeatWarningNamesTheDirection(t *testing.T) {
	for _, c := range []struct {
		rho  float64
		n    int
		want string // "small", "large" or "" (no warning)
	}{
		{0.6, 64, "small"},
		{0.6, 16, "large"},
		{0, 64, "large"},
		{0.6, 500, ""},
	} {
		l := heavyLogistic(t, c.rho)
		mode, lmax := heavyMode(t, l)
		o := DefaultOptions()
		o.Method, o.Batch, o.Eta = exchange.CorrectedMethod, c.n, 0.2/lmax
		m := Model{Terms: l}
		var res Result
		w, err := heatWarning(m, o, mode)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" {
			if w != nil {
				t.Errorf("rho %v, n = %d: warning %q, want none", c.rho, c.n, w.Message)
			}
			continue
		}
		if w == nil {
			t.Errorf("rho %v, n = %d: no warning, want %q", c.rho, c.n, c.want)
			continue
		}
		res.warn(nil, *w)
		t.Log(w.Message)
		if !strings.Contains(w.Message, "too "+c.want) || (w.Number < 0) != (c.want == "small") {
			t.Errorf("rho %v, n = %d: warning %q (number %.4f), want too %s", c.rho, c.n, w.Message, w.Number, c.want)
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Code != "clamp-heat" {
			t.Errorf("the result's warnings %v", res.Warnings)
		}
		if !strings.HasPrefix(w.Remedy, "--batch ") && !strings.Contains(w.Remedy, "--eta") {
			t.Errorf("remedy %q names no flag", w.Remedy)
		}
	}
}

func mean(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	return m
}

func sd(xs []float64) float64 {
	m := mean(xs)
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m) / float64(len(xs))
	}
	return math.Sqrt(v)
}
