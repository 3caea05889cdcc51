package swaps

import (
	"encoding/json"
	"math"
	"sync"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/report"
)

// Modes are the swap-energy modes a tuning run tries for each exchange
// method; DrawEnergies is the earlier behaviour, run for the record and
// never chosen.
var Modes = []exchange.EnergyMode{exchange.DrawEnergies, exchange.MinibatchEnergies, exchange.CVEnergies, exchange.PairEnergies, exchange.PairCVEnergies, exchange.ExactEnergies, exchange.TaylorEnergies, exchange.PairTaylorEnergies}

// TuneSeed is the first seed of tuning runs; comparison runs use seeds from
// 1, so the two never share a seed.
const TuneSeed = 1001

// Arm is a method under a swap-energy mode.
type Arm struct {
	Method exchange.Method
	Mode   exchange.EnergyMode
}

func (a Arm) String() string {
	if a.Method == exchange.SGLDMethod {
		return string(a.Method)
	}
	return string(a.Method) + " (" + a.Mode.String() + ")"
}

// Group summarises an arm's runs.
type Group struct {
	Arm      string
	Mean, SE [][]float64 // [budget][metric]
	// ReachReSGLD[k] is the budget at which the mean of metric k first falls
	// to the reSGLD arm's final mean (NaN if never).
	ReachReSGLD []float64
	// SwapRate is the mean over seeds of accepts/attempts; ExactRate the
	// mean exact min(1, S) over checked attempts (pooled): the acceptance
	// exact energies would give on the same path.
	SwapRate, ExactRate, Noise float64
	// CapRate is the mean over seeds of the share of attempts declined for
	// swap noise above MaxNoise.
	CapRate             float64
	Accepts, LowAccepts int
	// LowFrac is the fraction of accepted swaps with exact min(1, S) < Low;
	// LowPred what min(1, S) predicts for it (pooled over seeds).
	LowFrac, LowPred, MinLogS float64
	// SwapShare is the mean share of the cost spent on swap energies and
	// anchors; Extra the same cost over the rest (gradients).
	SwapShare, Extra, Steps float64
	Runs                    []Result `json:"-"`
}

// runArms runs every arm for seeds first..first+seeds−1 on workers.
func runArms(pr minibatch.Problem, arms []Arm, levels int, first uint64, seeds, workers int, progress func(done, total int)) ([][]Result, error) {
	out := make([][]Result, len(arms))
	for i := range out {
		out[i] = make([]Result, seeds)
	}
	type job struct{ a, s int }
	jobs := make(chan job)
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r, err := Run(pr, arms[j.a].Method, arms[j.a].Mode, levels, first+uint64(j.s))
				mu.Lock()
				out[j.a][j.s] = r
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if progress != nil {
					progress(done, len(arms)*seeds)
				}
				mu.Unlock()
			}
		}()
	}
	for a := range arms {
		for s := range seeds {
			jobs <- job{a, s}
		}
	}
	close(jobs)
	wg.Wait()
	return out, firstErr
}

func summarize(pr minibatch.Problem, arm Arm, runs []Result) Group {
	g := Group{Arm: arm.String(), Runs: runs, MinLogS: math.Inf(1)}
	nb, nm := len(pr.Setting.Budgets), len(pr.Metrics)
	xs := make([]float64, len(runs))
	for b := range nb {
		mean, se := make([]float64, nm), make([]float64, nm)
		for k := range nm {
			for i, r := range runs {
				xs[i] = r.Score[b][k]
			}
			mean[k], se[k] = diag.MeanSE(xs)
		}
		g.Mean, g.SE = append(g.Mean, mean), append(g.SE, se)
	}
	n := float64(len(runs))
	var checked int
	var exact, low float64
	for _, r := range runs {
		if r.Attempts > 0 {
			g.SwapRate += float64(r.Accepts) / float64(r.Attempts) / n
			g.CapRate += float64(r.Capped) / float64(r.Attempts) / n
		}
		g.Noise += r.Noise / n
		g.Accepts += r.Accepts
		g.LowAccepts += r.LowAccepts
		checked += r.Checked
		exact += r.ExactAcc
		low += r.LowMass
		g.MinLogS = math.Min(g.MinLogS, r.MinLogS)
		sw := r.SwapCost + r.AnchorCost
		g.SwapShare += sw / r.Cost / n
		g.Extra += sw / (r.Cost - sw) / n
		g.Steps += float64(r.Steps) / n
	}
	g.ExactRate, g.LowFrac, g.LowPred = math.NaN(), math.NaN(), math.NaN()
	if checked > 0 {
		g.ExactRate = exact / float64(checked)
	}
	if g.Accepts > 0 {
		g.LowFrac = float64(g.LowAccepts) / float64(g.Accepts)
	}
	if exact > 0 {
		g.LowPred = low / exact
	}
	return g
}

