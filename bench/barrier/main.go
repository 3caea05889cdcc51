// Command barrier prints, for the tempering study's workloads
// (experiments/tempering), the barrier between the modes the plan's
// search finds read two ways: along the straight segments from the
// heaviest mode, which the plan sizes its ladder from today, and along the
// lowest paths the string method finds (modes.PathBarrier), nearer the
// pass a chain crosses. Each seed is a search of its own, as each run of
// the study makes.
//
//	go run ./bench/barrier                          # every workload, seeds 1–5
//	go run ./bench/barrier -workloads galaxies-mixture-k4 -seeds 3
//	go run ./bench/barrier -data FILE.csv -column NAME -components 4   # a mixture of normals on a column of your own
//	go run ./bench/barrier -data FILE.csv -column 1 -components 6 -dirichlet 0.1 -reference
//
// With -reference a mixture's line first gives the Gibbs reference's
// posterior of the number of clusters K+, and each seed's line the total
// variation between P(K+ | θ) at the heaviest mode and at the mode behind
// the highest lowest-path pass: near 0 when the pass separates two
// explanations with the same number of clusters, which a score in K+
// cannot tell apart. screen-data.R writes the data sets of the screen in
// docs/experiments/tempering.md that runs this on many columns.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/experiments/tempering"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/plan"
)

func main() {
	names := flag.String("workloads", "", "comma-separated workloads (empty: all)")
	seeds := flag.Int("seeds", 5, "searches, seeds 1 to this")
	data := flag.String("data", "", "instead of the workloads, a mixture of normals (fresgld mixture's model) on a column of this CSV file")
	column := flag.String("column", "", "with -data: the column, a header name or a number from 1")
	k := flag.Int("components", 4, "with -data: the mixture's components")
	e0 := flag.Float64("dirichlet", 1, "with -data: the weights' Dirichlet parameter e0")
	ref := flag.Bool("reference", false, "with -data: the Gibbs reference's P(K+ = k), and K+ on either side of the highest pass")
	flag.Parse()
	var ws []*tempering.Workload
	var kplus func(theta []float64) []float64
	var err error
	switch {
	case *data != "":
		ws, kplus, err = mixture(*data, *column, *k, *e0, *ref)
	case *ref:
		err = errors.New("-reference: needs -data (the study's workloads carry their own references)")
	default:
		var want []string
		if *names != "" {
			want = strings.Split(*names, ",")
		}
		if ws, err = tempering.Workloads(want...); errors.Is(err, tempering.ErrNoWorkload) {
			err = fmt.Errorf("-workloads: %w", err)
		}
	}
	if err == nil {
		err = run(ws, *seeds, kplus)
	}
	benchmain.Check("barrier", err)
}

// mixture is fresgld mixture's model on the column of the file, as a
// workload. With ref it is the study's mixture workload
// (tempering.Mixture), whose Gibbs reference of K+ it prints, and it
// returns P(K+ = k | θ) for the seeds' lines.
func mixture(path, column string, k int, e0 float64, ref bool) ([]*tempering.Workload, func(theta []float64) []float64, error) {
	c, err := dataset.ReadColumn(path, column, false)
	if err != nil {
		return nil, nil, err
	}
	m, err := finitemix.NewFiniteMixture(c.Values, k, e0)
	if err != nil {
		return nil, nil, err
	}
	name := fmt.Sprintf("%s-k%d", c.Name, k)
	if !ref {
		return []*tempering.Workload{{Name: name, Model: plan.MixtureModel(m)}}, nil, nil
	}
	w, err := tempering.Mixture(name, c.Values, k, e0)
	if err != nil {
		return nil, nil, err
	}
	fmt.Printf("%s: %d values, e0 = %g; the Gibbs reference's P(K+ = 1..%d): %.3f (%s)\n", name, len(c.Values), e0, k, w.Ref, w.RefNote)
	kplus := func(theta []float64) []float64 {
		out := make([]float64, m.K)
		tempering.Clusters(m, out, theta)
		return out
	}
	return []*tempering.Workload{w}, kplus, nil
}

// run prints each seed's search and barriers; with kplus (a mixture's
// P(K+ = k | θ)) also the total variation in K+ across the highest pass.
func run(ws []*tempering.Workload, seeds int, kplus func(theta []float64) []float64) error {
	fmt.Printf("%-24s %4s %5s %13s %10s %8s", "workload", "seed", "modes", "segment_nats", "path_nats", "path_s")
	if kplus != nil {
		fmt.Printf(" %10s", "kplus_tv")
	}
	fmt.Println()
	for _, w := range ws {
		m := w.Model
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			var extra [][]float64
			if m.Starts != nil {
				var err error
				if extra, err = m.Starts(); err != nil {
					return err
				}
			}
			s, err := modes.SearchModesFrom(m.Terms, make([]float64, m.Terms.Dim()), extra, seed)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", w.Name, seed, err)
			}
			start := time.Now()
			bs, err := s.PathBarriers(m.Terms)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", w.Name, seed, err)
			}
			far := 0 // the mode behind the highest pass; 0 where no path was read
			for i, b := range bs {
				if b > bs[far] {
					far = i
				}
			}
			fmt.Printf("%-24s %4d %5d %13.3g %10.3g %8.2f", w.Name, seed, len(s.Modes), s.Barrier(), bs[far], time.Since(start).Seconds())
			if kplus != nil {
				fmt.Printf(" %10.3f", kplusTV(kplus, s.Modes[0].Theta, s.Modes[far].Theta))
			}
			fmt.Println()
		}
	}
	return nil
}

// kplusTV is the total variation between P(K+ = k | θ) at a and at b.
func kplusTV(kplus func(theta []float64) []float64, a, b []float64) float64 {
	pa, pb := kplus(a), kplus(b)
	var tv float64
	for i := range pa {
		tv += math.Abs(pa[i]-pb[i]) / 2
	}
	return tv
}
