package results

import (
	"math"
	"slices"
	"testing"
)

// rawScaleDraws gives, draw by draw, the coefficients whose linear
// predictor on the data's features equals the standardised model's on the
// standardised features, for any example; and standardisation reads back
// what StandardisationSettings wrote, exactly.
func TestRawScaleDraws(t *testing.T) {
	means, sds := []float64{3, -1e-3, 250}, []float64{0.5, 2e-4, 80}
	got, gotSD, intercept, ok := standardisation(append([][2]string{{"no_intercept", "false"}}, StandardisationSettings(means, sds)...))
	if !ok || !intercept || !slices.Equal(got, means) || !slices.Equal(gotSD, sds) {
		t.Fatalf("standardisation read back %v, %v, %v, %v", got, gotSD, intercept, ok)
	}
	// Two chains of three draws of (intercept, β1, β2, β3).
	coef := [][][]float64{
		{{0.2, -1, 3}, {0.5, 0.1, -2}},
		{{1, 2, -0.5}, {0, 1, 1}},
		{{-0.3, 0.7, 2}, {4, -4, 0}},
		{{0.01, 5, -1}, {2, 2, 2}},
	}
	raw := rawScaleDraws(coef, true, means, sds)
	for _, x := range [][]float64{{3, -1e-3, 250}, {0, 0, 0}, {7.5, 0.01, -40}} {
		for c := range 2 {
			for d := range 3 {
				std, dat := coef[0][c][d], raw[0][c][d]
				for j := range x {
					std += coef[j+1][c][d] * (x[j] - means[j]) / sds[j]
					dat += raw[j+1][c][d] * x[j]
				}
				if math.Abs(std-dat) > 1e-9*(1+math.Abs(std)) {
					t.Errorf("x = %v, chain %d, draw %d: linear predictor %v on the standardised scale, %v on the data's", x, c, d, std, dat)
				}
			}
		}
	}
	// Without an intercept only the slopes are rescaled.
	raw = rawScaleDraws(coef[1:], false, means, sds)
	if raw[0][0][0] != coef[1][0][0]/sds[0] || raw[2][1][2] != coef[3][1][2]/sds[2] {
		t.Errorf("slopes without an intercept: %v", raw)
	}
}
