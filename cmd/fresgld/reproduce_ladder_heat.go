package main

import (
	"fmt"
	"io"

	"github.com/fresgld/fresgld/analysis"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/ladder"
	"github.com/fresgld/fresgld/output"
)

func ladderHeatCommand() *cobra.Command {
	var o outFlags
	s := ladder.HeatSettings{}
	c := studyCommand("ladder-heat", "Inverse heat problem at the paper's large noise: f-reSGLD on an adaptive DEO ladder vs s-reSGLD at equal CPU time; energy noise on U/τ on two levels", help("reproduce-ladder-heat"), func(cmd *cobra.Command) error {
		switch {
		case s.Seeds < 1:
			return fmt.Errorf("--seeds = %d: need at least 1", s.Seeds)
		case s.Keep < 1 || s.Burn < 0:
			return fmt.Errorf("--keep = %d, --burn = %d: need keep ≥ 1, burn ≥ 0", s.Keep, s.Burn)
		case s.Rounds < 1 || s.First < 1:
			return fmt.Errorf("--rounds = %d, --first = %d: both must be at least 1", s.Rounds, s.First)
		case s.Start < 2 || s.MaxLevels < s.Start:
			return fmt.Errorf("--start-levels = %d, --max-levels = %d: need 2 ≤ start ≤ max", s.Start, s.MaxLevels)
		case s.Grid < 50 || s.Grid%50 != 0:
			return fmt.Errorf("--grid = %d: must be a positive multiple of 50 (the TV bins)", s.Grid)
		case s.MaxLevels > analysis.MaxLevels:
			return fmt.Errorf("--max-levels = %d: at most %d", s.MaxLevels, analysis.MaxLevels)
		}
		if err := analysis.TuneSteps("--rounds", "--first", s.Rounds, s.First); err != nil {
			return err
		}
		res, _, err := o.dirs(cmd, "")
		if err != nil {
			return err
		}
		if _, err := output.Prepare(res, ladder.HeatOutputs...); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		run := func(log io.Writer) ([]ladder.HeatRow, error) { return ladder.RunHeat(s, log) }
		return printStudy(cmd, run, func(rows []ladder.HeatRow) (string, error) { return ladder.WriteHeat(s, rows, res) })
	})
	fl := c.Flags()
	fl.IntVar(&s.Seeds, "seeds", 10, "seeds (1, 2, ...)")
	fl.IntVar(&s.Burn, "burn", 1000, "s-reSGLD and two-level runs: steps discarded first")
	fl.IntVar(&s.Keep, "keep", 48000, "s-reSGLD and two-level runs: samples kept, one per step")
	fl.IntVar(&s.Rounds, "rounds", 5, "adaptive ladder: tuning rounds (round n runs first·2^n steps)")
	fl.IntVar(&s.First, "first", 200, "adaptive ladder: steps of the first tuning round")
	fl.IntVar(&s.Start, "start-levels", 4, "adaptive ladder: levels of the starting geometric ladder")
	fl.IntVar(&s.MaxLevels, "max-levels", 16, "adaptive ladder: most levels it may grow to")
	fl.IntVar(&s.Grid, "grid", 2400, "exact posterior: cells per side (a multiple of 50)")
	o.bind(c)
	return c
}

func init() { reproduceCmd.AddCommand(ladderHeatCommand()) }
