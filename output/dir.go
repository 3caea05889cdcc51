package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Dir is a run's output directory. It records the files written into it, so
// that a command reports only files that exist.
type Dir struct {
	path    string
	mu      sync.Mutex
	written []string
}

// Prepare creates the directory path if needed, checks that it is a
// directory this process can write (by creating and removing a file in it),
// and removes the files named in stale: the outputs of an earlier run, which
// would otherwise sit beside this run's as if it had written them. It is
// meant to be called before any sampling, so that a bad --out costs nothing.
func Prepare(path string, stale ...string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("no output directory given")
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s exists and is not a directory", path)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the output directory: %w", err)
	}
	probe, err := os.CreateTemp(path, ".write-check-*")
	if err != nil {
		return nil, fmt.Errorf("output directory %s is not writable: %w", path, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	for _, name := range stale {
		for _, f := range []string{name, cutName(name)} {
			if err := os.Remove(filepath.Join(path, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("removing the earlier run's %s: %w", f, err)
			}
		}
	}
	d := &Dir{path: path}
	d.RemoveTemps(stale...)
	return d, nil
}

// RemoveTemps removes the temporary files that a WriteFile of each name
// killed before its rename left behind (.name.tmp-*): those of this
// process and those whose writer, on this host, is gone. Another process
// writing into the same directory (a task of an array job sharing --out)
// keeps its temporaries, even of the same name, while it runs.
func (d *Dir) RemoveTemps(names ...string) {
	for _, name := range names {
		removeOrphanTemps(d.path, name)
	}
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// File is the path of name inside the directory.
func (d *Dir) File(name string) string { return filepath.Join(d.path, name) }

// WriteFile writes name whole or not at all (see the function WriteFile)
// and records it as written.
func (d *Dir) WriteFile(name string, fill func(io.Writer) error) error {
	if err := WriteFile(d.File(name), fill); err != nil {
		return err
	}
	d.Record(name)
	return nil
}

// Record notes that name was written into the directory by other means.
func (d *Dir) Record(names ...string) {
	d.mu.Lock()
	d.written = append(d.written, names...)
	d.mu.Unlock()
}

// Written lists the files written so far, in order.
func (d *Dir) Written() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.written...)
}

// Wrote is the line a command prints after writing: the files actually
// written, or that none were.
func (d *Dir) Wrote() string {
	w := d.Written()
	if len(w) == 0 {
		return "wrote nothing to " + d.path
	}
	return "wrote " + d.path + "/{" + strings.Join(w, ",") + "}"
}
