package interrupt

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// watchSignals takes a signal within sameStop of the first for a copy of
// it (timeout(1) signals the run and then its process group): the run
// stops once, and goes on to write its summaries. A signal later than
// that ends it, saying so while it stops, as by default once it let the
// signals go; and a first signal after the release ends it too.
func TestSignalCopiesAreOneStop(t *testing.T) {
	type ending struct {
		sig      os.Signal
		stopping bool
	}
	for _, c := range []struct {
		name    string
		at      []time.Duration // each signal's time after the first
		release int             // signals before the run lets go (-1: never)
		cancels int
		end     *ending
	}{
		{"copy while stopping", []time.Duration{0, 50 * time.Millisecond}, -1, 1, nil},
		{"copy after the release", []time.Duration{0, 900 * time.Millisecond}, 1, 1, nil},
		{"second stop", []time.Duration{0, 50 * time.Millisecond, 1500 * time.Millisecond}, -1, 1, &ending{syscall.SIGTERM, true}},
		{"second stop after the release", []time.Duration{0, 1100 * time.Millisecond}, 1, 1, &ending{syscall.SIGTERM, false}},
		{"first signal after the release", []time.Duration{0}, 0, 0, &ending{syscall.SIGTERM, false}},
	} {
		// Every signal is queued before the watcher reads the first; its
		// clock, read as it takes each one, lets the run go (closes
		// released) at signal c.release, so that the order is the
		// watcher's own.
		sigs := make(chan os.Signal, len(c.at))
		for range c.at {
			sigs <- syscall.SIGTERM
		}
		close(sigs)
		released := make(chan struct{})
		start := time.Unix(1e9, 0)
		i := 0
		now := func() time.Time {
			if i == c.release {
				close(released)
			}
			i++
			return start.Add(c.at[i-1])
		}
		cancels := 0
		var got *ending
		watchSignals(sigs, func() { cancels++ }, released, now, func(s os.Signal, stopping bool) { got = &ending{s, stopping} })
		if cancels != c.cancels || (got == nil) != (c.end == nil) || got != nil && *got != *c.end {
			t.Errorf("%s: %d cancels and end %+v, want %d and %+v", c.name, cancels, got, c.cancels, c.end)
		}
	}
}
