package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fresgld/fresgld/analysis"
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

// runSize checks --burn, --keep and --thin, and that the kept samples of
// dim coordinates fit in memory and the step count in an int.
func runSize(burn, keep, thin, dim int) error {
	return analysis.RunSize(burn, keep, thin, dim, false, false)
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

// zeroIf sets *v to 0, the analysis options' "automatic", when auto.
func zeroIf[T int | float64](v *T, auto bool) {
	if auto {
		*v = 0
	}
}

// explicit checks a value the user gave in place of "auto": a step size or
// a size must be positive.
func explicit[T int | float64](flag string, v T, auto bool) error {
	if auto {
		return nil
	}
	if !(v > 0) || math.IsInf(float64(v), 0) {
		if _, isInt := any(v).(int); isInt {
			return fmt.Errorf("%s = %v: must be ≥ 1 (or auto)", flag, v)
		}
		return fmt.Errorf("%s = %v: must be positive and finite (or auto)", flag, v)
	}
	return nil
}
