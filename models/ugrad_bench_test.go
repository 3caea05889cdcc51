package models

import "testing"

// BenchmarkUGrad is a full pass of U and ∇U (MALA's step) at the size of
// the breast-cancer data (569 × 31) and of a 10⁴ × 101 synthetic set.
func BenchmarkUGrad(b *testing.B) {
	for _, c := range []struct {
		name string
		n, p int
	}{{"569x31", 569, 31}, {"10000x101", 10000, 101}} {
		b.Run(c.name, func(b *testing.B) {
			l, _, err := SyntheticLogistic(c.n, c.p, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			g, theta := make([]float64, c.p), make([]float64, c.p)
			for j := range theta {
				theta[j] = 0.1 * float64(j%5-2)
			}
			b.ReportAllocs()
			for b.Loop() {
				l.UGrad(g, theta)
			}
		})
	}
}
