// Command barrier prints, for the tempering study's workloads
// (experiments/tempering), the barrier between the modes the plan's
// search finds read two ways: along the straight segments from the
// heaviest mode, which the plan sizes its ladder from today, and along the
// lowest paths the string method finds (analysis.PathBarrier), nearer the
// pass a chain crosses. Each seed is a search of its own, as each run of
// the study makes.
//
//	go run ./bench/barrier                          # every workload, seeds 1–5
//	go run ./bench/barrier -workloads galaxies-mixture-k4 -seeds 3
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/experiments/tempering"
)

func main() {
	names := flag.String("workloads", "", "comma-separated workloads (empty: all)")
	seeds := flag.Int("seeds", 5, "searches, seeds 1 to this")
	flag.Parse()
	if err := run(*names, *seeds); err != nil {
		fmt.Fprintln(os.Stderr, "barrier:", err)
		os.Exit(1)
	}
}

func run(names string, seeds int) error {
	var want []string
	if names != "" {
		want = strings.Split(names, ",")
	}
	ws, err := tempering.Workloads(want...)
	if err != nil {
		return err
	}
	fmt.Printf("%-24s %4s %5s %13s %10s %8s\n", "workload", "seed", "modes", "segment_nats", "path_nats", "path_s")
	for _, w := range ws {
		m := w.Model
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			var extra [][]float64
			if m.Starts != nil {
				if extra, err = m.Starts(); err != nil {
					return err
				}
			}
			s, err := analysis.SearchModesFrom(m.Terms, make([]float64, m.Terms.Dim()), extra, seed)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", w.Name, seed, err)
			}
			start := time.Now()
			path, err := s.PathBarrier(m.Terms)
			if err != nil {
				return fmt.Errorf("%s, seed %d: %w", w.Name, seed, err)
			}
			fmt.Printf("%-24s %4d %5d %13.3g %10.3g %8.2f\n", w.Name, seed, len(s.Modes), s.Barrier(), path, time.Since(start).Seconds())
		}
	}
	return nil
}
