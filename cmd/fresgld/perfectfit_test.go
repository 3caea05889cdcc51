package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// regress on a perfect fit (y = 2·x1 − x2 exactly, rounding aside) is
// refused with the residual sd it found, before any work: its automatic
// σ was 2.7e-16, the exact posterior broke down numerically, and the
// report said trusted beside a failed comparison.
func TestRegressPerfectFitRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("x1,x2,x3,x4,x5,y\n")
	for range 100 {
		x := [5]float64{}
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		fmt.Fprintf(&b, "%v,%v,%v,%v,%v,%v\n", x[0], x[1], x[2], x[3], x[4], 2*x[0]-x[1])
	}
	data := writeFile(t, "perfect.csv", b.String())
	err := run(t, "regress", "--data", data, "--label", "y", "--exact", "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "exact to rounding: its residual sd, ") || !strings.Contains(err.Error(), "--noise-sd") {
		t.Fatalf("regress on a perfect fit: %v, want a refusal with the residual sd", err)
	}
	t.Log(err)
}
