package analysis

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progress draws a bar on stderr when stderr is a terminal; otherwise it
// draws nothing, so logs and pipes stay clean.
type progress struct {
	w     io.Writer
	label string
	start time.Time
	every int
}

// NewProgress returns a progress reporter for total steps, or nil when
// stderr is not a terminal (a nil *progress is valid and silent).
func NewProgress(label string, total int) *progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &progress{w: os.Stderr, label: label, start: time.Now(), every: max(total/200, 1)}
}

// update is a Plan.Progress callback.
func (p *progress) Update(done, total int) {
	if p == nil || (done%p.every != 0 && done != total) {
		return
	}
	const width = 30
	f := float64(done) / float64(total)
	n := int(f * width)
	el := time.Since(p.start)
	eta := time.Duration(float64(el) * (1/f - 1))
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %v left ", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*f, eta.Round(time.Second))
	if done == total {
		fmt.Fprintln(p.w)
	}
}

// callback returns the Plan.Progress function, nil when silent.
func (p *progress) Callback() func(int, int) {
	if p == nil {
		return nil
	}
	return p.Update
}
