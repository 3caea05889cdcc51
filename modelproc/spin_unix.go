//go:build unix

package modelproc

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// spinFor is how long a read polls the pipe before it sleeps. A model
// answers a minibatch in tens of microseconds; a reader that sleeps at
// once is woken through the scheduler, and on an idle machine (a core
// halted in a virtual machine) that wake-up cost more than the protocol
// itself (BENCHMARKS.md, "A model in another process"). Polling for a
// while costs a core only while a reply is due.
//
// A slow model (an interpreted one over hundreds of examples) answers
// after the spin has given up, so the polling gains nothing and takes a
// core the model processes need (four chains' models on two cores). So
// the reader keeps a running mean of how long it had to wait, and spins
// only while that mean is within spinFor.
const spinFor = 200 * time.Microsecond

// spinReader reads f, polling it without sleeping for up to spinFor when
// nothing has arrived yet, then waiting as os.File does (its deadline
// holds). The read's arguments and results live in the reader, so that
// the callback handed to the file allocates nothing.
type spinReader struct {
	f     *os.File
	rc    syscall.RawConn
	try   func(fd uintptr) bool
	buf   []byte
	n     int
	err   error
	start time.Time
	// waited is set when the read found nothing at first; mean is the
	// running mean of such waits (weight 1/8 on the newest).
	waited bool
	mean   time.Duration
	polls  int // read attempts that found nothing, for tests
}

func newSpinReader(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	s := &spinReader{f: f, rc: rc}
	s.try = s.poll
	return s
}

// poll reads what has arrived; it reports false (sleep until readable)
// once spinFor has passed with nothing.
func (s *spinReader) poll(fd uintptr) bool {
	for {
		s.n, s.err = syscall.Read(int(fd), s.buf)
		if !errors.Is(s.err, syscall.EAGAIN) {
			return true
		}
		s.waited = true
		s.polls++
		if s.mean > spinFor || time.Since(s.start) > spinFor {
			return false
		}
	}
}

func (s *spinReader) Read(p []byte) (int, error) {
	s.buf, s.start, s.waited = p, time.Now(), false
	err := s.rc.Read(s.try)
	if s.waited {
		s.mean += (time.Since(s.start) - s.mean) / 8
	}
	s.buf = nil
	switch {
	case err != nil:
		return 0, err
	case s.err != nil:
		return 0, &os.PathError{Op: "read", Path: s.f.Name(), Err: s.err}
	case s.n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return s.n, nil
}
