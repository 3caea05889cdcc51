package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// Flush policy of a Stream: buffered lines reach the file at least every
// FlushRows lines and every FlushEvery, so a killed run loses at most that.
const (
	FlushRows  = 1000
	FlushEvery = time.Second
)

// flushEvery is FlushEvery, as the flusher reads it; a test of the
// row-count flush lengthens it so that no timed flush falls in between.
var flushEvery = FlushEvery

// Stream is a CSV file written while a run goes on. Lines are buffered and
// handed to the file whole, in one write per flush, so that the file ends
// at a line boundary and parses after an interrupt or a kill -9 (it holds
// every line but those buffered since the last flush). One caveat: Linux
// may cut a write to a regular file short when SIGKILL arrives while it
// copies, at a page boundary; flushes every FlushRows lines keep writes to
// tens of kilobytes, so this needs a kill within microseconds of a flush.
//
// Text fields go through encoding/csv, which quotes them as needed (a
// column name with a comma). Numeric rows are formatted straight into the
// buffer: a number in Go's 'g' format never needs quoting, and this keeps a
// sampler's loop free of allocations.
type Stream struct {
	f    *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	cw   *csv.Writer // writes into buf
	num  []byte
	rows int // lines buffered since the last flush
	err  error
	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once
	// A stream continued by AppendStream: the offset it continued from and
	// the bytes it cut off there; restored says Close put them back.
	from     int64
	tail     []byte
	cutPath  string // the copy of tail beside the file, removed at Close
	restored bool
}

// CreateStream creates name in the directory (replacing any file of that
// name), writes the header line and starts the once-a-second flusher. The
// file is recorded as written: whatever happens next, it holds the lines
// flushed so far.
func (d *Dir) CreateStream(name string, header []string) (*Stream, error) {
	f, err := os.Create(d.File(name))
	if err != nil {
		return nil, err
	}
	s := &Stream{f: f, done: make(chan struct{})}
	s.cw = csv.NewWriter(&s.buf)
	d.Record(name)
	if header != nil {
		if err := s.WriteRecord(header); err != nil {
			f.Close()
			return nil, err
		}
		if err := s.Flush(); err != nil {
			f.Close()
			return nil, err
		}
	}
	s.wg.Add(1)
	go s.flusher()
	return s, nil
}

func (s *Stream) flusher() {
	defer s.wg.Done()
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.Flush()
		}
	}
}

// WriteRecord writes one line of text fields, quoted as CSV needs.
func (s *Stream) WriteRecord(fields []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if err := s.cw.Write(fields); err != nil {
		s.err = err
		return err
	}
	s.cw.Flush() // into buf: the line is now whole in the buffer
	return s.lineLocked()
}

// WriteFloats writes one line of numbers.
func (s *Stream) WriteFloats(xs []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	b := s.num[:0]
	for j, x := range xs {
		if j > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	b = append(b, '\n')
	s.num = b
	s.buf.Write(b)
	return s.lineLocked()
}

// Comment writes a line "# text", as CmdStan's CSV files carry their
// settings and timings.
func (s *Stream) Comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.buf.WriteString("# ")
	s.buf.WriteString(text)
	s.buf.WriteByte('\n')
	return s.lineLocked()
}

func (s *Stream) lineLocked() error {
	s.rows++
	if s.rows >= FlushRows {
		return s.flushLocked()
	}
	return nil
}

// Flush hands the buffered lines to the file.
func (s *Stream) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

func (s *Stream) flushLocked() error {
	if s.err != nil || s.buf.Len() == 0 {
		return s.err
	}
	if _, err := s.f.Write(s.buf.Bytes()); err != nil {
		s.err = err
		return err
	}
	s.buf.Reset()
	s.rows = 0
	return nil
}

// Restored says whether Close put back the lines AppendStream cut off.
func (s *Stream) Restored() bool { return s.restored }

// Close flushes the lines left, syncs and closes the file. It returns the
// first error the stream met; later calls do nothing.
func (s *Stream) Close() error {
	err := os.ErrClosed
	s.once.Do(func() {
		close(s.done)
		s.wg.Wait()
		err = s.Flush()
		if err == nil && s.tail != nil {
			var restored bool
			restored, err = restoreTail(s.f, s.from, s.tail)
			s.restored = restored
		}
		if e := s.f.Sync(); err == nil {
			err = e
		}
		if e := s.f.Close(); err == nil {
			err = e
		}
		if err == nil && s.cutPath != "" {
			err = os.Remove(s.cutPath)
		}
	})
	if err == os.ErrClosed {
		return nil
	}
	return err
}

// AppendStream reopens name in the directory to continue it after its
// first offset bytes, cutting off whatever follows (the lines a resumed run
// will write again, and an interrupted run's trailing lines), and starts
// the flusher. It refuses a file shorter than offset: the lines a
// checkpoint counts on are gone.
func (d *Dir) AppendStream(name string, offset int64) (*Stream, error) {
	f, err := os.OpenFile(d.File(name), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	// A continuation killed before its Close left what it cut off beside
	// the file: that is put back first, if it holds more.
	err = recoverCut(f, d.File(cutName(name)))
	var st os.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if err == nil && st.Size() < offset {
		err = fmt.Errorf("%s holds %d bytes, fewer than the %d its checkpoint counts on: it was cut or replaced since", name, st.Size(), offset)
	}
	// What is cut off is kept, in memory and beside the file, to be put
	// back if the continuation ends with fewer draws (see cut.go).
	var tail []byte
	if err == nil && st.Size() > offset {
		tail = make([]byte, st.Size()-offset)
		_, err = f.ReadAt(tail, offset)
	}
	if err == nil && tail != nil {
		err = saveCut(f, d.File(cutName(name)), offset, tail)
	}
	if err == nil {
		err = f.Truncate(offset)
	}
	if err == nil {
		_, err = f.Seek(offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Stream{f: f, done: make(chan struct{}), from: offset, tail: tail}
	if tail != nil {
		s.cutPath = d.File(cutName(name))
	}
	s.cw = csv.NewWriter(&s.buf)
	d.Record(name)
	s.wg.Add(1)
	go s.flusher()
	return s, nil
}

// Sync hands the buffered lines to the file, syncs it to disk and returns
// its length: the offset a checkpoint records, at which every line before
// is on disk.
func (s *Stream) Sync() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushLocked(); err != nil {
		return 0, err
	}
	if err := s.f.Sync(); err != nil {
		return 0, err
	}
	return s.f.Seek(0, io.SeekCurrent)
}
