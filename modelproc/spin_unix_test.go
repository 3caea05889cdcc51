//go:build unix

package modelproc

import (
	"os"
	"testing"
	"time"
)

// A reader polls while replies come within spinFor, and stops polling
// once they take longer: against a writer that answers after 5 ms (25
// times spinFor) the later reads try the pipe once or twice before they
// sleep, where a reader that kept polling would try it hundreds of times
// in its 200 µs.
func TestSpinStopsForSlowReplies(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	s, ok := newSpinReader(r).(*spinReader)
	if !ok {
		t.Skip("the pipe offers no raw descriptor")
	}
	buf := make([]byte, 1)
	read := func(delay time.Duration) int {
		go func() { time.Sleep(delay); w.Write([]byte{1}) }()
		before := s.polls
		if _, err := s.Read(buf); err != nil {
			t.Fatal(err)
		}
		return s.polls - before
	}
	for range 30 { // the running mean passes spinFor
		read(5 * time.Millisecond)
	}
	if s.mean <= spinFor {
		t.Fatalf("the mean wait is %v after 30 replies 5 ms late", s.mean)
	}
	if n := read(5 * time.Millisecond); n > 2 {
		t.Errorf("after 30 slow replies a read polled %d times, want at most 2", n)
	}
}
