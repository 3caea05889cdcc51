package exchange

import (
	"slices"
	"sync"
	"time"
)

// pool steps levels 1..K−1 on their own goroutines while the caller steps
// level 0, when that pays. Each level uses only its own replica's random
// stream, so the result does not depend on scheduling, nor on whether a
// step was handed off.
//
// Handing a step to another goroutine and waiting for it costs from a few to
// tens of microseconds (a wake-up through the scheduler, more on a loaded
// machine), more than a whole step of a small problem. So the pool measures:
// at a check it steps calibSteps steps sequentially, timing level 0 and the
// other levels apart, and times an empty hand-off after each; it hands steps
// off until the next check only if the medians say the work moved to other
// goroutines, and the work left to the caller, both exceed the hand-off.
// Checks repeat, at intervals that double from firstCheck to lastCheck
// steps, because a level's cost can change (an automatic minibatch size).
type pool struct {
	start []chan int
	wg    sync.WaitGroup
	once  sync.Once
	s     *Sampler

	conc   bool // hand steps off until the next check
	always bool // hand every step off, checks or not (for tests of the hand-off)
	// decide turns a check's timings into the decision; nil is handsOff.
	// Tests of the schedule pin it, since real timings vary with the load
	// (under -race a check went either way).
	decide func(own, rest, hand []time.Duration) bool
	left   int // steps left in the current check
	next   int // the step of the next check
	gap    int // steps between checks

	own, rest, hand []time.Duration // per step of a check, capacity calibSteps
}

const (
	calibSteps = 8
	firstCheck = 1 << 10
	lastCheck  = 1 << 16
	// minHandoff bounds a hand-off from below: a goroutine wake-up alone
	// takes longer. Work below it is never handed off, and the empty
	// hand-off is then not timed, so that checks cost next to nothing.
	minHandoff = time.Microsecond
)

func newPool(s *Sampler) *pool {
	p := &pool{s: s, start: make([]chan int, len(s.lv)), gap: firstCheck,
		own: make([]time.Duration, 0, calibSteps), rest: make([]time.Duration, 0, calibSteps), hand: make([]time.Duration, 0, calibSteps)}
	for l := 1; l < len(s.lv); l++ {
		p.start[l] = make(chan int)
		go p.work(l)
	}
	return p
}

func (p *pool) work(l int) {
	for k := range p.start[l] {
		if k >= 0 { // k < 0: an empty hand-off, timed by a check
			p.s.stepLevel(l, k)
		}
		p.wg.Done()
	}
}

// step advances every level by step k, handed off or not.
func (p *pool) step(k int) {
	switch {
	case p.always:
		p.conc = true
		p.run(k)
	case p.left > 0 || k >= p.next:
		p.check(k)
	case p.conc:
		p.run(k)
	default:
		for l := range p.s.lv {
			p.s.stepLevel(l, k)
		}
	}
}

// check steps step k sequentially, timing it, and decides after the last
// step of a check.
func (p *pool) check(k int) {
	if p.left == 0 {
		p.left = calibSteps
		p.own, p.rest, p.hand = p.own[:0], p.rest[:0], p.hand[:0]
	}
	t0 := time.Now()
	p.s.stepLevel(0, k)
	t1 := time.Now()
	for l := 1; l < len(p.s.lv); l++ {
		p.s.stepLevel(l, k)
	}
	t2 := time.Now()
	p.own, p.rest = append(p.own, t1.Sub(t0)), append(p.rest, t2.Sub(t1))
	if min(t1.Sub(t0), t2.Sub(t1)) > minHandoff {
		p.run(-1)
		p.hand = append(p.hand, time.Since(t2))
	}
	p.left--
	if p.left > 0 {
		return
	}
	decide := p.decide
	if decide == nil {
		decide = handsOff
	}
	conc := decide(p.own, p.rest, p.hand)
	if conc == p.conc {
		p.gap = min(2*p.gap, lastCheck)
	} else {
		p.gap = firstCheck
	}
	p.conc = conc
	p.next = k + 1 + p.gap
}

// handsOff is the pool's rule: hand steps off only if the medians say the
// work moved to other goroutines, and the work left to the caller, both
// exceed the hand-off.
func handsOff(own, rest, hand []time.Duration) bool {
	if len(hand) != calibSteps { // the work was below minHandoff at some step
		return false
	}
	h := median(hand)
	return median(own) > h && median(rest) > h
}

// median of at most calibSteps durations, sorted in a copy on the stack:
// a check allocates nothing.
func median(d []time.Duration) time.Duration {
	var buf [calibSteps]time.Duration
	s := buf[:copy(buf[:], d)]
	slices.Sort(s)
	return s[len(s)/2]
}

// run hands step k (k < 0: nothing) to levels 1..K−1 and steps level 0.
func (p *pool) run(k int) {
	p.wg.Add(len(p.start) - 1)
	for l := 1; l < len(p.start); l++ {
		p.start[l] <- k
	}
	if k >= 0 {
		p.s.stepLevel(0, k)
	}
	p.wg.Wait()
}

func (p *pool) close() {
	p.once.Do(func() {
		for l := 1; l < len(p.start); l++ {
			close(p.start[l])
		}
	})
}
