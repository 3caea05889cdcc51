package plan

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/mala"
)

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
	l := testenergy.Logistic(t, 0.6)
	mode, lmax := testenergy.Mode(t, l)
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
