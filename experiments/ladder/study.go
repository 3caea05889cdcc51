package ladder

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fresgld/fresgld/experiments/report"
	"github.com/fresgld/fresgld/output"
)

// Study runs every ladder on every problem over seeds 1..Seeds, each run
// with the same Budget of cost units.
type Study struct {
	Problems []Problem
	Ladders  []Ladder
	Seeds    int
	Budget   float64
	BurnFrac float64
	Workers  int
	// Progress, when set, makes a progress callback for the study's runs
	// (nil callback: none), called after each run with the runs done.
	Progress func(label string, total int) func(done, total int)
}

// Run runs the study, workers in parallel; the rows do not depend on how
// many. Its progress goes to s.Progress's callback, or else to log as a
// count of runs redrawn in place.
func (s Study) Run(log io.Writer) ([]Row, error) {
	type job struct{ p, l, seed int }
	var jobs []job
	for p := range s.Problems {
		for l := range s.Ladders {
			for seed := 1; seed <= s.Seeds; seed++ {
				jobs = append(jobs, job{p, l, seed})
			}
		}
	}
	rows := make([]Row, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	prog := func(done, total int) { fmt.Fprintf(log, "\r%d/%d runs", done, total) }
	if s.Progress != nil {
		prog = s.Progress("ladder", len(jobs))
		if prog == nil {
			prog = func(int, int) {}
		}
	}
	for range max(s.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				rows[i], errs[i] = Run(s.Problems[j.p], s.Ladders[j.l], uint64(j.seed), s.Budget, s.BurnFrac)
				mu.Lock()
				done++
				prog(done, len(jobs))
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if s.Progress == nil {
		fmt.Fprintln(log)
	}
	for _, err := range errs {
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// Summary is one ladder's results on one problem over the seeds.
type Summary struct {
	Problem, Ladder string
	Levels          report.Stat
	Lambda          report.Stat
	RoundTrips      report.Stat
	Restarts        report.Stat
	TripRate        report.Stat // per DEO round (per step under sweep)
	Bound           report.Stat // 1/(2 + 2Λ̂)
	OfBound         report.Stat // TripRate / Bound
	ELE             report.Stat // 1/(2 + 2Σ r/(1 − r)): DEO's rate with fresh energies every round
	VsSweep         float64     // mean round trips / the sweep's mean round trips
	TuneShare       report.Stat // share of the budget spent tuning
	Wall            report.Stat
	Metrics         map[string]report.Stat
}

func stat(xs []float64) report.Stat {
	n := float64(len(xs))
	var m, v float64
	for _, x := range xs {
		m += x / n
	}
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) < 2 {
		return report.Stat{Mean: m, SE: math.NaN()}
	}
	return report.Stat{Mean: m, SE: math.Sqrt(v / (n - 1) / n)}
}

// Summarise reduces the rows to one summary per problem and ladder, in the
// study's order; VsSweep is against the study's first ladder.
func (s Study) Summarise(rows []Row) []Summary {
	var out []Summary
	for _, p := range s.Problems {
		var base float64
		for li, l := range s.Ladders {
			var rs []Row
			for _, r := range rows {
				if r.Problem == p.Name && r.Ladder == l.Name {
					rs = append(rs, r)
				}
			}
			col := func(f func(Row) float64) report.Stat {
				xs := make([]float64, len(rs))
				for i, r := range rs {
					xs[i] = f(r)
				}
				return stat(xs)
			}
			sm := Summary{Problem: p.Name, Ladder: l.Name, Metrics: map[string]report.Stat{},
				Levels:     col(func(r Row) float64 { return float64(r.Levels) }),
				Lambda:     col(func(r Row) float64 { return r.Lambda }),
				RoundTrips: col(func(r Row) float64 { return float64(r.RoundTrips) }),
				Restarts:   col(func(r Row) float64 { return float64(r.Restarts) }),
				TripRate:   col(func(r Row) float64 { return r.TripRate }),
				Bound:      col(func(r Row) float64 { return r.Bound }),
				OfBound:    col(func(r Row) float64 { return r.TripRate / r.Bound }),
				ELE:        col(func(r Row) float64 { return ele(r.Rejection) }),
				TuneShare:  col(func(r Row) float64 { return r.TuneUnits / r.Units }),
				Wall:       col(func(r Row) float64 { return r.Wall }),
			}
			for _, m := range p.Metrics {
				sm.Metrics[m] = col(func(r Row) float64 { return r.Metrics[m] })
			}
			if li == 0 {
				base = sm.RoundTrips.Mean
			}
			sm.VsSweep = sm.RoundTrips.Mean / base
			out = append(out, sm)
		}
	}
	return out
}

// ele is Syed et al.'s round-trip rate of non-reversible PT when each round
// sees fresh, independent energies: 1/(2 + 2Σ r_i/(1 − r_i)).
func ele(rej []float64) float64 {
	var s float64
	for _, r := range rej {
		s += r / (1 - r)
	}
	return 1 / (2 + 2*s)
}

// Markdown is the study's table, one per problem.
func (s Study) Markdown(sums []Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d seeds a ladder; every run spends %s cost units (gradient and energy evaluations of all levels, tuning included); the cold level is recorded after %.0f%% of the budget.\n",
		s.Seeds, report.G(s.Budget), 100*s.BurnFrac)
	prob := ""
	for _, sm := range sums {
		if sm.Problem != prob {
			prob = sm.Problem
			var p Problem
			for _, q := range s.Problems {
				if q.Name == prob {
					p = q
				}
			}
			fmt.Fprintf(&b, "\n### %s\n\n| ladder | K | Λ̂ | round trips | × sweep | rate/round | 1/(2+2Λ̂) | rate / bound | ELE rate | tuning share |", prob)
			for _, m := range p.Metrics {
				fmt.Fprintf(&b, " %s |", m)
			}
			b.WriteString("\n|---|---|---|---|---|---|---|---|---|---|")
			b.WriteString(strings.Repeat("---|", len(p.Metrics)) + "\n")
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %s | %.2f | %s | %s | %s | %s | %s |", sm.Ladder, sm.Levels.Mean, sm.Lambda, sm.RoundTrips, sm.VsSweep, sm.TripRate, sm.Bound, sm.OfBound, sm.ELE, sm.TuneShare)
		for _, q := range s.Problems {
			if q.Name == sm.Problem {
				for _, m := range q.Metrics {
					fmt.Fprintf(&b, " %s |", sm.Metrics[m])
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Write saves the rows (ladder.json) and the table (ladder.md) in dir and
// returns the table.
func (s Study) Write(rows []Row, dir string) (string, error) {
	md := s.Markdown(s.Summarise(rows))
	if err := output.WriteFile(filepath.Join(dir, "ladder.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(rows)
	}); err != nil {
		return "", err
	}
	if err := output.WriteFile(filepath.Join(dir, "ladder.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	}); err != nil {
		return "", err
	}
	return md, nil
}
