package analysis

import (
	"fmt"
	"strconv"

	"github.com/fresgld/fresgld/exchange"
)

// Ladder is the temperature-ladder settings shared by the commands
// that run a ladder: how many levels (or auto), which swap scheme, and the
// adaptive schedule's rounds.
type Ladder struct {
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

// Parse checks the flags before any work; errors name the flag.
func (f *Ladder) Parse(method exchange.Method, swapA float64) error {
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
		case f.AutoStart > MaxLevels:
			return fmt.Errorf("--auto-levels = %d: at most %d", f.AutoStart, MaxLevels)
		case f.AutoGrow && f.MaxLevels > MaxLevels:
			return fmt.Errorf("--max-levels = %d: at most %d", f.MaxLevels, MaxLevels)
		}
		return TuneSteps("--auto-rounds", "--auto-first", f.AutoRounds, f.AutoFirst)
	}
	if f.k, err = strconv.Atoi(f.Levels); err != nil {
		return fmt.Errorf("--levels %q: want a whole number of levels or auto", f.Levels)
	}
	if f.k < 2 && method != exchange.SGLDMethod {
		return fmt.Errorf("--levels = %d: a ladder needs at least 2", f.k)
	}
	if f.k > MaxLevels {
		return fmt.Errorf("--levels = %d: at most %d", f.k, MaxLevels)
	}
	if f.Window > MaxSteps {
		return fmt.Errorf("--window = %d: at most %d steps", f.Window, MaxSteps)
	}
	return nil
}

// TuneSteps checks that the tuning rounds of an adaptive ladder, round n
// of first·2^n steps, take at most MaxSteps steps in all: more rounds once
// ran for minutes before a step count wrapped, and no signal reached them.
// roundsFlag and firstFlag are the flags' names, for the error.
func TuneSteps(roundsFlag, firstFlag string, rounds, first int) error {
	if first > MaxSteps {
		return fmt.Errorf("%s = %d: more than %d steps", firstFlag, first, MaxSteps)
	}
	total := 0
	for n := range rounds {
		if n > 40 || first > (MaxSteps-total)>>n {
			most := 0
			for r := 1; first*(1<<r-1) <= MaxSteps; r++ {
				most = r
			}
			return fmt.Errorf("%s = %d, %s = %d: the tuning would take more than %d steps (round n runs %s·2^n steps; at most %s = %d with this %s)",
				roundsFlag, rounds, firstFlag, first, MaxSteps, firstFlag, roundsFlag, most, firstFlag)
		}
		total += first << n
	}
	return nil
}

// Tune, with --levels auto, tunes the temperatures of the ladder of method
// m on setup, every level starting at init, and returns the tuning (nil
// without auto). The caller tunes once, on one chain's setup, and gives
// every chain the result (Sampler): chains tuned apart could grow ladders
// of different lengths, which one run's shared columns cannot hold.
// Closing stop ends the tuning with an error wrapping exchange.ErrStopped.
func (f *Ladder) Tune(m exchange.Method, setup exchange.Setup, init []float64, stop <-chan struct{}) (*exchange.Adapted, error) {
	if !f.auto {
		return nil, nil
	}
	setup.Scheme, setup.Window, setup.Levels = f.scheme, f.Window, f.k
	if _, err := m.Config(setup); err != nil { // every setting checked before tuning
		return nil, err
	}
	taus, err := exchange.Geometric(setup.Tau1, setup.Tau2, f.AutoStart)
	if err != nil {
		return nil, fmt.Errorf("--tau1/--tau2: %w", err)
	}
	inits := make([][]float64, len(taus))
	for l := range inits {
		inits[l] = init
	}
	ad, err := exchange.Adapt(m.Build(setup), taus, inits, exchange.AdaptOptions{Rounds: f.AutoRounds, First: f.AutoFirst, Grow: f.AutoGrow, MaxLevels: f.MaxLevels, Stop: stop})
	if err != nil {
		return nil, err
	}
	return &ad, nil
}

// Sampler builds a sampler of method m from setup on the ladder f, every
// level starting at init, at the temperatures of tuned (Tune) where it is
// set. It returns the sampler's configuration beside it.
func (f *Ladder) Sampler(m exchange.Method, setup exchange.Setup, init []float64, tuned *exchange.Adapted) (*exchange.Sampler, exchange.Config, error) {
	setup.Scheme, setup.Window, setup.Levels = f.scheme, f.Window, f.k
	if tuned != nil {
		setup.Taus = tuned.Taus
	}
	cfg, err := m.Config(setup)
	if err != nil {
		return nil, exchange.Config{}, err
	}
	inits := make([][]float64, len(cfg.Levels))
	for l := range inits {
		inits[l] = init
	}
	smp, err := exchange.New(cfg, inits)
	return smp, cfg, err
}

// K is the number of levels --levels gives (the starting K when auto).
func (f *Ladder) K() int { return f.k }
