package main

import (
	"fmt"
	"strconv"

	"github.com/fresgld/fresgld/analysis"

	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/exchange"
)

// ladderFlags are the temperature-ladder settings shared by the commands
// that run a ladder: how many levels (or auto), which swap scheme, and the
// adaptive schedule's rounds.
type ladderFlags struct {
	Levels     string `json:"levels"`
	Swaps      string `json:"swaps"`
	Window     int    `json:"window"`
	AutoStart  int    `json:"auto_start_levels,omitempty"`
	AutoRounds int    `json:"auto_rounds,omitempty"`
	AutoFirst  int    `json:"auto_first_round,omitempty"`
	AutoGrow   bool   `json:"auto_grow,omitempty"`
	MaxLevels  int    `json:"max_levels,omitempty"`

	k      int // parsed --levels (the starting K when auto)
	auto   bool
	scheme exchange.Scheme
}

func addLadderFlags(fl *pflag.FlagSet, f *ladderFlags) {
	fl.StringVar(&f.Levels, "levels", "2", "temperature levels K, spaced geometrically from τ1 to τ2 (every level above the coldest uses the hot estimator), or auto: tune the ladder first (see --auto-*)")
	fl.StringVar(&f.Swaps, "swaps", "sweep", "swap scheme: sweep (every adjacent pair every step, coldest first) or deo (even pairs on even rounds, odd on odd: non-reversible)")
	fl.IntVar(&f.Window, "window", 1, "DEO round length W in steps: each offered pair is attempted once, at the round's last step")
	fl.IntVar(&f.AutoStart, "auto-levels", 4, "--levels auto: levels of the starting geometric ladder")
	fl.IntVar(&f.AutoRounds, "auto-rounds", 6, "--levels auto: tuning rounds; round n runs auto-first·2^n steps")
	fl.IntVar(&f.AutoFirst, "auto-first", 500, "--levels auto: steps of the first tuning round")
	fl.BoolVar(&f.AutoGrow, "auto-grow", true, "--levels auto: add levels up to the recommended K ≈ 2Λ̂")
	fl.IntVar(&f.MaxLevels, "max-levels", 16, "--levels auto: most levels --auto-grow may reach")
}

// parse checks the flags before any work; errors name the flag.
func (f *ladderFlags) parse(method exchange.Method, swapA float64) error {
	// The fields are bound to flags, which keep their values from one
	// command line to the next in one process: derive, never assign them.
	f.auto = false
	var err error
	if f.scheme, err = exchange.ParseScheme(f.Swaps); err != nil {
		return fmt.Errorf("--swaps: %w", err)
	}
	switch {
	case f.Window < 1:
		return fmt.Errorf("--window = %d: must be at least 1", f.Window)
	case f.scheme == exchange.Sweep && f.Window != 1:
		return fmt.Errorf("--window = %d: only --swaps deo has rounds longer than one step", f.Window)
	case f.scheme == exchange.DEO && swapA != 0:
		return fmt.Errorf("--swap-a = %v: --swaps deo attempts each offered pair once a round; leave --swap-a at 0", swapA)
	}
	if f.Levels == "auto" {
		f.auto, f.k = true, f.AutoStart
		switch {
		case method == exchange.SGLDMethod:
			return fmt.Errorf("--levels auto: method %s runs one chain, there is no ladder to tune", method)
		case f.AutoStart < 2:
			return fmt.Errorf("--auto-levels = %d: a ladder needs at least 2", f.AutoStart)
		case f.AutoRounds < 1:
			return fmt.Errorf("--auto-rounds = %d: must be at least 1", f.AutoRounds)
		case f.AutoFirst < 1:
			return fmt.Errorf("--auto-first = %d: must be at least 1", f.AutoFirst)
		case f.AutoGrow && f.MaxLevels < f.AutoStart:
			return fmt.Errorf("--max-levels = %d: fewer than --auto-levels = %d", f.MaxLevels, f.AutoStart)
		case f.AutoStart > analysis.MaxLevels:
			return fmt.Errorf("--auto-levels = %d: at most %d", f.AutoStart, analysis.MaxLevels)
		case f.AutoGrow && f.MaxLevels > analysis.MaxLevels:
			return fmt.Errorf("--max-levels = %d: at most %d", f.MaxLevels, analysis.MaxLevels)
		}
		return tuneSteps("--auto-rounds", "--auto-first", f.AutoRounds, f.AutoFirst)
	}
	if f.k, err = strconv.Atoi(f.Levels); err != nil {
		return fmt.Errorf("--levels %q: want a whole number of levels or auto", f.Levels)
	}
	if f.k < 2 && method != exchange.SGLDMethod {
		return fmt.Errorf("--levels = %d: a ladder needs at least 2", f.k)
	}
	if f.k > analysis.MaxLevels {
		return fmt.Errorf("--levels = %d: at most %d", f.k, analysis.MaxLevels)
	}
	if f.Window > analysis.MaxSteps {
		return fmt.Errorf("--window = %d: at most %d steps", f.Window, analysis.MaxSteps)
	}
	return nil
}

// tuneSteps checks that the tuning rounds of an adaptive ladder, round n
// of first·2^n steps, take at most analysis.MaxSteps steps in all: more rounds once
// ran for minutes before a step count wrapped, and no signal reached them.
// roundsFlag and firstFlag are the flags' names, for the error.
func tuneSteps(roundsFlag, firstFlag string, rounds, first int) error {
	if first > analysis.MaxSteps {
		return fmt.Errorf("%s = %d: more than %d steps", firstFlag, first, analysis.MaxSteps)
	}
	total := 0
	for n := range rounds {
		if n > 40 || first > (analysis.MaxSteps-total)>>n {
			most := 0
			for r := 1; first*(1<<r-1) <= analysis.MaxSteps; r++ {
				most = r
			}
			return fmt.Errorf("%s = %d, %s = %d: the tuning would take more than %d steps (round n runs %s·2^n steps; at most %s = %d with this %s)",
				roundsFlag, rounds, firstFlag, first, analysis.MaxSteps, firstFlag, roundsFlag, most, firstFlag)
		}
		total += first << n
	}
	return nil
}

// ladder sets the scheme into setup and, with --levels auto, tunes the
// temperatures (written into setup.Taus). It returns the initial states of
// the sampling run and the tuning report (nil without auto). Closing stop
// ends the tuning with an error wrapping exchange.ErrStopped.
func (f *ladderFlags) ladder(m exchange.Method, setup *exchange.Setup, init []float64, stop <-chan struct{}) ([][]float64, *exchange.Adapted, error) {
	setup.Scheme, setup.Window, setup.Levels = f.scheme, f.Window, f.k
	if !f.auto {
		return nil, nil, nil
	}
	taus, err := exchange.Geometric(setup.Tau1, setup.Tau2, f.AutoStart)
	if err != nil {
		return nil, nil, fmt.Errorf("--tau1/--tau2: %w", err)
	}
	inits := make([][]float64, len(taus))
	for l := range inits {
		inits[l] = init
	}
	ad, err := exchange.Adapt(m.Build(*setup), taus, inits, exchange.AdaptOptions{Rounds: f.AutoRounds, First: f.AutoFirst, Grow: f.AutoGrow, MaxLevels: f.MaxLevels, Stop: stop})
	if err != nil {
		return nil, nil, err
	}
	setup.Taus = ad.Taus
	return ad.States, &ad, nil
}
