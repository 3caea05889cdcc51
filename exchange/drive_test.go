package exchange

import "testing"

// The helpers that build a sampler for a test and drive it.

// mustNew is New(cfg, start) for a test that cannot go on without the
// sampler: an error fails it at once.
func mustNew(t testing.TB, cfg Config, start [][]float64) *Sampler {
	t.Helper()
	s, err := New(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stepN steps s n times; a step's error fails the test at once.
func stepN(t testing.TB, s *Sampler, n int) {
	t.Helper()
	for range n {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleLevels steps s burn times, then keep times, and after each of
// those calls each with every level's state, coldest first. A step's
// error fails the test at once.
func sampleLevels(t testing.TB, s *Sampler, burn, keep int, each func(l int, x []float64)) {
	t.Helper()
	for k := range burn + keep {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k < burn {
			continue
		}
		for l := range s.Levels() {
			each(l, s.State(l))
		}
	}
}
