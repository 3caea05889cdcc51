// Package dataset reads a user's data for Bayesian logistic regression: a CSV
// file of numeric features and one 0/1 label column.
//
// Columns and lines are numbered from 1, as editors and spreadsheets number
// them, in options and in errors alike.
package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Options say how to read the file.
type Options struct {
	// Label is the label column: a header name, or a column number counted
	// from 1. A name is tried first when the file has a header.
	Label string
	// NoHeader says the first line is data, not column names.
	NoHeader bool
	// NoStandardize keeps the features as they are. By default each feature
	// is centred and divided by its standard deviation, so that one prior
	// scale suits every coefficient.
	NoStandardize bool
}

// Data is a design matrix with its labels.
type Data struct {
	N, P int
	// X is N×P, row-major: example i is X[i*P : (i+1)*P].
	X []float64
	// Y holds the labels, each 0 or 1.
	Y []float64
	// Names are the feature columns' names (from the header, or "col<k>"),
	// Label the label column's.
	Names []string
	Label string
	// Means and SDs are the features' means and population standard
	// deviations before standardisation; nil if the data were not
	// standardised. Feature j was replaced by (x − Means[j]) / SDs[j].
	Means, SDs []float64
}

// Error is a malformed input, located as precisely as it can be.
type Error struct {
	File   string
	Line   int    // 0 when the error concerns the whole file
	Column int    // 0 when the error concerns a whole line or the file
	Name   string // the column's name, if known
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Column > 0 {
		fmt.Fprintf(&b, ": column %d", e.Column)
		if e.Name != "" {
			fmt.Fprintf(&b, " (%q)", e.Name)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// ReadFile reads the CSV file at path.
func ReadFile(path string, opt Options) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opt)
}

// Read reads CSV data from r; file names the source in errors.
func Read(r io.Reader, file string, opt Options) (*Data, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // ragged rows get our own error, with the line
	cr.TrimLeadingSpace = true
	bad := func(line, col int, name, format string, a ...any) error {
		return &Error{File: file, Line: line, Column: col, Name: name, Msg: fmt.Sprintf(format, a...)}
	}
	next := func() ([]string, int, error) {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil, 0, err
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, 0, bad(pe.Line, pe.Column, "", "%v", pe.Err)
		}
		if err != nil {
			return nil, 0, &Error{File: file, Msg: err.Error()}
		}
		line, _ := cr.FieldPos(0)
		return rec, line, nil
	}

	first, line, err := next()
	if err == io.EOF {
		return nil, bad(0, 0, "", "the file is empty")
	}
	if err != nil {
		return nil, err
	}
	ncol := len(first)
	if ncol < 2 {
		return nil, bad(line, 0, "", "%d column; need at least one feature and the label", ncol)
	}
	var names []string
	if opt.NoHeader {
		names = make([]string, ncol)
		for k := range names {
			names[k] = "col" + strconv.Itoa(k+1)
		}
	} else {
		names = append([]string(nil), first...)
	}
	lab, err := labelColumn(opt.Label, names, !opt.NoHeader)
	if err != nil {
		hl := 0 // the header's line, when the label is looked up there
		if !opt.NoHeader {
			hl = line
		}
		return nil, bad(hl, 0, "", "%v", err)
	}

	d := &Data{P: ncol - 1, Label: names[lab]}
	for k, n := range names {
		if k != lab {
			d.Names = append(d.Names, n)
		}
	}
	row := func(rec []string, line int) error {
		if len(rec) != ncol {
			return bad(line, 0, "", "%d fields, but the first line has %d", len(rec), ncol)
		}
		for k, s := range rec {
			s = strings.TrimSpace(s)
			if s == "" {
				return bad(line, k+1, names[k], "missing value")
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return bad(line, k+1, names[k], "%q is not a finite number", s)
			}
			if k == lab {
				if v != 0 && v != 1 {
					return bad(line, k+1, names[k], "label %q is not 0 or 1", s)
				}
				d.Y = append(d.Y, v)
			} else {
				d.X = append(d.X, v)
			}
		}
		return nil
	}
	if opt.NoHeader {
		if err := row(first, line); err != nil {
			return nil, err
		}
	}
	for {
		rec, line, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := row(rec, line); err != nil {
			return nil, err
		}
	}
	d.N = len(d.Y)
	if d.N == 0 {
		return nil, bad(0, 0, "", "no data rows after the header")
	}
	if !opt.NoStandardize {
		if err := d.standardize(); err != nil {
			return nil, bad(0, 0, "", "%v", err)
		}
	}
	return d, nil
}

// labelColumn finds the label column (0-based) from a name or a 1-based
// column number.
func labelColumn(label string, names []string, header bool) (int, error) {
	label = strings.TrimSpace(label)
	if label == "" {
		return 0, errors.New("no label column given")
	}
	if header {
		for k, n := range names {
			if n == label {
				return k, nil
			}
		}
	}
	k, err := strconv.Atoi(label)
	if err != nil {
		if header {
			return 0, fmt.Errorf("label column %q: no column has that name (columns: %s)", label, strings.Join(names, ", "))
		}
		return 0, fmt.Errorf("label column %q: without a header, give the label as a column number", label)
	}
	if k < 1 || k > len(names) {
		return 0, fmt.Errorf("label column %d: the file has columns 1..%d", k, len(names))
	}
	return k - 1, nil
}

// standardize centres and scales every feature, keeping the means and
// population standard deviations.
func (d *Data) standardize() error {
	d.Means = make([]float64, d.P)
	d.SDs = make([]float64, d.P)
	for j := 0; j < d.P; j++ {
		var m float64
		for i := 0; i < d.N; i++ {
			m += d.X[i*d.P+j]
		}
		m /= float64(d.N)
		var ss float64
		for i := 0; i < d.N; i++ {
			r := d.X[i*d.P+j] - m
			ss += r * r
		}
		sd := math.Sqrt(ss / float64(d.N))
		if !(sd > 0) {
			return fmt.Errorf("feature %q is constant (%v); it cannot be standardised: drop the column or use no standardisation", d.Names[j], m)
		}
		d.Means[j], d.SDs[j] = m, sd
		for i := 0; i < d.N; i++ {
			d.X[i*d.P+j] = (d.X[i*d.P+j] - m) / sd
		}
	}
	return nil
}

// WithIntercept returns the features with a leading column of ones, so that
// a model without its own intercept gets one, and the new width P + 1.
func (d *Data) WithIntercept() (x []float64, p int) {
	p = d.P + 1
	x = make([]float64, d.N*p)
	for i := 0; i < d.N; i++ {
		x[i*p] = 1
		copy(x[i*p+1:(i+1)*p], d.X[i*d.P:(i+1)*d.P])
	}
	return x, p
}
