// Command thinswap measures the thinned swap energies (exchange.
// ThinnedEnergies: swaps exact in law on a few examples; what
// --swap-energies auto chooses for logistic regression) against exact
// energies every W = ⌈4KN/n⌉ steps (what auto chose before, its pilot
// finding the control-variate screens too noisy), on a logistic regression
// too large for swaps on the full data at every attempt: f-reSGLD on two
// levels and on the adaptive ladder, run through analysis.Run as `fresgld
// logistic --method fresgld [--levels auto] --swap-energies exact|thinned`
// runs them. For each run it
// prints the swaps accepted, the round trips per 10⁶ cold steps, the
// shares of the cost in swaps (energies and anchor or expansion passes)
// and in tuning, and the hot level's gradient cost per step against the
// cold level's: issue 28's goals at N = 10⁶ for a model without
// sufficient statistics.
//
//	go run ./bench/thinswap                     # N = 10⁶ rows, 10 features
//	go run ./bench/thinswap -n 100000 -chains 1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/models"
)

func main() {
	n := flag.Int("n", 1_000_000, "rows")
	p := flag.Int("p", 10, "features (standard normal, models.SyntheticLogistic)")
	chains := flag.Int("chains", 2, "chains a run")
	seed := flag.Uint64("seed", 1, "seed of the data and of the runs")
	flag.Parse()
	if err := run(*n, *p, *chains, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "thinswap:", err)
		os.Exit(1)
	}
}

func run(N, p, chains int, seed uint64) error {
	lr, _, err := models.SyntheticLogistic(N, p, 1, seed)
	if err != nil {
		return err
	}
	names := make([]string, p)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	m := analysis.LogisticModel(lr, names)
	fmt.Printf("logistic regression, N = %d rows, %d standard normal features (models.SyntheticLogistic, seed %d), prior N(0, 1); %d chains a run\n\n", N, p, seed, chains)
	fmt.Println("| ladder | swap energies | levels | swaps accepted / attempted (coldest pair) | round trips per 10⁶ cold steps | swaps' share of cost | tuning's share | hot/cold gradient cost a step | CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, levels := range []int{2, analysis.AutoLevels} {
		for _, mode := range []string{"exact", "thinned"} {
			o := analysis.DefaultOptions()
			o.Method, o.Levels, o.SwapEnergies, o.Seed = exchange.FReSGLDMethod, levels, mode, seed
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
				return fmt.Errorf("levels %d, swap energies %s: %w", levels, mode, err)
			}
			fmt.Println(row(res, levels, cpu))
		}
	}
	return nil
}

// row is one run's line of the table.
func row(res *analysis.Result, levels int, cpu float64) string {
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
	ladder := "two levels"
	if levels == analysis.AutoLevels {
		ladder = "adaptive"
	}
	mode := "?"
	if res.Swap != nil && res.Swap.Swap != nil {
		mode = res.Swap.Swap.Mode
	}
	return fmt.Sprintf("| %s | %s | %d | %d / %d | %.4g | %.3f | %.3f | %.3f | %.1f |", ladder, mode, K, acc, att,
		1e6*float64(trips)/float64(steps), swap/cost, tune/(tune+cost), hot/cold, cpu)
}

// ids are chains 1 to n.
func ids(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i + 1
	}
	return c
}
