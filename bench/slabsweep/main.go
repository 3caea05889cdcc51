// Command slabsweep times one sweep of the spike-and-slab logistic
// regression's two kernels on the same data: models.SlabMove, which reads
// every example about five times, and models.ThinnedSlabMove, whose tests
// read a few examples through the data's second-order expansion about the
// all-slab pattern's mode. For each it prints the wall time a sweep (one
// core) and the cost the kernel reports (example-gradient equivalents),
// over 2,000 sweeps after 200 from that mode, or as many as 10 seconds
// hold (SlabMove at 10⁶ rows takes about a second a sweep); then the expansion's total
// remainder weight Σ_i w_i and models.ThinnedSlabPays' prediction, which
// picks the kernel `fresgld logistic --prior spike-slab` runs.
//
//	go run ./bench/slabsweep                 # wdbc's ten mean_ features, s0 = 0.001
//	go run ./bench/slabsweep -n 10000        # generated rows, the spike 20 times sharper
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/slablogit"
	"github.com/fresgld/fresgld/models"
)

func main() {
	n := flag.Int("n", 0, "generated rows, under slablogit's prior with the spike 20 times sharper (0: wdbc's ten mean_ features at s0 = 0.001)")
	sweeps := flag.Int("sweeps", 2000, "timed sweeps of each kernel")
	flag.Parse()
	benchmain.Check("slabsweep", run(*n, *sweeps))
}

func run(n, sweeps int) error {
	if sweeps < 1 {
		return fmt.Errorf("-sweeps = %d: must be at least 1", sweeps)
	}
	var w *slablogit.Workload
	var err error
	if n == 0 {
		pr := slablogit.Prior
		pr.Spike = 0.001
		w, err = slablogit.WDBC(pr)
	} else {
		if w, err = slablogit.Synthetic(n, 1); err != nil {
			return err
		}
		pr := slablogit.SyntheticPrior(n)
		pr.Spike /= 20
		w.LR, err = models.NewSlabLogistic(w.LR.X, w.LR.Y, w.LR.P, 1, pr, 0)
	}
	if err != nil {
		return err
	}
	lr := w.LR
	fmt.Printf("%s; s0 = %.4g, s1 = %.4g\n", w.Note, lr.Slab.Spike, lr.Slab.Slab)
	slab := make([]bool, lr.P)
	for j := range slab {
		slab[j] = true
	}
	mode, err := lr.PatternMode(slab)
	if err != nil {
		return err
	}
	e, err := energy.NewExpansion(lr, mode)
	if err != nil {
		return err
	}
	for _, k := range []struct {
		name string
		k    exchange.Kernel
	}{{"SlabMove", lr.NewSlabMove(1)}, {"ThinnedSlabMove", lr.NewThinnedSlabMove(e, 1)}} {
		theta := append([]float64(nil), mode...)
		rng := rand.New(rand.NewPCG(1, 1))
		const budget = 10 * time.Second
		i := 0
		for warm := time.Now(); i < 200 && time.Since(warm) < budget; i++ {
			k.k.Step(theta, rng)
		}
		start := time.Now()
		var c float64
		done := 0
		for ; done < sweeps && (done == 0 || time.Since(start) < budget); done++ {
			_, cs := k.k.Step(theta, rng)
			c += cs
		}
		fmt.Printf("%-16s %10.1f µs a sweep, cost %.4g a sweep (%d sweeps timed)\n", k.name, float64(time.Since(start).Nanoseconds())/1e3/float64(done), c/float64(done), done)
	}
	p, N := float64(lr.P), float64(lr.Len())
	fmt.Printf("Σ_i w_i = %.4g; a coefficient's test predicted at %.4g example scores + 2p + 1 = %.4g, against SlabMove's 5N/p = %.4g: ThinnedSlabPays %v\n",
		e.Weight(), 3*e.MeanRate(1, 1, 1), 3*e.MeanRate(1, 1, 1)+2*p+1, 5*N/p, lr.ThinnedSlabPays(e))
	return nil
}
