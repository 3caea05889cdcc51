package diag

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/internal/cputime"
)

// benchParams is p parameters of m chains of n AR(1) draws with coefficient
// rho (0 for independent draws).
func benchParams(p, m, n int, rho float64) [][][]float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][][]float64, p)
	for k := range out {
		out[k] = arChains(rng, m, n, rho)
	}
	return out
}

var benchRhos = []float64{0, 0.9}

// BenchmarkSummarize is one parameter of 4 chains × 10⁴ draws, on one
// thread; cpu-ns/op is that thread's CPU time, which time descheduled on a
// shared machine does not inflate.
func BenchmarkSummarize(b *testing.B) {
	for _, rho := range benchRhos {
		x := benchParams(1, 4, 10000, rho)[0]
		b.Run(fmt.Sprintf("rho=%v", rho), func(b *testing.B) {
			b.ReportAllocs()
			defer cputime.Lock()()
			c0 := cputime.Thread()
			for b.Loop() {
				Summarize(x)
			}
			b.ReportMetric(float64(cputime.Thread()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSummarizeAll is 1000 parameters of 4 chains × 10⁴ draws on all
// of GOMAXPROCS; cpu-s/op is the process's CPU time, so cpu-s/op divided by
// the cores is the wall time on idle cores.
func BenchmarkSummarizeAll(b *testing.B) {
	for _, rho := range benchRhos {
		x := benchParams(1000, 4, 10000, rho)
		b.Run(fmt.Sprintf("rho=%v", rho), func(b *testing.B) {
			c0 := cputime.Process()
			for b.Loop() {
				SummarizeAll(x)
			}
			b.ReportMetric((cputime.Process()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
