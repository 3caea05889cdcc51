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

// runSizeAuto is runSize where --burn or --thin may be automatic: an
// automatic one is checked at its least (burn 0, thin 1), named as
// automatic in errors.
func runSizeAuto(burn, keep, thin, dim int, burnAuto, thinAuto bool) error {
	if burnAuto {
		burn = 0
	}
	if thinAuto {
		thin = 1
	}
	return analysis.RunSize(burn, keep, thin, dim, burnAuto, thinAuto)
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

// autoValue is a flag that takes a value or "auto": the value is then
// chosen by the command, and the choice is recorded, not a silent zero.
type autoValue[T int | float64 | string] struct {
	v    *T
	auto *bool
}

func (a autoValue[T]) String() string {
	if a.auto == nil || *a.auto {
		return "auto"
	}
	return fmt.Sprint(*a.v)
}

func (a autoValue[T]) Set(s string) error {
	var zero T
	if s == "auto" {
		*a.auto, *a.v = true, zero
		return nil
	}
	var v any
	var err error
	switch any(zero).(type) {
	case int:
		if v, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("want an integer or auto")
		}
	case float64:
		if v, err = strconv.ParseFloat(s, 64); err != nil {
			return fmt.Errorf("want a number or auto")
		}
	default:
		v = s
	}
	*a.auto, *a.v = false, v.(T)
	return nil
}

func (a autoValue[T]) Type() string {
	switch any(*new(T)).(type) {
	case int:
		return "int|auto"
	case float64:
		return "number|auto"
	}
	return "string|auto"
}

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
