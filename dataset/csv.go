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
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// DropConstant removes features that take one value in every example,
	// with a warning naming them, instead of refusing the file: such a
	// feature carries no information and cannot be standardised.
	DropConstant bool
	// ConstantRemedy, when set, is how the caller's user avoids refusing a
	// constant feature (fresgld logistic: its flags), after "drop the
	// column(s)"; a message names only what its command has.
	ConstantRemedy string
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

// firstRecord opens r as records does and reads its first record, on line
// line, refusing an empty file.
func firstRecord(r io.Reader, file string) (next func() ([]string, int, error), bad func(line, col int, name, format string, a ...any) error, first []string, line int, err error) {
	if next, bad, err = records(r, file); err != nil {
		return nil, nil, nil, 0, err
	}
	if first, line, err = next(); err == io.EOF {
		err = bad(0, 0, "", "the file is empty")
	}
	return next, bad, first, line, err
}

// eachRow calls row on each record next yields, in order, and first on
// the first record (line line, already read) when it is data rather than
// a header: the readers' one loop over a file.
func eachRow(next func() ([]string, int, error), first []string, line int, firstIsData bool, row func(rec []string, line int) error) error {
	if firstIsData {
		if err := row(first, line); err != nil {
			return err
		}
	}
	for {
		rec, line, err := next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := row(rec, line); err != nil {
			return err
		}
	}
}

// records opens CSV data from r for reading row by row: a byte-order mark
// dropped, a binary or compressed file refused with its kind, and next
// returning each row with its line (io.EOF at the end) and errors that
// name the file, line and column. The row's slice is reused by the next
// call. bad makes such an error.
func records(r io.Reader, file string) (next func() ([]string, int, error), bad func(line, col int, name, format string, a ...any) error, err error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(bom)); err == nil && string(b) == bom {
		br.Discard(len(bom)) // before the CSV parser, so a quoted first name parses
	}
	// A compressed or binary file would otherwise reach the CSV parser and
	// fail with a message about quotes or field counts that hides the
	// cause.
	if head, _ := br.Peek(512); len(head) > 0 {
		if msg := binaryKind(head); msg != "" {
			return nil, nil, &Error{File: file, Msg: msg}
		}
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // ragged rows get our own error, with the line
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true // the fields are parsed at once: no slice per row
	bad = func(line, col int, name, format string, a ...any) error {
		return &Error{File: file, Line: line, Column: col, Name: name, Msg: fmt.Sprintf(format, a...)}
	}
	next = func() ([]string, int, error) {
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
	return next, bad, nil
}

// Read reads CSV data from r; file names the source in errors.
func Read(r io.Reader, file string, opt Options) (*Data, error) {
	return read(r, file, opt, 0)
}

// read is Read with room reserved for up to rows rows (0: unknown).
func read(r io.Reader, file string, opt Options, rows int) (*Data, error) {
	next, bad, first, line, err := firstRecord(r, file)
	if err != nil {
		return nil, err
	}
	var warnings []string
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
			if i := invalidUTF8(n); i >= 0 {
				// The names go into the table and the chain CSVs, which
				// must be UTF-8 (rstan::read_stan_csv fails otherwise);
				// guessing the encoding could mangle them silently.
				return nil, bad(line, k+1, "", "the column name has byte 0x%02X at byte %d, which is not UTF-8: the file is in another encoding (Latin-1 or Windows-1252?); convert it, e.g. iconv -f latin1 -t utf-8", n[i], i+1)
			}
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
			if numericRow(first) {
				err = fmt.Errorf("%v; the first line is all numbers: if the file has no header, read it with NoHeader (fresgld: --no-header) and give the label as a column number", err)
			}
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
	if err := eachRow(next, first, line, opt.NoHeader, row); err != nil {
		return nil, err
	}
	d.N = len(d.Y)
	if d.N == 0 {
		return nil, bad(0, 0, "", "no data rows after the header")
	}
	var ones int
	for _, y := range d.Y {
		if y == 1 {
			ones++
		}
	}
	// A continuous response (regress) has no classes.
	if !opt.Response && (ones == 0 || ones == d.N) {
		// The likelihood then only pushes the intercept towards ±∞: the
		// posterior is the prior's, cut off on one side, whatever the
		// features say.
		return nil, bad(0, lab+1, names[lab], "every one of the %d examples has label %d: logistic regression needs examples of both classes (is this the label column?)", d.N, 1-min(1, d.N-ones))
	}
	if err := d.constants(opt, file); err != nil {
		return nil, err
	}
	d.duplicates(file)
	if !opt.NoStandardize {
		if j, err := d.standardize(file); err != nil {
			return nil, bad(0, d.cols[j]+1, d.Names[j], "%v", err)
		}
	}
	return d, nil
}

// binaryKind names the kind of a file that is not CSV text from its first
// bytes, or returns "".
func binaryKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "the file is gzip-compressed, not CSV text: decompress it first (gunzip, or zcat file.gz > file.csv)"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "the file is a zip archive (a spreadsheet such as .xlsx is one), not CSV text: extract the CSV or export the sheet as CSV"
	case bytes.HasPrefix(head, []byte("BZh")) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return "the file is bzip2-compressed, not CSV text: decompress it first (bunzip2)"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "the file is xz-compressed, not CSV text: decompress it first (unxz)"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "the file is zstd-compressed, not CSV text: decompress it first (unzstd)"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return "the file is UTF-16 text (it starts with a UTF-16 byte order mark): convert it to UTF-8, e.g. iconv -f utf-16 -t utf-8"
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("the file is binary, not CSV text (a NUL byte at byte %d)", i+1)
	}
	return ""
}

