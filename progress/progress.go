// Package progress shows a run's progress on a terminal (a redrawn bar)
// or in a log (a line every LineEvery): steps, draws, rate and time left.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Progress timing. A run shorter than FirstLine says nothing; a longer one
// says it is running within FirstLine (the user waits no more than 2 s to
// learn that it works and how long it will take), then redraws its bar
// every barEvery on a terminal, or writes a line every LineEvery to a
// pipe or file, where a redrawn bar would fill a log with carriage returns.
var (
	FirstLine = time.Second
	LineEvery = 10 * time.Second
	barEvery  = 250 * time.Millisecond
)

// counter is one chain's steps taken, alone on its cache line: each chain
// writes its own, so chains on different cores do not contend.
type counter struct {
	_ [64]byte
	atomic.Int64
	_ [64]byte
}

// Meter shows a run's progress on a writer (stderr): steps and draws done,
// steps per second, and the time left. Its chains store their steps taken
// (Set), which costs one atomic store; a goroutine of the Meter's own reads
// them and prints. A nil *Meter is valid and silent.
type Meter struct {
	w         io.Writer
	label     string
	tty       bool
	counts    []counter
	total     int64 // steps over all chains
	base      int64 // steps taken before this process (a resumed run)
	baseDraws int64
	burn      int64
	thin      int64
	draws     int64 // draws the run keeps over all chains
	unit      string
	// Extra, when set before Start, adds a note to each line (such as
	// the model's share of the time).
	Extra func() string

	start   time.Time
	printed bool // a line or bar has been written
	quit    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
}

// NewMeter returns a meter for chains chains of burn + keep·thin steps
// each, writing to w (nil: a nil, silent meter). done holds each chain's
// steps already taken by a resumed run (nil: none).
func NewMeter(w io.Writer, label string, chains, burn, keep, thin int, done []int) *Meter {
	if w == nil || chains < 1 {
		return nil
	}
	m := &Meter{w: w, label: label, tty: isTerminal(w), counts: make([]counter, chains), burn: int64(burn), thin: int64(max(thin, 1)), unit: " steps"}
	m.total = int64(chains) * (m.burn + int64(keep)*m.thin)
	m.draws = int64(chains) * int64(keep)
	for i, d := range done {
		if i < chains {
			m.counts[i].Store(int64(d))
			m.base += int64(d)
		}
	}
	_, m.baseDraws = m.state()
	return m
}

// isTerminal says whether w is a terminal, where a bar is redrawn in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Set records that chain i (from 0) has taken steps steps. It is safe to
// call from the chain's goroutine at every step.
func (m *Meter) Set(i, steps int) {
	if m != nil {
		m.counts[i].Store(int64(steps))
	}
}

// Start starts the meter's clock and its printing goroutine.
func (m *Meter) Start() {
	if m == nil {
		return
	}
	m.start = time.Now()
	m.quit = make(chan struct{})
	m.wg.Add(1)
	go m.loop()
}

// loop prints until Stop: nothing before FirstLine, then a bar every
// barEvery on a terminal or a line every LineEvery elsewhere.
func (m *Meter) loop() {
	defer m.wg.Done()
	select {
	case <-m.quit:
		return
	case <-time.After(FirstLine):
	}
	every := LineEvery
	if m.tty {
		every = barEvery
	}
	m.print(false)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-t.C:
			m.print(false)
		}
	}
}

// Stop ends the printing; a meter that printed anything ends with a last
// line saying what was done and in what time.
func (m *Meter) Stop() {
	if m == nil || m.quit == nil {
		return
	}
	close(m.quit)
	m.wg.Wait()
	m.quit = nil
	if m.printed {
		m.print(true)
	}
}

// state is the steps and draws done over all chains.
func (m *Meter) state() (steps, draws int64) {
	for i := range m.counts {
		s := m.counts[i].Load()
		steps += s
		if s > m.burn {
			draws += (s - m.burn) / m.thin
		}
	}
	return steps, draws
}

