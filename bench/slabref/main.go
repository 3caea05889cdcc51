// Command slabref prints, for a spike-and-slab logistic regression workload
// of issue 28 (experiments/slablogit), the reference posterior's inclusion
// probabilities with their MCSEs, the number of patterns holding 99% of
// its weight, the barrier the plan's mode search finds (nats) and the
// reference's cost; with -csv it writes the workload as CSV instead (for
// fresgld logistic --label y, with the prior sds it prints on stderr).
//
//	go run ./bench/slabref                 # wdbc's ten mean_ features
//	go run ./bench/slabref -n 100000       # generated, N = 10⁵
//	go run ./bench/slabref -n 100000 -csv > slab1e5.csv
//	go run ./bench/slabref -n 1000000 -q 6 -draws 5000
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/experiments/slablogit"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/results"
)

func main() {
	n := flag.Int("n", 0, "generated rows (0: wdbc's ten mean_ features)")
	seed := flag.Uint64("seed", 1, "seed of the generated data, the reference's draws and the mode search")
	draws := flag.Int("draws", models.SlabExactDraws, "the reference's importance draws")
	spike := flag.Float64("spike-sd", 0, "the spike's sd s0 (0: the workload's; on wdbc 0.02, on generated data 0.02·√(569/N))")
	csv := flag.Bool("csv", false, "write the workload as CSV on stdout instead")
	q := flag.Int("q", 10, "generated data: the first q of the ten features")
	search := flag.Bool("search", true, "also run the plan's mode search and print its barrier")
	reference := flag.Bool("reference", true, "compute and print the reference (false: the mode search alone)")
	flag.Parse()
	benchmain.Check("slabref", run(*n, *q, *seed, *draws, *spike, *csv, *search, *reference))
}

func run(n, q int, seed uint64, draws int, spike float64, csv, search, reference bool) error {
	pr := slablogit.Prior
	if n > 0 {
		pr = slablogit.SyntheticPrior(n)
	}
	if spike > 0 {
		pr.Spike = spike
	}
	var w *slablogit.Workload
	var err error
	if n == 0 {
		w, err = slablogit.WDBC(pr)
	} else {
		w, err = slablogit.SyntheticQ(n, q, seed)
		if err == nil && spike > 0 {
			w.LR, err = models.NewSlabLogistic(w.LR.X, w.LR.Y, w.LR.P, 1, pr, 0)
		}
	}
	if err != nil {
		return err
	}
	if csv {
		fmt.Fprintf(os.Stderr, "%s; run it with: fresgld logistic --label y --prior spike-slab --spike-sd %.6g --slab-sd %.6g --slab-weight %g\n", w.Note, pr.Spike, pr.Slab, pr.W)
		return w.WriteCSV(os.Stdout)
	}
	fmt.Println(w.Note)
	fmt.Printf("prior: w = %g, s0 = %.4g, s1 = %.4g, intercept N(0, 1)\n", pr.W, pr.Spike, pr.Slab)
	if reference {
		if err := printReference(w, draws, seed); err != nil {
			return err
		}
	}
	if !search {
		return nil
	}
	m := analysis.LogisticModel(w.LR, w.Names)
	start := time.Now()
	starts, err := m.Starts()
	if err != nil {
		return err
	}
	s, err := modes.SearchModesFrom(m.Terms, make([]float64, w.LR.P), starts, seed)
	if err != nil {
		return err
	}
	fmt.Printf("mode search (the plan's, %.1fs): %s; barrier %.3g nats\n", time.Since(start).Seconds(), s.Line(), s.Barrier())
	return nil
}

// printReference prints w's reference (models.SlabExact) with its cost
// and heaviest patterns.
func printReference(w *slablogit.Workload, draws int, seed uint64) error {
	ref, err := w.LR.SlabExact(draws, seed)
	if err != nil {
		return err
	}
	fmt.Println(ref.Cost())
	fmt.Printf("%-24s %9s %9s\n", "coefficient", "inclusion", "mcse")
	for j, name := range w.Names {
		if j == 0 {
			continue
		}
		fmt.Printf("%-24s %9.4f %9.2g\n", name, ref.Inclusion[j], ref.InclSE[j])
	}
	fmt.Printf("patterns holding 99%% of the weight: %d of %d\n", ref.Patterns99, ref.Enumerated)
	for k, pt := range ref.Patterns[:min(3, len(ref.Patterns))] {
		fmt.Printf("pattern %d: weight %.4f ± %.2g, slab: %v\n", k+1, pt.Weight, ref.PatternSE[k], results.PatternOf(pt, w.Names).Included)
	}
	return nil
}
