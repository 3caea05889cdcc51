package minibatch

import "sync"

// runAll calls run(i, s) for every item i < items and seed index s < seeds
// on workers goroutines, calls progress after each run, and returns the
// first error. Each run writes only its own result slot, and each is
// sequential and seeded, so results do not depend on workers.
func runAll(items, seeds, workers int, progress func(done, total int), run func(i, s int) error) error {
	type job struct{ i, s int }
	jobs := make(chan job)
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				err := run(j.i, j.s)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if progress != nil {
					progress(done, items*seeds)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < items; i++ {
		for s := 0; s < seeds; s++ {
			jobs <- job{i, s}
		}
	}
	close(jobs)
	wg.Wait()
	return firstErr
}