// print writes the bar or line; last is the final one.
func (m *Meter) print(last bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	steps, draws := m.state()
	el := time.Since(m.start)
	fmt.Fprint(m.w, m.line(steps, draws, el, last))
	m.printed = true
}

// line formats the state after el of the run.
func (m *Meter) line(steps, draws int64, el time.Duration, last bool) string {
	f := 0.0
	if m.total > 0 {
		f = float64(steps) / float64(m.total)
	}
	rate := float64(steps-m.base) / el.Seconds()
	var b strings.Builder
	if m.tty {
		const width = 24
		n := min(int(f*width), width)
		fmt.Fprintf(&b, "\r%s [%s%s] %3.0f%%", m.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*f)
	} else {
		fmt.Fprintf(&b, "%s: %.0f%%", m.label, 100*f)
	}
	// A run that keeps draws counts them; a study counts its own units
	// (steps or runs) in the callback's terms.
	switch {
	case m.draws == 0:
		fmt.Fprintf(&b, ", %d/%d", steps, m.total)
	case draws == 0 && steps < m.total:
		fmt.Fprintf(&b, ", draws 0/%d (burn-in)", m.draws)
	default:
		fmt.Fprintf(&b, ", draws %d/%d", draws, m.draws)
	}
	// Draws per second once they come, steps per second before.
	if dr := float64(draws-m.baseDraws) / el.Seconds(); m.draws > 0 && draws > 0 {
		fmt.Fprintf(&b, ", %s draws/s", rateText(dr))
	} else {
		fmt.Fprintf(&b, ", %s%s/s", rateText(rate), m.unit)
	}
	switch {
	case last:
		fmt.Fprintf(&b, ", ended after %v", el.Round(100*time.Millisecond))
	case rate > 0:
		fmt.Fprintf(&b, ", %v left", time.Duration(float64(m.total-steps)/rate*float64(time.Second)).Round(time.Second))
	}
	if m.Extra != nil {
		if s := m.Extra(); s != "" {
			b.WriteString(", " + s)
		}
	}
	if m.tty {
		b.WriteString("\x1b[K") // clear what a longer earlier bar left
		if last {
			b.WriteString("\n")
		}
	} else {
		b.WriteString("\n")
	}
	return b.String()
}

// rateText is a rate with three significant digits at most: 950, 12.3k, 1.2M.
func rateText(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.3gM", r/1e6)
	case r >= 1e4:
		return fmt.Sprintf("%.3gk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}

// progress is a Meter for callers that report their steps through a
// callback (a Plan.Progress over many runs): one counter, printed from the
// callback itself, so a study that stops early leaves no goroutine behind.
type progress struct {
	m    *Meter
	next time.Time // the next line is due
}

// NewProgress returns a progress reporter for total steps written to w, or
// nil when w is nil (a nil *progress is valid and silent).
func NewProgress(w io.Writer, label string, total int) *progress {
	m := NewMeter(w, label, 1, total, 0, 1, nil)
	if m == nil {
		return nil
	}
	m.start, m.unit = time.Now(), ""
	return &progress{m: m, next: m.start.Add(FirstLine)}
}

// Update is a Plan.Progress callback: steps done of total.
func (p *progress) Update(done, total int) {
	if p == nil {
		return
	}
	p.m.counts[0].Store(int64(done))
	if done == total {
		if p.m.printed {
			p.m.print(true)
		}
		return
	}
	if now := time.Now(); now.After(p.next) {
		p.m.print(false)
		if p.m.tty {
			p.next = now.Add(barEvery)
		} else {
			p.next = now.Add(LineEvery)
		}
	}
}

// Callback returns the Plan.Progress function, nil when silent.
func (p *progress) Callback() func(int, int) {
	if p == nil {
		return nil
	}
	return p.Update
}
