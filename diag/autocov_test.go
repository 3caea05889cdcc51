package diag

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// lagsBoth returns the summed autocovariances of chains at lags 0..L−1
// computed one by one (as essOf does for the first lags) and by FFT.
func lagsBoth(chains [][]float64, L int) (direct, fft []float64) {
	var w acovWork
	if !w.prepare(chains, false) {
		return nil, nil
	}
	n := len(chains[0])
	for t := range L {
		var s float64
		for c := range chains {
			y := w.y[c*n : (c+1)*n]
			s += floats.Dot(y[:n-t], y[t:])
		}
		direct = append(direct, s/float64(n))
	}
	w.byFFT(len(chains), n)
	return direct, append([]float64(nil), w.sums[:L]...)
}

func TestAutocovarianceExact(t *testing.T) {
	// x = (2, 0, 2, 0) has mean 1, so y = (1, −1, 1, −1) and the biased
	// autocovariances Σ y_i·y_{i+t}/4 are 4/4, −3/4, 2/4, −1/4.
	want := []float64{1, -0.75, 0.5, -0.25}
	direct, fft := lagsBoth([][]float64{{2, 0, 2, 0}}, 4)
	for i, w := range want {
		if direct[i] != w || !(math.Abs(fft[i]-w) <= 1e-15) {
			t.Errorf("lag %d: direct %v, FFT %v, exact %v", i, direct[i], fft[i], w)
		}
	}
}

// arChains is m chains of n AR(1) draws x_i = rho·x_(i−1) + ε_i from
// x_0 = 0, drawn from rng chain by chain.
func arChains(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		chains[c] = make([]float64, n)
		prev := 0.0
		for i := range chains[c] {
			prev = rho*prev + rng.NormFloat64()
			chains[c][i] = prev
		}
	}
	return chains
}

func TestAutocovarianceDirectMatchesFFT(t *testing.T) {
	// Both sum the same products; they differ by rounding, about 1e-16
	// times lag 0 per term's share, so 1e-12 of lag 0 is generous and far
	// below any change of definition. Lengths 1000 (5-smooth) and 1013
	// (padded to 1024) both.
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{1000, 1013} {
		chains := arChains(rng, 8, n, 0.9)
		direct, fft := lagsBoth(chains, 200)
		for i := range direct {
			if !(math.Abs(direct[i]-fft[i]) <= 1e-12*direct[0]) {
				t.Fatalf("n = %d lag %d: direct %v, FFT %v", n, i, direct[i], fft[i])
			}
		}
	}
}

func TestIndicatorLagsMatchProducts(t *testing.T) {
	// The bit counts must give what the products of the centred indicator
	// give, at lags within a word, at its edges and across words, for a
	// length that fills its last word exactly and one that does not.
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{640, 1013} {
		chains := arChains(rng, 3, n, 0.8)
		const q = 0.3
		ind := make([][]float64, len(chains))
		for c, ch := range chains {
			ind[c] = make([]float64, n)
			for i, x := range ch {
				if x <= q {
					ind[c][i] = 1
				}
			}
		}
		var bitsW, prodW acovWork
		if math.IsNaN(essIndicator(chains, q, &bitsW)) || !prodW.prepare(ind, false) {
			t.Fatal("indicator ESS undefined")
		}
		for _, lag := range []int{0, 1, 2, 31, 63, 64, 65, 127, 128, 129, 300, n - 1} {
			var want float64
			for c := range ind {
				y := prodW.y[c*n : (c+1)*n]
				want += floats.Dot(y[:n-lag], y[lag:])
			}
			want /= float64(n)
			// Exact counts against rounded products: 1e-13 of lag 0 bounds
			// n·1e-16 of rounding with room.
			if got := bitsW.indicatorLag(lag); !(math.Abs(got-want) <= 1e-13*prodW.lag(0)) {
				t.Errorf("n = %d lag %d: bits %v, products %v", n, lag, got, want)
			}
		}
	}
}
