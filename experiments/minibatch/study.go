package minibatch

import (
	"math"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/exchange"
)

// MethodSummary is one method's results over the seeds.
type MethodSummary struct {
	Method string
	// Mean[b][k] and SE[b][k]: metric k at budget b, mean and standard
	// error over the seeds.
	Mean, SE [][]float64
	// Reach[k] is the budget at which the mean of metric k first falls to
	// the problem's target, interpolated log-linearly between budgets; NaN
	// if it never does within the budgets.
	Reach []float64
	// ReachReSGLD[k] is the budget at which the mean of metric k first
	// falls to reSGLD's mean at the largest budget: the cost of reSGLD's
	// final accuracy.
	ReachReSGLD []float64
	// Mean over seeds of: the hot level's share of the cost, the swap
	// acceptance rate (accepts per attempt), steps taken, clamped steps per
	// step (cold, hot), and the hot chain's final minibatch size.
	HotShare, SwapRate, Steps float64
	ClampCold, ClampHot       float64
	HotN                      float64
	HotNLo, HotNHi            int
	AutoBelow, AutoAbove      int
	Runs                      []RunResult `json:"-"`
}

// Summary is a problem's study.
type Summary struct {
	Problem string
	Setting Setting
	Metrics []string
	Targets []float64
	Seeds   int
	Methods []MethodSummary
}

// Study runs every method on pr for seeds 1..seeds on workers goroutines
// (each run is sequential and seeded, so results do not depend on workers).
func Study(pr Problem, methods []exchange.Method, seeds, workers int, progress func(done, total int)) (Summary, error) {
	results := make([][]RunResult, len(methods))
	for i := range results {
		results[i] = make([]RunResult, seeds)
	}
	err := runAll(len(methods), seeds, workers, progress, func(m, s int) (err error) {
		results[m][s], err = Run(pr, methods[m], uint64(s+1))
		return err
	})
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Problem: pr.Name, Setting: pr.Setting, Metrics: pr.Metrics, Targets: pr.Targets, Seeds: seeds}
	for m, runs := range results {
		sum.Methods = append(sum.Methods, summarize(pr, string(methods[m]), runs))
	}
	for _, re := range sum.Methods {
		if re.Method != string(exchange.ReSGLDMethod) {
			continue
		}
		final := re.Mean[len(re.Mean)-1]
		for i := range sum.Methods {
			m := &sum.Methods[i]
			for k := range pr.Metrics {
				m.ReachReSGLD = append(m.ReachReSGLD, Reach(pr.Setting.Budgets, m.Mean, k, final[k]))
			}
		}
	}
	return sum, nil
}

func summarize(pr Problem, method string, runs []RunResult) MethodSummary {
	nb, nm := len(pr.Setting.Budgets), len(pr.Metrics)
	ms := MethodSummary{Method: method, Runs: runs, HotNLo: math.MaxInt}
	xs := make([]float64, len(runs))
	for b := 0; b < nb; b++ {
		mean, se := make([]float64, nm), make([]float64, nm)
		for k := 0; k < nm; k++ {
			for i, r := range runs {
				xs[i] = r.Score[b][k]
			}
			mean[k], se[k] = diag.MeanSE(xs)
		}
		ms.Mean = append(ms.Mean, mean)
		ms.SE = append(ms.SE, se)
	}
	for k := 0; k < nm; k++ {
		ms.Reach = append(ms.Reach, Reach(pr.Setting.Budgets, ms.Mean, k, pr.Targets[k]))
	}
	n := float64(len(runs))
	for _, r := range runs {
		ms.HotShare += r.HotCost / r.Cost / n
		if r.SwapAttempts > 0 {
			ms.SwapRate += float64(r.SwapAccepts) / float64(r.SwapAttempts) / n
		}
		ms.Steps += float64(r.Steps) / n
		ms.ClampCold += float64(r.ClampedCold) / float64(r.Steps) / n
		ms.ClampHot += float64(r.ClampedHot) / float64(r.Steps) / n
		ms.HotN += float64(r.HotN) / n
		ms.HotNLo, ms.HotNHi = min(ms.HotNLo, r.HotNLo), max(ms.HotNHi, r.HotNHi)
		ms.AutoBelow += r.AutoBelow
		ms.AutoAbove += r.AutoAbove
	}
	return ms
}

// Reach is the budget at which mean[·][k] first falls to target,
// interpolated log-linearly between the budgets around it (NaN if never).
func Reach(budgets []float64, mean [][]float64, k int, target float64) float64 {
	for b := range budgets {
		v := mean[b][k]
		if !(v <= target) {
			continue
		}
		if b == 0 {
			return budgets[0]
		}
		u := mean[b-1][k]
		if math.IsNaN(u) || u <= v {
			return budgets[b]
		}
		// log-linear in the budget between the two points around the target
		t := (u - target) / (u - v)
		return math.Exp(math.Log(budgets[b-1]) + t*(math.Log(budgets[b])-math.Log(budgets[b-1])))
	}
	return math.NaN()
}
