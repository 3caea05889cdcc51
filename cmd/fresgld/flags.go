package main

import (
	"fmt"
	"math"
	"strconv"
)

// Checks of flag values. Each names the flag as the user types it, so that
// an error says which setting to change.

// positive requires a positive finite value.
func positive(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s = %v: must be positive and finite", flag, v)
	}
	return nil
}

// nonNegative requires a finite value ≥ 0.
func nonNegative(flag string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s = %v: must be finite and ≥ 0", flag, v)
	}
	return nil
}

// within requires lo ≤ v ≤ hi (a NaN fails).
func within(flag string, v, lo, hi float64) error {
	if !(v >= lo && v <= hi) {
		return fmt.Errorf("%s = %v: must lie in [%v, %v]", flag, v, lo, hi)
	}
	return nil
}

// atLeast requires an integer ≥ lo.
func atLeast(flag string, v, lo int) error {
	if v < lo {
		return fmt.Errorf("%s = %d: must be ≥ %d", flag, v, lo)
	}
	return nil
}

// maxSteps bounds every count of steps a command takes (a run, a tuning, a
// pilot): a step counter must not wrap, and at a microsecond a step this is
// already more than half an hour.
const maxSteps = math.MaxInt32

// maxFloats bounds the samples a run keeps in memory (8 GB of float64s).
const maxFloats = 1 << 30

// runSize checks --burn, --keep and --thin, and that the kept samples of
// dim coordinates fit in memory and the step count in an int.
func runSize(burn, keep, thin, dim int) error {
	return runSizeAuto(burn, keep, thin, dim, false, false)
}

// runSizeAuto is runSize where --burn or --thin may be automatic, their
// values not yet known: an automatic one is checked at its smallest (burn
// 0, thin 1) and named as automatic, not as the stand-in value, in errors;
// dim 0 means the dimension is not yet known (before the data are read).
func runSizeAuto(burn, keep, thin, dim int, burnAuto, thinAuto bool) error {
	for _, c := range []struct {
		flag   string
		v, lo  int
		isAuto bool
	}{{"--burn", burn, 0, burnAuto}, {"--keep", keep, 1, false}, {"--thin", thin, 1, thinAuto}} {
		if err := atLeast(c.flag, c.v, c.lo); err != nil && !c.isAuto {
			return err
		}
	}
	if most := maxFloats / max(dim, 1); keep > most {
		if dim == 0 {
			return fmt.Errorf("--keep = %d: that many draws would not fit in memory (at most %d, 8 GB of numbers, even for a model of one coordinate)", keep, most)
		}
		return fmt.Errorf("--keep = %d: %d draws of %d coordinates would not fit in memory (at most %d draws, 8 GB of numbers)", keep, keep, dim, most)
	}
	if thin > (math.MaxInt32-burn)/keep {
		plan := fmt.Sprintf("--keep = %d × --thin = %d = %.3g steps", keep, thin, float64(keep)*float64(thin))
		if thinAuto {
			plan = fmt.Sprintf("--keep = %d steps", keep)
		}
		switch {
		case burnAuto:
			plan += " (before the automatic --burn)"
		case burn > 0:
			plan += fmt.Sprintf(" + --burn = %d", burn)
		}
		return fmt.Errorf("%s: more than the %d steps a run can take", plan, math.MaxInt32)
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// autoFloat is a flag that takes a number or "auto": the value is then
// chosen by the command, and the choice is recorded, not a silent 0.
type autoFloat struct {
	v    *float64
	auto *bool
}

func (a autoFloat) String() string {
	if a.auto == nil || *a.auto {
		return "auto"
	}
	return strconv.FormatFloat(*a.v, 'g', -1, 64)
}

func (a autoFloat) Set(s string) error {
	if s == "auto" {
		*a.auto, *a.v = true, 0
		return nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number or auto")
	}
	*a.auto, *a.v = false, x
	return nil
}

func (autoFloat) Type() string { return "number|auto" }

// autoInt is autoFloat for an integer.
type autoInt struct {
	v    *int
	auto *bool
}

func (a autoInt) String() string {
	if a.auto == nil || *a.auto {
		return "auto"
	}
	return strconv.Itoa(*a.v)
}

func (a autoInt) Set(s string) error {
	if s == "auto" {
		*a.auto, *a.v = true, 0
		return nil
	}
	x, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer or auto")
	}
	*a.auto, *a.v = false, x
	return nil
}

func (autoInt) Type() string { return "int|auto" }
