package output

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A failed fill leaves the earlier file as it was and no temporary file.
func TestWriteFileWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q after a failed write, want the earlier %q", b, "old")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1 (a temporary file was left)", len(ents))
	}
}

func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := Prepare(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("--out on a file: error %v", err)
	}
	if _, err := Prepare(filepath.Join(file, "sub")); err == nil {
		t.Errorf("--out under a file: no error")
	}
	// An earlier run's outputs are removed, other files kept.
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "samples.csv"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	d, err := Prepare(out, "samples.csv", "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "samples.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier samples.csv is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Errorf("an unrelated file was removed: %v", err)
	}
	if d.Wrote() != "wrote nothing to "+out {
		t.Errorf("Wrote() = %q before any write", d.Wrote())
	}
	if os.Getuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.MkdirAll(ro, 0o555)
		if _, err := Prepare(ro); err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only directory: error %v", err)
		}
	}
}

// tempDir is a fresh output directory, which the test's end removes.
func tempDir(t *testing.T) *Dir {
	t.Helper()
	d, err := Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tempStream is a stream name, of the columns header, in a fresh tempDir.
func tempStream(t *testing.T, name string, header []string) (*Dir, *Stream) {
	t.Helper()
	d := tempDir(t)
	s, err := d.CreateStream(name, header)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

func parse(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	recs, err := r.ReadAll() // also checks every line has the header's field count
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return recs
}

// Header names are CSV-quoted; a full buffer of FlushRows lines reaches the
// file without Close, and a line less stays buffered. (The timed flush is
// held off, so that a tick between two writes cannot change the counts.)
func TestStreamFlushesFullBuffer(t *testing.T) {
	flushEvery = time.Hour
	defer func() { flushEvery = FlushEvery }()
	d, s := tempStream(t, "samples.csv", []string{"a,b", `say "hi"`})
	defer s.Close()
	path := d.File("samples.csv")
	if recs := parse(t, path); len(recs) != 1 || recs[0][0] != "a,b" || recs[0][1] != `say "hi"` {
		t.Fatalf("header %q", recs)
	}
	for i := range FlushRows - 1 {
		s.WriteFloats([]float64{float64(i), 0.5})
	}
	if recs := parse(t, path); len(recs) != 1 {
		t.Fatalf("%d lines on disk after %d rows: no buffering", len(recs), FlushRows-1)
	}
	s.WriteFloats([]float64{FlushRows - 1, 0.5})
	// FlushRows lines were buffered (the header was flushed on its own), so
	// the last one filled the buffer and flushed it.
	if recs := parse(t, path); len(recs) != 1+FlushRows {
		t.Errorf("%d lines on disk after %d rows, want %d", len(recs), FlushRows, 1+FlushRows)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// A buffered line reaches the file within about FlushEvery without Close,
// and Close may be called twice.
func TestStreamFlushes(t *testing.T) {
	d, s := tempStream(t, "samples.csv", []string{"a", "b"})
	defer s.Close()
	path := d.File("samples.csv")
	s.WriteFloats([]float64{-1, 2})
	deadline := time.Now().Add(FlushEvery + 2*time.Second)
	for len(parse(t, path)) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("a buffered row did not reach the file within %v", FlushEvery+2*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if d.Wrote() != "wrote "+d.Path()+"/{samples.csv}" {
		t.Errorf("Wrote() = %q", d.Wrote())
	}
}

// Writing a row of numbers allocates nothing once the buffers have grown.
func TestStreamWriteFloatsAllocs(t *testing.T) {
	d, _ := Prepare(t.TempDir())
	s, err := d.CreateStream("x.csv", []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	row := []float64{1.25, -3e-7, 12345.678}
	for range 2 * FlushRows {
		s.WriteFloats(row)
	}
	if a := testing.AllocsPerRun(5000, func() { s.WriteFloats(row) }); a != 0 {
		t.Errorf("WriteFloats allocates %v times per row", a)
	}
}

// "wrote" lists only the files written: a failed write is left out.
func TestDirListsOnlyWritten(t *testing.T) {
	d := tempDir(t)
	if err := d.WriteFile("a.json", func(w io.Writer) error { _, err := w.Write([]byte("{}")); return err }); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("b.json", func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("failed write reported no error")
	}
	if got := d.Written(); len(got) != 1 || got[0] != "a.json" {
		t.Errorf("Written() = %q, want [a.json]", got)
	}
	if _, err := os.Stat(d.File("b.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.json exists after its write failed (%v)", err)
	}
}

// Sync puts every line written on disk and returns the file's length;
// AppendStream continues the file from that length, cutting off what was
// written after it, and refuses a file already shorter.
func TestSyncAndAppend(t *testing.T) {
	d, s := tempStream(t, "c.csv", []string{"a", "b"})
	s.WriteFloats([]float64{1, 2})
	off, err := s.Sync()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.File("c.csv")); int64(len(b)) != off || string(b) != "a,b\n1,2\n" {
		t.Fatalf("after Sync the file holds %q, Sync said %d bytes", b, off)
	}
	s.WriteFloats([]float64{3, 4})
	s.Comment("trailer")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := d.AppendStream("c.csv", off)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteFloats([]float64{5, 6})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.File("c.csv")); string(b) != "a,b\n1,2\n5,6\n" {
		t.Errorf("appended file holds %q", b)
	}
	if _, err := d.AppendStream("c.csv", 1000); err == nil || !strings.Contains(err.Error(), "fewer than the 1000") {
		t.Errorf("a file shorter than its offset: %v", err)
	}
}

// A continued stream that ends with fewer lines than it cut off, the same
// ones as far as it went, puts the cut-off lines back: a resumed chain that
// failed sooner keeps the draws it started from. One that went further, or
// whose lines differ, keeps its own.
func TestAppendStreamKeepsLongerTail(t *testing.T) {
	const head, rest = "# c\na,b\n1,2\n", "3,4\n5,6\n7,8\n# stopped: 5 steps\n"
	cases := []struct {
		name     string
		rows     [][]float64
		restored bool
		want     string
	}{
		{"fewer", [][]float64{{3, 4}}, true, head + rest},
		{"none", nil, true, head + rest},
		{"more", [][]float64{{3, 4}, {5, 6}, {7, 8}, {9, 10}}, false, head + "3,4\n5,6\n7,8\n9,10\n# stopped: 1 step\n"},
		{"different", [][]float64{{3, 5}}, false, head + "3,5\n# stopped: 1 step\n"},
	}
	for _, c := range cases {
		d := tempDir(t)
		if err := os.WriteFile(d.File("c.csv"), []byte(head+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := d.AppendStream("c.csv", int64(len(head)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.rows {
			if err := s.WriteFloats(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Comment("stopped: 1 step"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(d.File("c.csv")); string(b) != c.want || s.Restored() != c.restored {
			t.Errorf("%s: file %q, restored %v; want %q, %v", c.name, b, s.Restored(), c.want, c.restored)
		}
	}
}

// A continuation killed before its Close (here: the file cut and continued
// by hand, the cut-off lines saved beside it as AppendStream saves them)
// loses nothing: the next AppendStream puts them back first. Saved lines of
// a file whose beginning has changed since (a new run in the directory)
// are not put back, and go.
func TestAppendStreamRecoversAfterKill(t *testing.T) {
	const head, rest = "# c\na,b\n1,2\n", "3,4\n5,6\n7,8\n# stopped: 5 steps\n"
	for _, c := range []struct {
		name, prefix, want string
	}{
		{"same run", head, head + rest},
		{"new run", "# d\na,b\n1,2\n", "# d\na,b\n1,2\n3,4\n# stopped: 1 step\n"},
	} {
		d := tempDir(t)
		path := d.File("c.csv")
		os.WriteFile(path, []byte(head+rest), 0o644)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := saveCut(f, d.File(cutName("c.csv")), int64(len(head)), []byte(rest)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		// The killed continuation wrote one line of its own.
		os.WriteFile(path, []byte(c.prefix+"3,4\n"), 0o644)
		s, err := d.AppendStream("c.csv", int64(len(head)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WriteFloats([]float64{3, 4}); err != nil {
			t.Fatal(err)
		}
		if err := s.Comment("stopped: 1 step"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != c.want {
			t.Errorf("%s: file %q, want %q", c.name, b, c.want)
		}
		if _, err := os.Stat(d.File(cutName("c.csv"))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s left: %v", c.name, cutName("c.csv"), err)
		}
	}
}
