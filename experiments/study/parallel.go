package study

import (
	"runtime"
	"sync"
)

// Parallel runs job(i) for every i in [0, n), handed out in order to
// workers goroutines (one a core for workers < 1), and returns when all
// are done. progress, when set and not nil, makes the callback that
// counts the finished jobs (progress(label, n)); each job reports itself
// by calling the done function it is given, once its run is over.
func Parallel(n, workers int, progress func(label string, total int) func(done, total int), label string, job func(i int, done func())) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	prog := func(int, int) {}
	if progress != nil {
		if p := progress(label, n); p != nil {
			prog = p
		}
	}
	var mu sync.Mutex
	finished := 0
	done := func() {
		mu.Lock()
		finished++
		prog(finished, n)
		mu.Unlock()
	}
	ch := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range ch {
				job(i, done)
			}
		})
	}
	for i := range n {
		ch <- i
	}
	close(ch)
	wg.Wait()
}
