package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Repair completes the chain CSVs of a run that was killed: each file cut
// mid-row is cut after its last whole draw and given the trailing block of
// statistics, saying what was lost; complete files are left alone. It
// says what it did with each file on w.
func Repair(w io.Writer, files []string) error {
	// Read every file first: a file that is not a chain's CSV stops the
	// repair before any file is changed.
	var chains []*Chain
	for _, f := range files {
		c, err := ReadStanCSV(f)
		if errors.Is(err, ErrEmptyChain) {
			fmt.Fprintf(w, "%s: no draws (killed before writing any), left alone: merge leaves it out\n", f)
			continue
		}
		if err != nil {
			return err
		}
		chains = append(chains, c)
	}
	for _, c := range chains {
		if !c.NoStats {
			fmt.Fprintf(w, "%s: complete, left alone\n", c.Path)
			continue
		}
		if err := repairFile(c); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d draws kept, trailing block added (killed after step %d)\n", c.Path, len(c.Cols[0]), c.Stats.Steps)
	}
	return nil
}

// repairFile cuts the file after its last whole draw and appends the
// trailing block of c.Stats (Torn). The block goes in with one write, so
// that a repair itself interrupted leaves either the torn file or the
// repaired one.
func repairFile(c *Chain) error {
	b, err := os.ReadFile(c.Path)
	if err != nil {
		return err
	}
	keep := len(b)
	if c.Partial {
		// The partial line is the last one: cut after the newline before it.
		keep = bytes.LastIndexByte(bytes.TrimRight(b, "\n"), '\n') + 1
	} else if keep > 0 && b[keep-1] != '\n' {
		keep = bytes.LastIndexByte(b, '\n') + 1
	}
	f, err := os.OpenFile(c.Path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := f.Truncate(int64(keep)); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	block := strings.Join(c.Stats.Lines(), "\n") + "\n"
	if _, err := f.WriteAt([]byte(block), int64(keep)); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	return f.Close()
}
