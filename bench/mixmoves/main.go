// Command mixmoves measures the default mixture kernel's sweeps per
// effective draw (τ_int, from the bulk ESS of the slowest generated
// quantity over 4 chains) and CPU seconds a sweep, against the pair moves
// a sweep, on n values in two clusters 20 sds apart, K = 4: the
// measurement behind analysis.mixMoves's rule at large n.
//
//	go run ./bench/mixmoves -n 100000 -moves 0.25,1,4
//	go run ./bench/mixmoves -n 200 -write y200.csv
//
// -three takes instead n values of three overlapping normals (weights
// 0.5, 0.3, 0.2, means −2, 1, 4, sds 1, 0.5, 0.8; seed 53), the 10⁶-value
// case of docs/experiments/mixstudy.md; -data reads column y of a CSV.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/plan"
)

func main() {
	n := flag.Int("n", 100_000, "values")
	k := flag.Int("k", 4, "components")
	sweeps := flag.Int("sweeps", 300, "sweeps a chain (the first fifth burnt)")
	list := flag.String("moves", "0.25,1,4", "pair moves a sweep, comma-separated")
	write := flag.String("write", "", "only write the n values to this CSV (column y), as issue 53's synthetic cases")
	three := flag.Bool("three", false, "three overlapping normals (w 0.5, 0.3, 0.2; μ −2, 1, 4; σ 1, 0.5, 0.8), not two clusters 20 sds apart")
	data := flag.String("data", "", "read the values from column y of this CSV (after its header line), not generate them")
	flag.Parse()
	y := make([]float64, *n)
	prec := -1
	switch {
	case *data != "":
		b, err := os.ReadFile(*data)
		if err != nil {
			panic(err)
		}
		y = y[:0]
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
			if err != nil {
				panic(err)
			}
			y = append(y, v)
		}
		*n = len(y)
	case *three:
		rng := rand.New(rand.NewPCG(53, 1))
		for i := range y {
			switch u := rng.Float64(); {
			case u < 0.5:
				y[i] = -2 + rng.NormFloat64()
			case u < 0.8:
				y[i] = 1 + 0.5*rng.NormFloat64()
			default:
				y[i] = 4 + 0.8*rng.NormFloat64()
			}
		}
		prec = 8
	default:
		rng := rand.New(rand.NewPCG(uint64(*n), 20))
		for i := range y {
			y[i] = rng.NormFloat64() + 20*float64(i%2)
		}
	}
	if *write != "" {
		var b strings.Builder
		b.WriteString("y\n")
		for _, v := range y {
			b.WriteString(strconv.FormatFloat(v, 'g', prec, 64) + "\n")
		}
		if err := os.WriteFile(*write, []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
		return
	}
	m, err := finitemix.NewFiniteMixture(y, *k, 1)
	if err != nil {
		panic(err)
	}
	model := plan.MixtureModel(m)
	g := len(model.Generated)
	fmt.Printf("n = %d, K = %d, %d chains × %d sweeps\n", *n, *k, 4, *sweeps)
	for _, s := range strings.Split(*list, ",") {
		moves, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		draws := make([][][]float64, g)
		for q := range draws {
			draws[q] = make([][]float64, 4)
		}
		start := time.Now()
		cpu0 := cpuNow()
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(9, uint64(c)))
				d := m.DA(moves)
				theta := make([]float64, m.Dim())
				d.Start(theta, r, finitemix.MixStart(c))
				out := make([]float64, g)
				for t := range *sweeps {
					d.Step(theta, r)
					if t < *sweeps/5 {
						continue
					}
					model.Generate(out, theta)
					for q, v := range out {
						draws[q][c] = append(draws[q][c], v)
					}
				}
			})
		}
		wg.Wait()
		ess, worst := math.Inf(1), ""
		for q, ch := range draws {
			if e := diag.ESSBulk(ch); !math.IsNaN(e) && e < ess {
				ess, worst = e, model.Generated[q]
			}
		}
		kept := 4 * (*sweeps - *sweeps/5)
		iat := float64(kept) / ess
		// The process's CPU seconds (the generated quantities' included),
		// not wall time: the machine is shared.
		per := (cpuNow() - cpu0) / float64(4**sweeps)
		fmt.Printf("moves %5.2f: τ_int %6.2f sweeps (slowest %s), %.4f CPU s a sweep with its draw's generated quantities, %.4f CPU s per effective draw; %.0f s wall in all\n",
			moves, iat, worst, per, per*iat, time.Since(start).Seconds())
	}
}

// cpuNow is the process's user and system CPU seconds so far.
func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