// invalidUTF8 is the byte offset of the first byte of s that is not part
// of valid UTF-8, or -1.
func invalidUTF8(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// constants finds the features that take one value in every example. With
// DropConstant it removes them and warns; else, if standardising, it
// refuses the file naming them all (a user who fixed them one per run
// would rerun once per column); without standardisation they are kept:
// the model is then merely redundant with its intercept.
func (d *Data) constants(opt Options, file string) error {
	var drop []int
	for j := range d.P {
		v := d.X[j]
		same := true
		for i := 1; i < d.N && same; i++ {
			same = d.X[i*d.P+j] == v
		}
		if same {
			drop = append(drop, j)
		}
	}
	if len(drop) == 0 || opt.NoStandardize && !opt.DropConstant {
		return nil
	}
	if d.N == 1 {
		// Over one example every feature is constant: naming each, and
		// "drop the column(s)", would have the user drop them all.
		return &Error{File: file, Msg: "1 data row: over a single example every feature is constant, so none can be standardised and the data say nothing of the coefficients; give more rows"}
	}
	list := func(from int) string {
		var b []string
		for _, j := range drop[from:] {
			b = append(b, fmt.Sprintf("column %d (%q, %v)", d.cols[j]+1, d.Names[j], d.X[j]))
		}
		return strings.Join(b, ", ")
	}
	if !opt.DropConstant {
		msg := fmt.Sprintf("the feature is constant (%v)", d.X[drop[0]])
		if len(drop) > 1 {
			msg += fmt.Sprintf("; %d more are: %s", len(drop)-1, list(1))
		}
		return &Error{File: file, Column: d.cols[drop[0]] + 1, Name: d.Names[drop[0]],
			Msg: msg + ": a constant feature cannot be standardised; drop the column(s) from the file" + opt.ConstantRemedy}
	}
	if len(drop) == d.P {
		return &Error{File: file, Msg: fmt.Sprintf("every feature is constant (%s): nothing is left to regress on", list(0))}
	}
	d.Warnings = append(d.Warnings, fmt.Sprintf("%s: dropped %d constant feature(s): %s", file, len(drop), list(0)))
	p := d.P - len(drop)
	keep := make([]int, 0, p)
	for j := range d.P {
		if !slices.Contains(drop, j) {
			keep = append(keep, j)
		}
	}
	for i := range d.N { // row i moves to i·p ≤ i·P: no unread row is overwritten
		for k, j := range keep {
			d.X[i*p+k] = d.X[i*d.P+j]
		}
	}
	d.X = d.X[:d.N*p]
	names, cols := make([]string, 0, p), make([]int, 0, p)
	for _, j := range keep {
		names, cols = append(names, d.Names[j]), append(cols, d.cols[j])
	}
	d.P, d.Names, d.cols = p, names, cols
	return nil
}

// outlierRatio is the distance from the other values, in their standard
// deviations, beyond which one value is reported as an outlier: after
// standardisation such a column is an indicator of that one example, all
// others squeezed near one value.
const outlierRatio = 1e3

// outlier finds the example of column x farthest from the mean (by its
// standardised value z) and its distance from the mean of the other
// examples, in their standard deviations; ratio is 0 when the others are
// all equal (the column is then an indicator of that example by nature, as
// a rare dummy variable is). The distance is measured on the raw values,
// by meanSD's rescaling: standardised, the others can collapse onto one
// value (beside 1e308, values near 1 differ by less than an ulp of the
// mean). It is computed only when |z| is large enough for the ratio to
// exceed outlierRatio: z ≈ r/√(1 + r²/N) at ratio r, so below
// min(outlierRatio, √(N−1))/2 it cannot, and ordinary columns cost one pass.
func outlier(x, z []float64) (far int, ratio float64) {
	fz := 0.0
	for i, v := range z {
		if a := math.Abs(v); a > fz {
			far, fz = i, a
		}
	}
	if !(fz > min(outlierRatio, math.Sqrt(float64(len(z)-1)))/2) {
		return far, 0
	}
	rest := slices.Concat(x[:far], x[far+1:])
	m, sd, scale := meanSD(rest)
	if !(sd > 0) {
		return far, 0
	}
	return far, math.Abs(x[far]/scale-m/scale) / (sd / scale)
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
	if strings.TrimSpace(label) == "" {
		return 0, errors.New("no label column given")
	}
	return findColumn("label column", label, names, header)
}

// findColumn finds the column (0-based) that what names, by header name
// (tried first) or by 1-based number; errors begin with what.
func findColumn(what, col string, names []string, header bool) (int, error) {
	col = strings.TrimSpace(col)
	if header {
		for k, n := range names {
			if n == col {
				return k, nil
			}
		}
	}
	k, err := strconv.Atoi(col)
	if err != nil {
		if header {
			return 0, fmt.Errorf("%s %q: no column has that name (columns: %s)", what, col, strings.Join(names, ", "))
		}
		return 0, fmt.Errorf("%s %q: without a header, give it as a column number", what, col)
	}
	if k < 1 || k > len(names) {
		return 0, fmt.Errorf("%s %d: the file has columns 1..%d", what, k, len(names))
	}
	return k - 1, nil
}

// standardize centres and scales every feature, keeping the means and
// population standard deviations, and warns about a feature whose spread is
// one example's (outlier): standardised, every other example then sits
// within 1/outlierRatio of one value, and the coefficient measures that
// one example. On an error it returns the feature at
// fault.
func (d *Data) standardize(file string) (int, error) {
	d.Means = make([]float64, d.P)
	d.SDs = make([]float64, d.P)
	col, zs := make([]float64, d.N), make([]float64, d.N)
	for j := 0; j < d.P; j++ {
		for i := range col {
			col[i] = d.X[i*d.P+j]
		}
		m, sd, scale := meanSD(col)
		if !(sd > 0) { // constants refused them already; kept as a guard
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
			d.X[i*d.P+j], zs[i] = z, z
		}
		if far, r := outlier(col, zs); d.N > 2 && r > outlierRatio {
			v := col[far]
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: column %d (%q): example %d (value %.6g) lies %.3g standard deviations of the other examples from their mean: standardised, the column is nearly an indicator of that one example; check the value, or drop or transform the column (e.g. log)",
				file, d.cols[j]+1, d.Names[j], far+1, v, r))
		}
	}
	return 0, nil
}

// tinySD is the sd below which squared residuals lose precision in the
// subnormal range or underflow to 0 (a column of values near 1e-302 that
// varies came out "constant"): meanSD then rescales as for huge values.
const tinySD = 1e-150

// meanSD returns the mean and population standard deviation of xs. Sums
// of values near the float64 limit (from about 1e154 up, where a square
// overflows), and of values whose residuals are so small that their
// squares underflow (sd below tinySD), are taken on xs divided by scale = max |x|, which is then
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
	if !math.IsInf(m, 0) && !math.IsInf(sd, 0) && !math.IsNaN(m+sd) && !(sd < tinySD) {
		return m, sd, 1
	}
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 {
		return 0, 0, 1
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