// Tuning is the tuning run: every exchange method under every mode.
type Tuning struct {
	Seeds  int
	Groups []Group
	// Best[m] is the mode chosen for exchange method m: the lowest mean of
	// the first metric at the largest budget among the data modes, ties
	// broken by the higher swap acceptance.
	Best map[exchange.Method]exchange.EnergyMode
}

// Tune runs the tuning arms on seeds TuneSeed.. and picks each method's mode.
func Tune(pr minibatch.Problem, modes []exchange.EnergyMode, levels, seeds, workers int, progress func(done, total int)) (Tuning, error) {
	var arms []Arm
	methods := []exchange.Method{exchange.ReSGLDMethod, exchange.MReSGLDMethod, exchange.FReSGLDMethod}
	for _, m := range methods {
		for _, mode := range modes {
			arms = append(arms, Arm{m, mode})
		}
	}
	runs, err := runArms(pr, arms, levels, TuneSeed, seeds, workers, progress)
	if err != nil {
		return Tuning{}, err
	}
	t := Tuning{Seeds: seeds, Best: map[exchange.Method]exchange.EnergyMode{}}
	best := map[exchange.Method]Group{}
	last := len(pr.Setting.Budgets) - 1
	for i, a := range arms {
		g := summarize(pr, a, runs[i])
		t.Groups = append(t.Groups, g)
		if a.Mode == exchange.DrawEnergies {
			continue
		}
		// The lowest final metric; on a tie (every arm stuck in one mode
		// scores the same), the higher swap acceptance.
		b, ok := best[a.Method]
		v, w := g.Mean[last][0], b.Mean
		if !ok || v < w[last][0] || (v == w[last][0] && g.SwapRate > b.SwapRate) {
			best[a.Method], t.Best[a.Method] = g, a.Mode
		}
	}
	return t, nil
}

// Comparison is the measurement: SGLD and each exchange method under its
// chosen mode, plus f-reSGLD under the earlier same-draw energies.
type Comparison struct {
	Seeds  int
	Groups []Group
}

// Compare runs the comparison arms on seeds 1..seeds.
func Compare(pr minibatch.Problem, best map[exchange.Method]exchange.EnergyMode, withDraw bool, levels, seeds, workers int, progress func(done, total int)) (Comparison, error) {
	arms := []Arm{{Method: exchange.SGLDMethod}}
	for _, m := range []exchange.Method{exchange.ReSGLDMethod, exchange.MReSGLDMethod, exchange.FReSGLDMethod} {
		arms = append(arms, Arm{m, best[m]})
	}
	if withDraw {
		arms = append(arms, Arm{exchange.FReSGLDMethod, exchange.DrawEnergies})
	}
	runs, err := runArms(pr, arms, levels, 1, seeds, workers, progress)
	if err != nil {
		return Comparison{}, err
	}
	c := Comparison{Seeds: seeds}
	for i, a := range arms {
		c.Groups = append(c.Groups, summarize(pr, a, runs[i]))
	}
	final := c.Groups[1].Mean[len(pr.Setting.Budgets)-1] // reSGLD
	for i := range c.Groups {
		g := &c.Groups[i]
		for k := range pr.Metrics {
			g.ReachReSGLD = append(g.ReachReSGLD, minibatch.Reach(pr.Setting.Budgets, g.Mean, k, final[k]))
		}
	}
	return c, nil
}

// MarshalJSON writes NaN and infinities (a quantity with nothing to
// measure: no accepted swap, a target not reached) as null.
func (g Group) MarshalJSON() ([]byte, error) {
	type plain Group // without this method
	return json.Marshal(struct {
		plain
		Mean, SE, ReachReSGLD                                                 any
		SwapRate, ExactRate, Noise, CapRate, LowFrac, LowPred, MinLogS, Extra any
	}{plain(g), report.Nums2(g.Mean), report.Nums2(g.SE), report.Nums(g.ReachReSGLD), report.Num(g.SwapRate), report.Num(g.ExactRate), report.Num(g.Noise), report.Num(g.CapRate), report.Num(g.LowFrac), report.Num(g.LowPred), report.Num(g.MinLogS), report.Num(g.Extra)})
}
