package pde

import (
	"fmt"
	"math"
)

// Config is a discretisation of the heat problem and the sensor it reads.
type Config struct {
	// N is the number of interior grid nodes per side; the grid spacing is
	// 1/(N+1). At least 3.
	N int
	// Steps is the number of Crank–Nicolson steps over [0, T]; at least 1.
	Steps int
	// T is the final time, when the sensor reads; positive and finite.
	T float64
	// Sensor is the sensor position, inside the open unit square.
	Sensor [2]float64
	// Bump is the manufactured solution; its width H must be positive.
	Bump Bump
}

// MinN and MaxN bound the grid: fewer than 3 interior nodes leaves no
// interior worth the name, more than 2048 per side is beyond what the
// sampler can afford per step and likely a typo.
const (
	MinN = 3
	MaxN = 2048
)

// Validate returns an error naming the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.N < MinN:
		return fmt.Errorf("grid too small: N = %d interior nodes per side, need at least %d", c.N, MinN)
	case c.N > MaxN:
		return fmt.Errorf("grid too large: N = %d interior nodes per side, at most %d", c.N, MaxN)
	case c.Steps < 1:
		return fmt.Errorf("time steps = %d: need at least 1", c.Steps)
	case !(c.T > 0) || math.IsInf(c.T, 0):
		return fmt.Errorf("final time T = %v: must be positive and finite", c.T)
	case !(c.Bump.H > 0) || math.IsInf(c.Bump.H, 0):
		return fmt.Errorf("bump width h = %v: must be positive and finite", c.Bump.H)
	}
	for d, x := range c.Sensor {
		if !(x > 0 && x < 1) {
			return fmt.Errorf("sensor (%v, %v) lies outside the domain: coordinate %d = %v must lie in (0, 1)", c.Sensor[0], c.Sensor[1], d, x)
		}
	}
	return nil
}

// Spacing is the grid spacing 1/(N+1).
func (c Config) Spacing() float64 { return 1 / float64(c.N+1) }

// Dt is the time step T/Steps.
func (c Config) Dt() float64 { return c.T / float64(c.Steps) }
