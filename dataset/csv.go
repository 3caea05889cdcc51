// Package dataset reads a user's data for Bayesian logistic regression: a CSV
// file of numeric features and one 0/1 label column.
//
// Columns and lines are numbered from 1, as editors and spreadsheets number
// them, in options and in errors alike.
package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/fresgld/fresgld/models"
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
	// Response reads the label column as a continuous response (any finite
	// number) rather than a 0/1 label, for regression.
	Response bool
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
	// Warnings are things the reader accepted but the user should check
	// (a header line that looks like data).
	Warnings []string
	// cols[j] is feature j's column in the file, from 0.
	cols []int
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

// ReadFile reads the CSV file at path. It first counts the file's lines, a
// fast pass, so that X is allocated once at its final size (with room for
// an intercept column, see TakeWithIntercept) instead of growing: growth
// would copy X several times and, at its last doubling, hold it about 2.25
// times over.
func ReadFile(path string, opt Options) (*Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := countLines(f)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return read(f, path, opt, lines)
}

// countLines counts the lines of r: an upper bound on its rows (a quoted
// field may span lines), which is all ReadFile needs.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++ // a last line without its newline
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// bom is the UTF-8 byte order mark some editors put at the start of a file.
const bom = "\uFEFF"

// Read reads CSV data from r; file names the source in errors.
func Read(r io.Reader, file string, opt Options) (*Data, error) {
	return read(r, file, opt, 0)
}

// read is Read with room reserved for up to rows rows (0: unknown).
func read(r io.Reader, file string, opt Options, rows int) (*Data, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(bom)); err == nil && string(b) == bom {
		br.Discard(len(bom)) // before the CSV parser, so a quoted first name parses
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // ragged rows get our own error, with the line
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true // the fields are parsed at once: no slice per row
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

	var warnings []string
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
		hint := ""
		if numericRow(first) {
			d := strings.Join(first, ",")
			if len(d) > 60 {
				d = d[:60] + "…"
			}
			hint = " (the header line is all numbers: if the file has no header, read it with NoHeader, fresgld: --no-header)"
			warnings = append(warnings, fmt.Sprintf("%s:%d: the header line (%s) is all numbers: if the file has no header, this first example is being read as column names (read it with NoHeader, fresgld: --no-header)", file, line, d))
		}
		names = make([]string, ncol)
		seen := map[string]int{}
		for k, n := range first {
			n = strings.TrimSpace(strings.ReplaceAll(n, bom, ""))
			if n == "" {
				return nil, bad(line, k+1, "", "empty column name in the header")
			}
			if j, dup := seen[n]; dup {
				return nil, bad(line, k+1, n, "duplicate column name: column %d has the same name%s", j+1, hint)
			}
			seen[n], names[k] = k, n
		}
	}
	lab, err := labelColumn(opt.Label, names, !opt.NoHeader)
	if err != nil {
		hl := 0 // the header's line, when the label is looked up there
		if !opt.NoHeader {
			hl = line
		}
		return nil, bad(hl, 0, "", "%v", err)
	}

	d := &Data{P: ncol - 1, Label: names[lab], Warnings: warnings}
	if rows > 0 {
		// ncol = P + 1: room for an intercept. Huge pages where the
		// system allows (models.NewFeatures): minibatches read rows at
		// random, and the read itself faults in 512 times fewer pages.
		d.X = models.NewFeatures(rows * ncol)[:0]
		d.Y = make([]float64, 0, rows)
	}
	for k, n := range names {
		if k != lab {
			d.Names = append(d.Names, n)
			d.cols = append(d.cols, k)
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
				if v != 0 && v != 1 && !opt.Response {
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
		if j, err := d.standardize(); err != nil {
			return nil, bad(0, d.cols[j]+1, d.Names[j], "%v", err)
		}
	}
	return d, nil
}

// Column is feature j's column in the file, counted from 1.
func (d *Data) Column(j int) int { return d.cols[j] + 1 }

// numericRow says whether every field of rec is a number.
func numericRow(rec []string) bool {
	for _, s := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return false
		}
	}
	return true
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
// population standard deviations. On an error it returns the feature at
// fault.
func (d *Data) standardize() (int, error) {
	d.Means = make([]float64, d.P)
	d.SDs = make([]float64, d.P)
	col := make([]float64, d.N)
	for j := 0; j < d.P; j++ {
		for i := range col {
			col[i] = d.X[i*d.P+j]
		}
		m, sd, scale := meanSD(col)
		if !(sd > 0) {
			return j, fmt.Errorf("the feature is constant (%v); it cannot be standardised: drop the column or use no standardisation", m)
		}
		if math.IsInf(m, 0) || math.IsInf(sd, 0) {
			return j, fmt.Errorf("values up to %g: the feature's mean or standard deviation overflows; rescale the column", scale)
		}
		d.Means[j], d.SDs[j] = m, sd
		for i := range col {
			var z float64
			if scale == 1 {
				z = (col[i] - m) / sd
			} else {
				z = (col[i]/scale - m/scale) / (sd / scale)
			}
			if math.IsNaN(z) || math.IsInf(z, 0) {
				return j, fmt.Errorf("example %d standardises to %v (value %g, mean %g, sd %g); rescale the column", i+1, z, col[i], m, sd)
			}
			d.X[i*d.P+j] = z
		}
	}
	return 0, nil
}

// meanSD returns the mean and population standard deviation of xs. Sums
// of values near the float64 limit (from about 1e154 up, where a square
// overflows) are taken on xs divided by scale = max |x|, which is then
// returned; scale is 1 when no rescaling was needed, so ordinary data give
// the plain two-pass result, bit for bit.
func meanSD(xs []float64) (m, sd, scale float64) {
	plain := func(div float64) (float64, float64) {
		var s float64
		for _, x := range xs {
			s += x / div
		}
		m := s / float64(len(xs))
		var ss float64
		for _, x := range xs {
			r := x/div - m
			ss += r * r
		}
		return m, math.Sqrt(ss / float64(len(xs)))
	}
	m, sd = plain(1)
	if !math.IsInf(m, 0) && !math.IsInf(sd, 0) && !math.IsNaN(m+sd) {
		return m, sd, 1
	}
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	m, sd = plain(scale)
	return m * scale, sd * scale, scale
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

// TakeWithIntercept is WithIntercept without a copy where X has the room
// (ReadFile reserves it): the rows are moved apart in X's own storage, last
// first, and the ones written in front. d gives up X: it is nil afterwards,
// so that no one reads the moved rows as the old layout.
func (d *Data) TakeWithIntercept() (x []float64, p int) {
	p = d.P + 1
	if cap(d.X) < d.N*p {
		x, p = d.WithIntercept()
		d.X = nil
		return x, p
	}
	x = d.X[:d.N*p]
	for i := d.N - 1; i >= 0; i-- {
		// Row i moves from i·P to i·p + 1 ≥ i·P, beyond no unread row.
		copy(x[i*p+1:(i+1)*p], x[i*d.P:(i+1)*d.P])
		x[i*p] = 1
	}
	d.X = nil
	return x, p
}
