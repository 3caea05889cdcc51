package pde

import (
	"fmt"
	"testing"
)

// BenchmarkReadingGrad times one adjoint solve (reading and gradient) at
// the grid sizes the heat study uses and around them.
func BenchmarkReadingGrad(b *testing.B) {
	for _, n := range []int{9, 19, 29, 39} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := mustNew(b, Config{N: n, Steps: 2, T: 0.03, Sensor: paperSensor, Bump: PaperBump()})
			g := make([]float64, 2)
			b.ReportAllocs()
			for b.Loop() {
				s.ReadingGrad(g, [2]float64{0.42, 0.51})
			}
		})
	}
}
