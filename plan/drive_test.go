package plan

import (
	"testing"

	"github.com/fresgld/fresgld/exchange"
)

// stepKeep steps s burn + keep times and calls each (nil: nothing) after
// each of the last keep; a step's error fails the test at once. The plans'
// tests run their samplers through it.
func stepKeep(t testing.TB, s *exchange.Sampler, burn, keep int, each func()) {
	t.Helper()
	for k := range burn + keep {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k >= burn && each != nil {
			each()
		}
	}
}
