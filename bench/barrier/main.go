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
//	go run ./bench/barrier -data FILE.csv -column NAME -components 4   # a mixture of normals on a column of your own
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/experiments/tempering"
	"github.com/fresgld/fresgld/models"
)

func main() {
	names := flag.String("workloads", "", "comma-separated workloads (empty: all)")
	seeds := flag.Int("seeds", 5, "searches, seeds 1 to this")
	data := flag.String("data", "", "instead of the workloads, a mixture of normals (fresgld mixture's model) on a column of this CSV file")
	column := flag.String("column", "", "with -data: the column, a header name or a number from 1")
	k := flag.Int("components", 4, "with -data: the mixture's components")
	flag.Parse()
	var ws []*tempering.Workload
	var err error
	if *data != "" {
		ws, err = mixture(*data, *column, *k)
	} else {
		var want []string
		if *names != "" {
			want = strings.Split(*names, ",")
		}
		if ws, err = tempering.Workloads(want...); errors.Is(err, tempering.ErrNoWorkload) {
			err = fmt.Errorf("-workloads: %w", err)
		}
	}
	if err == nil {
		err = run(ws, *seeds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "barrier:", err)
		os.Exit(1)
	}
}

// mixture is fresgld mixture's model on the column of the file, as a
// workload without a reference (none is read here).
func mixture(path, column string, k int) ([]*tempering.Workload, error) {
	c, err := dataset.ReadColumn(path, column, false)
	if err != nil {
		return nil, err
	}
	m, err := models.NewFiniteMixture(c.Values, k, 1)
	if err != nil {
		return nil, err
	}
	return []*tempering.Workload{{Name: fmt.Sprintf("%s-k%d", c.Name, k), Model: analysis.MixtureModel(m)}}, nil
}

func run(ws []*tempering.Workload, seeds int) error {
	fmt.Printf("%-24s %4s %5s %13s %10s %8s\n", "workload", "seed", "modes", "segment_nats", "path_nats", "path_s")
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
