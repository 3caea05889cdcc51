package models

import (
	"fmt"
	"math"
)

// The regressions (LinReg, Logistic) take their data as N×p row-major
// features x and N responses y. checkShape and checkFeatures are their
// constructors' common checks, the error named for the model (what); each
// constructor checks its own parameters and responses between the two.
// touchRows is their Touch.

// checkShape refuses p < 1, no examples and x of other than N·p values.
func checkShape(what string, x, y []float64, p int) error {
	if p < 1 {
		return fmt.Errorf("%s: %d features", what, p)
	}
	if len(y) == 0 {
		return fmt.Errorf("%s: no examples", what)
	}
	if len(x) != len(y)*p {
		return fmt.Errorf("%s: %d feature values for %d examples of %d features", what, len(x), len(y), p)
	}
	return nil
}

// checkFeatures names the first feature value that is NaN or ±Inf.
func checkFeatures(what string, x []float64, p int) error {
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: feature %d of example %d is %v", what, k%p, k/p, v)
		}
	}
	return nil
}

// touchRows reads the response and the first and last feature of each
// listed example, so that the minibatch's data start arriving from memory
// together (see energy.Toucher); the hardware prefetcher streams the rest
// of long rows.
func touchRows(x, y []float64, p int, idx []int32) float64 {
	var s float64
	for _, i := range idx {
		k := int(i) * p
		s += x[k] + x[k+p-1] + y[i]
	}
	return s
}
