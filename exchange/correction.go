package exchange

import (
	"fmt"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// Correction is the form of the noise correction on the levels of a method
// that corrects its noise (f-reSGLD): the injected noise makes the total
// per-step noise 2τη·I either coordinate by coordinate or in full.
type Correction int

const (
	// Diagonal cancels each coordinate's gradient-noise variance
	// (langevin.Corrected). It needs only per-coordinate variances, but
	// leaves the gradient noise's covariances between coordinates in the
	// total noise.
	Diagonal Correction = iota
	// Full cancels the gradient noise's whole covariance, estimated from
	// the minibatch's per-example gradients (langevin.CorrectedFull): it
	// needs an estimator that exposes them (energy.GradRows).
	Full
)

// Corrections lists the corrections by name.
var Corrections = []Correction{Diagonal, Full}

func (c Correction) String() string {
	switch c {
	case Diagonal:
		return "diagonal"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Correction(%d)", int(c))
}

// Policy is the noise policy of a correcting level.
func (c Correction) Policy() langevin.Policy {
	if c == Full {
		return langevin.CorrectedFull
	}
	return langevin.Corrected
}

// MarshalText writes the correction by name.
func (c Correction) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a correction by name.
func (c *Correction) UnmarshalText(b []byte) (err error) {
	*c, err = ParseCorrection(string(b))
	return err
}

// ParseCorrection reads a correction by name.
func ParseCorrection(s string) (Correction, error) {
	for _, c := range Corrections {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown correction %q (want diagonal or full)", s)
}

// fullNoise takes a level's CorrectedFull steps from its estimator's
// per-example gradients. The LowRank picks the cheaper side by itself:
// the n×n Gram matrix (O(n²p)) when n ≤ p, the p×p covariance (O(np² +
// p³)) when n > p. Its workspace grows when n does, and never otherwise.
type fullNoise struct {
	src energy.GradRows
	lr  langevin.LowRank
}

func newFullNoise(est energy.Estimator) *fullNoise {
	src := est.(energy.GradRows) // validated
	src.KeepRows()
	return &fullNoise{src: src}
}

func (fn *fullNoise) step(theta, grad []float64, eta, tau float64, rng *rand.Rand) (clamped int, finite bool) {
	rows, n := fn.src.Rows()
	return fn.lr.Step(theta, grad, rows, n, energy.FPC(fn.src.Len(), n), eta, tau, rng)
}
