package analysis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/internal/syncbuf"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/progress"
)

// A plan that outlasts progress.FirstLine says it is planning, on the progress
// writer; a quicker one says nothing.
func TestPlanSaysItIsPlanning(t *testing.T) {
	defer func(d time.Duration) { progress.FirstLine = d }(progress.FirstLine)
	for _, c := range []struct {
		first time.Duration
		want  bool
	}{{0, true}, {time.Hour, false}} {
		progress.FirstLine = c.first
		w := &syncbuf.Buffer{}
		o := DefaultOptions()
		o.Progress, o.Command = w, "test"
		if _, err := planDefaults(context.Background(), plan.Model{Terms: testenergy.MixTerms{M: models.PaperMixture()}}, &o, &Result{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // the timer's line, if it fired
		if got := strings.Contains(w.String(), "test: planning the run"); got != c.want {
			t.Errorf("progress.FirstLine %v: progress %q", c.first, w.String())
		}
	}
}

// A long plan says what it is doing every progress.LineEvery, not once: here every
// millisecond, so that its pilot, which takes tens of them, is named.
func TestPlanSaysWhatItIsDoing(t *testing.T) {
	defer func(f, e time.Duration) { progress.FirstLine, progress.LineEvery = f, e }(progress.FirstLine, progress.LineEvery)
	progress.FirstLine, progress.LineEvery = 0, time.Millisecond
	w := &syncbuf.Buffer{}
	o := DefaultOptions()
	o.Progress, o.Command = w, "test"
	if _, err := planDefaults(context.Background(), plan.Model{Terms: testenergy.MixTerms{M: models.PaperMixture()}}, &o, &Result{}); err != nil {
		t.Fatal(err)
	}
	out := w.String()
	after := len(out)
	time.Sleep(5 * time.Millisecond)
	if n := strings.Count(out, "test: planning the run: "); n < 2 || !strings.Contains(out, "a pilot of the sampler on") || !strings.Contains(out, "modes found") {
		t.Errorf("%d lines; want several, naming the modes found and the pilot:\n%s", n, out)
	}
	if len(w.String()) != after {
		t.Errorf("lines after the plan returned: %q", w.String()[after:])
	}
}
