// Command thinswap measures the thinned swap energies (--swap-energies
// thinned, exchange.ThinnedEnergies: swaps exact in law on a few examples)
// against exact energies every W = ⌈4KN/n⌉ steps (what --swap-energies
// auto took at 10⁶ rows before it offered thinned ones, its pilot finding
// the control-variate screens too noisy), on a logistic regression too
// large for swaps on the full data at every attempt: f-reSGLD on two
// levels and on the adaptive ladder, run through analysis.Run as `fresgld
// logistic --method fresgld [--levels auto] --swap-energies
// exact|thinned|auto` runs them. For each run
// it prints the swaps accepted, the round trips per 10⁶ cold steps, the
// shares of the cost in swaps (energies and anchor or expansion passes)
// and in tuning, the hot level's gradient cost per step against the cold
// level's (issue 28's goals at N = 10⁶ for a model without sufficient
// statistics), and the draws against the Laplace approximation at the
// mode, which at N = 10⁶ rows is the posterior to O(1/√N) of its sds: the
// largest error of a mean, in posterior sds, and the range of the sds'
// ratios to Laplace's. The cold level is SGLD, so these carry its step's
// bias; more swaps must not add to it.
//
//	go run ./bench/thinswap                     # N = 10⁶ rows, 10 features
//	go run ./bench/thinswap -ladders auto       # the adaptive ladder alone
//	go run ./bench/thinswap -swaps auto         # what --swap-energies auto chooses
//	go run ./bench/thinswap -n 100000 -chains 1
//
// A run that fails (the adaptive ladder's tuning, for one) gets a row with
// its error.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

func main() {
	n := flag.Int("n", 1_000_000, "rows")
	p := flag.Int("p", 10, "features (standard normal, models.SyntheticLogistic)")
	chains := flag.Int("chains", 2, "chains a run")
	seed := flag.Uint64("seed", 1, "seed of the data and of the runs")
	ladders := flag.String("ladders", "2,auto", "comma-separated ladders: 2 (two levels), auto (the adaptive ladder)")
	swapList := flag.String("swaps", "exact,thinned", "comma-separated --swap-energies settings, run for each ladder (exact: every W; auto: the automatic choice, which the row names)")
	flag.Parse()
	var levels []int
	for _, l := range strings.Split(*ladders, ",") {
		switch l {
		case "2":
			levels = append(levels, 2)
		case "auto":
			levels = append(levels, analysis.AutoLevels)
		default:
			fmt.Fprintf(os.Stderr, "thinswap: -ladders: %q is neither 2 nor auto\n", l)
			os.Exit(2)
		}
	}
	swaps := strings.Split(*swapList, ",")
	for _, s := range swaps {
		if _, err := exchange.ParseEnergyMode(s); err != nil && s != "auto" {
			fmt.Fprintf(os.Stderr, "thinswap: -swaps: %v\n", err)
			os.Exit(2)
		}
	}
	benchmain.Check("thinswap", run(*n, *p, *chains, *seed, levels, swaps))
}

func run(N, p, chains int, seed uint64, ladders []int, swapModes []string) error {
	lr, _, err := models.SyntheticLogistic(N, p, 1, seed)
	if err != nil {
		return err
	}
	names := make([]string, p)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	m := analysis.LogisticModel(lr, names)
	all := make([]int, N)
	for i := range all {
		all[i] = i
	}
	mode, h, err := lr.Mode(make([]float64, p), all, 100)
	if err != nil {
		return err
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return fmt.Errorf("the Hessian at the mode is not positive definite")
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return err
	}
	sd := make([]float64, p)
	for j := range sd {
		sd[j] = math.Sqrt(cov.At(j, j))
	}
	fmt.Printf("logistic regression, N = %d rows, %d standard normal features (models.SyntheticLogistic, seed %d), prior N(0, 1); %d chains a run\n\n", N, p, seed, chains)
	fmt.Println("| ladder | swap energies | levels | swaps accepted / attempted (coldest pair) | round trips per 10⁶ cold steps | swaps' share of cost | tuning's share | hot/cold gradient cost a step | largest mean error (Laplace sds) | sd / Laplace sd | CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, levels := range ladders {
		for _, swaps := range swapModes {
			o := analysis.DefaultOptions()
			o.Method, o.Levels, o.SwapEnergies, o.Seed = exchange.FReSGLDMethod, levels, swaps, seed
			o.Chains = ids(chains)
			dir, err := os.MkdirTemp("", "thinswap-")
			if err != nil {
				return err
			}
			o.Out, o.CheckpointEvery, o.Command = dir, 0, "thinswap"
			start := cputime.Process()
			res, err := analysis.Run(context.Background(), m, o)
			cpu := (cputime.Process() - start).Seconds()
			os.RemoveAll(dir)
			if err == nil {
				err = res.Err
			}
			if err != nil {
				fmt.Printf("| %s | %s | failed: %v | | | | | | | | %.1f |\n", ladderName(levels), swaps, err, cpu)
				continue
			}
			fmt.Println(row(res, levels, cpu, names, mode, sd))
		}
	}
	return nil
}

// row is one run's line of the table.
func row(res *analysis.Result, levels int, cpu float64, names []string, mode, sd []float64) string {
	var trips, steps, att, acc, K int
	var swap, cost, hot, cold float64
	for _, c := range res.Chains {
		st := c.Ladder
		K = max(K, len(st.Levels))
		steps += st.Steps
		trips += exchange.Sum(st.Replicas).RoundTrips
		if len(st.Pairs) > 0 {
			att += st.Pairs[0].Attempts
			acc += st.Pairs[0].Accepts
		}
		for _, l := range st.Levels {
			cost += l.Cost.Total()
			swap += l.Cost.TotalEnergy().Units + l.Cost.Anchor.Units
		}
		cold += st.Levels[0].Cost.TotalGrad().Units
		hot += st.Levels[len(st.Levels)-1].Cost.TotalGrad().Units
	}
	var tune float64
	if res.Tuning != nil {
		for _, rd := range res.Tuning.Rounds {
			tune += rd.Units()
		}
	}
	swapMode := "?"
	if res.Swap != nil && res.Swap.Swap != nil {
		swapMode = res.Swap.Swap.Mode
		if res.Options.SwapEnergies == "auto" {
			swapMode = "auto: " + swapMode
		}
	}
	worst, lo, hi := laplace(res.Chains, names, mode, sd)
	return fmt.Sprintf("| %s | %s | %d | %d / %d | %.4g | %.3f | %.3f | %.3f | %.3f | %.3f–%.3f | %.1f |", ladderName(levels), swapMode, K, acc, att,
		1e6*float64(trips)/float64(steps), swap/cost, tune/(tune+cost), hot/cold, worst, lo, hi, cpu)
}

func ladderName(levels int) string {
	if levels == analysis.AutoLevels {
		return "adaptive"
	}
	return "two levels"
}

// laplace compares the chains' pooled draws with N(mode, H⁻¹): the largest
// |mean − mode|/sd and the smallest and largest sd ratio.
func laplace(chains []*results.Chain, names []string, mode, sd []float64) (worst, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for j, name := range names {
		var xs []float64
		for _, c := range chains {
			if k := slices.Index(c.Columns, name); k >= 0 {
				xs = append(xs, c.Cols[k]...)
			}
		}
		m, s := stat.MeanStdDev(xs, nil)
		worst = max(worst, math.Abs(m-mode[j])/sd[j])
		lo, hi = min(lo, s/sd[j]), max(hi, s/sd[j])
	}
	return worst, lo, hi
}

// ids are chains 1 to n.
func ids(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i + 1
	}
	return c
}
