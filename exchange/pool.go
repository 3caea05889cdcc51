package exchange

import "sync"

// pool steps levels 1..K−1 on their own goroutines while the caller steps
// level 0. Each level uses only its own replica's random stream, so the
// result does not depend on scheduling.
type pool struct {
	start []chan int
	wg    sync.WaitGroup
	once  sync.Once
	s     *Sampler
}

func newPool(s *Sampler) *pool {
	p := &pool{s: s, start: make([]chan int, len(s.lv))}
	for l := 1; l < len(s.lv); l++ {
		p.start[l] = make(chan int)
		go p.work(l)
	}
	return p
}

func (p *pool) work(l int) {
	for k := range p.start[l] {
		p.s.stepLevel(l, k)
		p.wg.Done()
	}
}

func (p *pool) run(k int) {
	p.wg.Add(len(p.start) - 1)
	for l := 1; l < len(p.start); l++ {
		p.start[l] <- k
	}
	p.s.stepLevel(0, k)
	p.wg.Wait()
}

func (p *pool) close() {
	p.once.Do(func() {
		for l := 1; l < len(p.start); l++ {
			close(p.start[l])
		}
	})
}
