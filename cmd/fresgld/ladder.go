package main

import (
	"github.com/fresgld/fresgld/analysis"

	"github.com/spf13/pflag"
)

// addLadderFlags binds the ladder's flags to f.
func addLadderFlags(fl *pflag.FlagSet, f *analysis.Ladder) {
	fl.StringVar(&f.Levels, "levels", "2", "levels K, geometric from τ1 to τ2, or auto: tuned first (see --auto-*)")
	fl.StringVar(&f.Swaps, "swaps", "sweep", "swap scheme: sweep (every pair, every step) or deo (non-reversible)")
	fl.IntVar(&f.Window, "window", 1, "DEO round length W in steps (each offered pair tried once a round)")
	fl.IntVar(&f.AutoStart, "auto-levels", 4, "--levels auto: levels of the starting geometric ladder")
	fl.IntVar(&f.AutoRounds, "auto-rounds", 6, "--levels auto: tuning rounds; round n runs auto-first·2^n steps")
	fl.IntVar(&f.AutoFirst, "auto-first", 500, "--levels auto: steps of the first tuning round")
	fl.BoolVar(&f.AutoGrow, "auto-grow", true, "--levels auto: add levels up to the recommended K ≈ 2Λ̂")
	fl.IntVar(&f.MaxLevels, "max-levels", 16, "--levels auto: most levels --auto-grow may reach")
}
