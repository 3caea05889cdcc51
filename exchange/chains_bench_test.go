package exchange

import (
	"runtime"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/langevin"
)

// BenchmarkFourChainsTwoCores runs four f-reSGLD chains on the breast
// cancer logistic regression (569 examples, 31 coefficients, minibatches
// of 57 and 10, 3000 steps each) on two cores, once one chain after
// another (one worker) and once in parallel (RunChains, two workers),
// alternating the two in every iteration so that a change in the machine's
// load hits both. It reports the wall time of each and their ratio,
// parallel/sequential: 0.5 is perfect use of two cores. It also reports
// the cores each mode got (process CPU time over wall time): on a loaded
// machine the parallel mode gets no more CPU than the sequential one, and
// the ratio says nothing about the code.
func BenchmarkFourChainsTwoCores(b *testing.B) {
	lr := testenergy.BreastCancer(b)
	p := lr.P
	build := func() []*Sampler {
		smps := make([]*Sampler, 4)
		for c := range smps {
			cold, _ := energy.NewMinibatch(lr, 57)
			hot, _ := energy.NewMinibatch(lr, 10)
			// Exact swap energies: the draw mode refuses minibatch noise,
			// which is not Gaussian.
			cfg, err := FReSGLDMethod.Config(Setup{Tau1: 1, Tau2: 4, Eta: langevin.Constant{Step: 1e-3}, Cold: cold, Hot: hot, A: 100, Seed: ChainSeed(1, c+1),
				Energies: Energies{Mode: ExactEnergies, Terms: lr}})
			if err != nil {
				b.Fatal(err)
			}
			if smps[c], err = New(cfg, [][]float64{make([]float64, p), make([]float64, p)}); err != nil {
				b.Fatal(err)
			}
		}
		return smps
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	plan := Plan{Burn: 1000, Keep: 2000, Thin: 1}
	var seq, par, seqCPU, parCPU time.Duration
	for range b.N {
		for _, workers := range []int{1, 2} {
			smps := build()
			start, cpu0 := time.Now(), cputime.Process()
			for _, r := range RunChains(smps, plan, nil, workers) {
				if r.Err != nil {
					b.Fatal(r.Err)
				}
			}
			wall, cpu := time.Since(start), cputime.Process()-cpu0
			if workers == 1 {
				seq, seqCPU = seq+wall, seqCPU+cpu
			} else {
				par, parCPU = par+wall, parCPU+cpu
			}
		}
	}
	b.ReportMetric(float64(seqCPU)/float64(seq), "sequential-cores")
	b.ReportMetric(float64(parCPU)/float64(par), "parallel-cores")
	b.ReportMetric(float64(seq.Milliseconds())/float64(b.N), "sequential-ms/op")
	b.ReportMetric(float64(par.Milliseconds())/float64(b.N), "parallel-ms/op")
	b.ReportMetric(float64(par)/float64(seq), "parallel/sequential")
}
