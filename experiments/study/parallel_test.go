package study

import (
	"sync"
	"testing"
)

// Parallel runs every job once, on any number of workers, and counts each
// finished job to the progress callback it makes, up to the total.
func TestParallel(t *testing.T) {
	for _, workers := range []int{0, 1, 3} {
		const n = 20
		var mu sync.Mutex
		ran := make([]int, n)
		var counts []int
		progress := func(label string, total int) func(done, total int) {
			if label != "jobs" || total != n {
				t.Errorf("progress(%q, %d), want (jobs, %d)", label, total, n)
			}
			return func(done, _ int) { counts = append(counts, done) }
		}
		Parallel(n, workers, progress, "jobs", func(i int, done func()) {
			mu.Lock()
			ran[i]++
			mu.Unlock()
			done()
		})
		for i, r := range ran {
			if r != 1 {
				t.Errorf("workers %d: job %d ran %d times", workers, i, r)
			}
		}
		if len(counts) != n || counts[n-1] != n {
			t.Errorf("workers %d: progress counts %v, want 1 to %d", workers, counts, n)
		}
	}
	Parallel(3, 2, nil, "no progress", func(_ int, done func()) { done() })
}
