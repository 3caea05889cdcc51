// Package output writes a run's files so that an interrupt or a crash cannot
// corrupt them: summaries and figures appear whole or not at all (written
// under a temporary name, then renamed), draws are streamed as whole CSV
// lines while they are taken, and a run's directory is checked before any
// work and cleared of an earlier run's outputs.
package output

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes path whole or not at all: fill writes into a temporary
// file in the same directory, which is synced and then renamed over path.
// A crash leaves at most a stray temporary file, never a truncated path;
// the temporary's name says which process wrote it (see owner.go).
func WriteFile(path string, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tempPattern(base))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	if err = fill(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteBytes writes b to path whole or not at all (see WriteFile).
func WriteBytes(path string, b []byte) error {
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
