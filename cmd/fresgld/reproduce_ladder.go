package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/ladder"
)

func ladderCommand() *cobra.Command {
	var f studyFlags
	var budget float64
	var problems string
	c := studyCommand("ladder", "Temperature ladders for f-reSGLD at equal cost: geometric sweep, geometric DEO, adaptive DEO (round trips, mode weights against exact answers)", help("reproduce-ladder"), func(cmd *cobra.Command) error {
		if !(budget > 0) || math.IsInf(budget, 0) {
			return fmt.Errorf("--budget = %v: must be positive and finite", budget)
		}
		var ps []ladder.Problem
		for _, name := range strings.Split(problems, ",") {
			switch name {
			case "four-modes":
				ps = append(ps, ladder.FourModes())
			case "deep-modes":
				ps = append(ps, ladder.DeepModes())
			default:
				return fmt.Errorf("--problems: unknown problem %q (want four-modes, deep-modes or both, comma-separated)", name)
			}
		}
		res, _, err := f.prepare(cmd, []string{"ladder.json", "ladder.md"}, nil)
		if err != nil {
			return err
		}
		st := ladder.Study{Problems: ps, Ladders: ladder.Ladders, Seeds: f.seeds, Budget: budget, BurnFrac: 0.1, Workers: f.workers, Progress: progressFunc}
		if f.smoke {
			st.Seeds, st.Budget = min(f.seeds, 2), 1e5
			st.Ladders = append([]ladder.Ladder(nil), st.Ladders...)
			for i := range st.Ladders {
				st.Ladders[i].First = 100 // tuning: 100·(1+2+4+8+16) steps
			}
		}
		return printStudy(cmd, st.Run, func(rows []ladder.Row) (string, error) { return st.Write(rows, res) })
	})
	f.bind(c)
	c.Flags().Float64Var(&budget, "budget", 2e6, "cost units per run (evaluations of all levels, tuning included)")
	c.Flags().StringVar(&problems, "problems", "four-modes,deep-modes", "problems to run, comma-separated")
	return c
}

func init() { reproduceCmd.AddCommand(ladderCommand()) }
