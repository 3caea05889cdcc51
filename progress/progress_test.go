package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/internal/syncbuf"
)

// The meter counts draws from the chains' steps (none in burn-in, one per
// thin steps after), and the share of the steps done.
func TestMeterLine(t *testing.T) {
	// 2 chains of burn 10 + 20 draws × thin 2 = 50 steps each.
	m := NewMeter(&bytes.Buffer{}, "run", 2, 10, 20, 2, nil)
	m.Set(0, 30) // (30−10)/2 = 10 draws
	m.Set(1, 5)  // in burn-in
	steps, draws := m.state()
	if steps != 35 || draws != 10 {
		t.Fatalf("state: %d steps, %d draws; want 35, 10", steps, draws)
	}
	l := m.line(steps, draws, 2*time.Second, false)
	// 35 of 100 steps at 17.5 steps/s leave 65/17.5 = 3.7 s, shown as 4s.
	for _, want := range []string{"run: 35%", "draws 10/40", "5 draws/s", "4s left"} {
		if !strings.Contains(l, want) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	if !strings.HasSuffix(l, "\n") || strings.Contains(l, "\r") {
		t.Errorf("line %q: a pipe gets whole lines, no carriage return", l)
	}
	m.Set(0, 0)
	if l := m.line(5, 0, time.Second, false); !strings.Contains(l, "burn-in") || !strings.Contains(l, "5 steps/s") {
		t.Errorf("before any draw: %q, want burn-in and steps per second", l)
	}
	// A resumed run counts only the steps this process takes in its rate.
	r := NewMeter(&bytes.Buffer{}, "run", 1, 0, 100, 1, []int{60})
	if l := r.line(70, 70, time.Second, false); !strings.Contains(l, "10 draws/s") || !strings.Contains(l, "3s left") {
		t.Errorf("resumed: %q, want 10 draws/s and 3s left", l)
	}
}

// A run longer than FirstLine says so within it, then writes a line every
// LineEvery and a last one when it stops; a shorter one says nothing, and
// a nil writer gives a silent nil meter.
func TestMeterPrints(t *testing.T) {
	defer func(f, e time.Duration) { FirstLine, LineEvery = f, e }(FirstLine, LineEvery)
	FirstLine, LineEvery = 20*time.Millisecond, 20*time.Millisecond
	var w syncbuf.Buffer
	m := NewMeter(&w, "gmm", 1, 0, 1000, 1, nil)
	m.Extra = func() string { return "model busy 50%" }
	m.Start()
	m.Set(0, 500)
	time.Sleep(100 * time.Millisecond)
	m.Set(0, 1000)
	m.Stop()
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d lines in 100 ms at one per 20 ms, want ≥ 3:\n%s", len(lines), w.String())
	}
	re := regexp.MustCompile(`^gmm: \d+%, draws \d+/1000, .*, model busy 50%$`)
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("line %q does not match %v", l, re)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "100%") || !strings.Contains(last, "ended after") {
		t.Errorf("last line %q, want 100%% and the time taken", last)
	}

	FirstLine = time.Hour
	var quiet syncbuf.Buffer
	s := NewMeter(&quiet, "short", 1, 0, 10, 1, nil)
	s.Start()
	s.Set(0, 10)
	s.Stop()
	if quiet.String() != "" {
		t.Errorf("a run shorter than FirstLine wrote %q", quiet.String())
	}
	var none *Meter = NewMeter(nil, "x", 1, 0, 10, 1, nil)
	if none != nil {
		t.Fatal("a nil writer must give a nil meter")
	}
	none.Start()
	none.Set(0, 1)
	none.Stop()
}
