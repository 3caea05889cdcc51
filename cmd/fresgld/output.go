package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/output"
)

// writeSamples writes a trace as CSV with one column per coordinate,
// whole or not at all.
func writeSamples(path string, tr exchange.Trace, names []string) error {
	return output.WriteFile(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(names)
		row := make([]string, tr.P)
		for i := range tr.Len() {
			for j, x := range tr.At(i) {
				row[j] = strconv.FormatFloat(x, 'g', -1, 64)
			}
			cw.Write(row)
		}
		cw.Flush()
		return cw.Error()
	})
}

// writeSwaps writes the step of every swap made, one row per swap, whole or
// not at all.
func writeSwaps(path string, st exchange.Stats) error {
	return output.WriteFile(path, func(w io.Writer) error { return encodeSwaps(w, st) })
}

// encodeSwaps writes the swaps CSV to w.
func encodeSwaps(w io.Writer, st exchange.Stats) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"pair", "step"})
	for l, p := range st.Pairs {
		for _, k := range p.Times {
			cw.Write([]string{strconv.Itoa(l), strconv.Itoa(k)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes v as indented JSON, whole or not at all.
func writeJSON(path string, v any) error {
	return output.WriteFile(path, func(w io.Writer) error { return encodeJSON(w, v) })
}

// encodeJSON writes v to w as indented JSON.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// names returns θ1, θ2, ... for p coordinates.
func coordNames(p int) []string {
	n := make([]string, p)
	for j := range n {
		n[j] = "theta" + strconv.Itoa(j+1)
	}
	return n
}
