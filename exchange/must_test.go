package exchange

import "testing"

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
