package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fresgld/fresgld/exchange"
)

// writeSamples writes a trace as CSV with one column per coordinate.
func writeSamples(path string, tr exchange.Trace, names []string) error {
	return writeFile(path, func(w *bufio.Writer) error {
		for j, n := range names {
			if j > 0 {
				w.WriteByte(',')
			}
			w.WriteString(n)
		}
		w.WriteByte('\n')
		var b []byte
		for i := range tr.Len() {
			for j, x := range tr.At(i) {
				if j > 0 {
					w.WriteByte(',')
				}
				b = strconv.AppendFloat(b[:0], x, 'g', -1, 64)
				w.Write(b)
			}
			w.WriteByte('\n')
		}
		return nil
	})
}

// writeSwaps writes the step of every swap made, one row per swap.
func writeSwaps(path string, st exchange.Stats) error {
	return writeFile(path, func(w *bufio.Writer) error {
		w.WriteString("pair,step\n")
		for l, p := range st.Pairs {
			for _, k := range p.Times {
				fmt.Fprintf(w, "%d,%d\n", l, k)
			}
		}
		return nil
	})
}

// writeJSON writes v as indented JSON.
func writeJSON(path string, v any) error {
	return writeFile(path, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

func writeFile(path string, fill func(*bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// names returns θ1, θ2, ... for p coordinates.
func coordNames(p int) []string {
	n := make([]string, p)
	for j := range n {
		n[j] = "theta" + strconv.Itoa(j+1)
	}
	return n
}
