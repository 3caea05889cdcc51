package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReadStandardizes(t *testing.T) {
	in := "a,y,b\n1,0,10\n2,1,20\n3,1,60\n"
	d, err := Read(strings.NewReader(in), "t.csv", Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 3 || d.P != 2 || d.Label != "y" || d.Names[0] != "a" || d.Names[1] != "b" {
		t.Fatalf("shape or names wrong: %+v", d)
	}
	if d.Y[0] != 0 || d.Y[1] != 1 || d.Y[2] != 1 {
		t.Errorf("labels %v", d.Y)
	}
	// Column a = (1,2,3): mean 2, population sd √(2/3).
	if d.Means[0] != 2 || !(math.Abs(d.SDs[0]-math.Sqrt(2.0/3)) <= 1e-15) {
		t.Errorf("mean/sd of a = %v, %v", d.Means[0], d.SDs[0])
	}
	// Column b = (10,20,60): mean 30, population sd √(1400/3).
	if d.Means[1] != 30 || !(math.Abs(d.SDs[1]-math.Sqrt(1400.0/3)) <= 1e-12) {
		t.Errorf("mean/sd of b = %v, %v", d.Means[1], d.SDs[1])
	}
	for j := 0; j < d.P; j++ {
		var m, v float64
		for i := 0; i < d.N; i++ {
			m += d.X[i*d.P+j] / 3
		}
		for i := 0; i < d.N; i++ {
			r := d.X[i*d.P+j] - m
			v += r * r / 3
		}
		if !(math.Abs(m) <= 1e-15 && math.Abs(v-1) <= 1e-14) {
			t.Errorf("feature %d after standardisation: mean %v, variance %v", j, m, v)
		}
	}
}

func TestReadNoHeaderByIndex(t *testing.T) {
	in := "1.5,7,1\n-2,8,0\n"
	d, err := Read(strings.NewReader(in), "t.csv", Options{Label: "3", NoHeader: true, NoStandardize: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.5, 7, -2, 8}
	for i, w := range want {
		if d.X[i] != w {
			t.Fatalf("X = %v, want %v", d.X, want)
		}
	}
	if d.Y[0] != 1 || d.Y[1] != 0 || d.Means != nil || d.Names[1] != "col2" || d.Label != "col3" {
		t.Errorf("unexpected %+v", d)
	}
}

// TestReadErrors checks that each kind of malformed input is reported with
// the file, the line and the column where it can be located.
func TestReadErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opt      Options
		line     int
		col      int
		msg      string
	}{
		{"empty", "", Options{Label: "y"}, 0, 0, "empty"},
		{"header only", "a,y\n", Options{Label: "y"}, 0, 0, "no data rows"},
		{"missing", "a,y\n1,0\n,1\n", Options{Label: "y"}, 3, 1, "missing value"},
		{"non-numeric", "a,b,y\n1,2,0\n3,x7,1\n", Options{Label: "y"}, 3, 2, `"x7" is not a finite number`},
		{"nan", "a,y\n1,0\nNaN,1\n", Options{Label: "y"}, 3, 1, "not a finite number"},
		{"label not 0/1", "a,y\n1,0\n2,2\n", Options{Label: "y"}, 3, 2, `label "2" is not 0 or 1`},
		{"unknown column name", "a,y\n1,0\n", Options{Label: "z"}, 1, 0, `label column "z": no column has that name`},
		{"column number out of range", "a,y\n1,0\n", Options{Label: "3"}, 1, 0, "columns 1..2"},
		{"name without header", "1,0\n", Options{Label: "y", NoHeader: true}, 0, 0, "column number"},
		{"ragged", "a,b,y\n1,2,0\n3,1\n", Options{Label: "y"}, 3, 0, "2 fields, but the first line has 3"},
		{"constant feature", "a,b,y\n1,5,0\n2,5,1\n", Options{Label: "y"}, 0, 2, `column 2 ("b"): the feature is constant`},
		{"constant feature after the label", "a,y,b\n1,0,5\n2,1,5\n", Options{Label: "y"}, 0, 3, `column 3 ("b"): the feature is constant`},
		{"duplicate names", "a,y,a\n1,0,5\n2,1,6\n", Options{Label: "y"}, 1, 3, `column 3 ("a"): duplicate column name: column 1`},
		{"empty name", "a,,y\n1,0,5\n2,1,6\n", Options{Label: "y"}, 1, 2, "empty column name"},
		// Squares of 1e200 overflow; the sd is found by rescaling, and
		// the sd of 1e308 and −1e308 is 1e308, still finite. Values that
		// differ only below the precision of 1e300 are constant.
		{"constant huge feature", "a,b,y\n1,1e300,0\n2,1e300,1\n", Options{Label: "y"}, 0, 2, "the feature is constant"},
		{"bad quote", "a,y\n\"1,0\n", Options{Label: "y"}, 2, 0, "quote"},
		// Every constant feature is named, so that one rerun fixes them all.
		{"three constant features", "a,b,y,c,d\n1,5,0,7,2\n2,5,1,7,2\n", Options{Label: "y"}, 0, 2, `the feature is constant (5); 2 more are: column 4 ("c", 7), column 5 ("d", 2)`},
		{"constant with drop hint", "a,b,y\n1,5,0\n2,5,1\n", Options{Label: "y"}, 0, 2, "drop the column(s) from the file"},
		// One row: every feature is constant, and the message says why
		// rather than asking for every column to be dropped.
		{"single row", "a,b,y\n1,5,3.5\n", Options{Label: "y", Response: true}, 0, 0, "1 data row: over a single example every feature is constant"},
		{"single row, drop", "a,b,y\n1,5,3.5\n", Options{Label: "y", Response: true, DropConstant: true}, 0, 0, "1 data row"},
		{"all constant dropped", "a,y\n5,0\n5,1\n", Options{Label: "y", DropConstant: true}, 0, 0, `every feature is constant (column 1 ("a", 5))`},
		{"single class 0", "a,y\n1,0\n2,0\n3,0\n", Options{Label: "y"}, 0, 2, "every one of the 3 examples has label 0: logistic regression needs examples of both classes"},
		{"single class 1", "y,a\n1,1\n1,2\n", Options{Label: "y"}, 0, 1, "every one of the 2 examples has label 1"},
		{"latin-1 header", "a,caf\xe9,y\n1,2,0\n2,3,1\n", Options{Label: "y"}, 1, 2, "byte 0xE9 at byte 4, which is not UTF-8"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", Options{Label: "y"}, 0, 0, "gzip-compressed"},
		{"zip", "PK\x03\x04\x14\x00", Options{Label: "y"}, 0, 0, "zip archive"},
		{"binary", "a,y\n1,\x000\n", Options{Label: "y"}, 0, 0, "NUL byte at byte 7"},
		{"utf-16", "\xff\xfea\x00,\x00y\x00", Options{Label: "y"}, 0, 0, "UTF-16"},
		{"headerless label name", "1,2,0\n2,3,1\n", Options{Label: "y"}, 1, 0, "--no-header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in), "data.csv", c.opt)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *dataset.Error", err)
			}
			if e.File != "data.csv" || e.Line != c.line || (c.col > 0 && e.Column != c.col) || !strings.Contains(e.Error(), c.msg) {
				t.Errorf("got %q (line %d, column %d); want line %d, column %d, containing %q", err, e.Line, e.Column, c.line, c.col, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "data.csv") {
				t.Errorf("%q does not start with the file name", err)
			}
		})
	}
}

func TestReadBreastCancer(t *testing.T) {
	d, err := ReadFile("../data/wdbc.csv", Options{Label: "benign"})
	if err != nil {
		t.Fatal(err)
	}
	var ones float64
	for _, y := range d.Y {
		ones += y
	}
	// The data's documented shape and class counts (212 malignant, 357 benign).
	if d.N != 569 || d.P != 30 || ones != 357 {
		t.Errorf("N = %d, P = %d, benign = %v; want 569, 30, 357", d.N, d.P, ones)
	}
}

func TestWithIntercept(t *testing.T) {
	d := &Data{N: 2, P: 2, X: []float64{1, 2, 3, 4}}
	x, p := d.WithIntercept()
	want := []float64{1, 1, 2, 1, 3, 4}
	if p != 3 || len(x) != len(want) {
		t.Fatalf("p = %d, x = %v", p, x)
	}
	for i := range want {
		if x[i] != want[i] {
			t.Fatalf("x = %v, want %v", x, want)
		}
	}
}

// A byte order mark is stripped, also before a quoted header, so that the
// first column is found by its name; quoted names with commas are kept
// whole.
func TestReadBOMAndQuotedHeader(t *testing.T) {
	for _, in := range []string{
		"\uFEFFlabel,\"x, in cm\"\n1,2\n0,3\n",
		"\uFEFF\"label\",\"x, in cm\"\n1,2\n0,3\n",
		"\"label\",\"x, in cm\"\n1,2\n0,3\n",
	} {
		d, err := Read(strings.NewReader(in), "t.csv", Options{Label: "label"})
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if d.Label != "label" || len(d.Names) != 1 || d.Names[0] != "x, in cm" || len(d.Warnings) != 0 {
			t.Errorf("%q: label %q, names %q, warnings %q", in, d.Label, d.Names, d.Warnings)
		}
	}
}

// A first line of numbers read as a header draws a warning naming the
// line; a real header does not.
func TestReadWarnsOnNumericHeader(t *testing.T) {
	d, err := Read(strings.NewReader("1.5,0\n2,1\n3,0\n"), "t.csv", Options{Label: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "t.csv:1: the header line (1.5,0) is all numbers") || !strings.Contains(d.Warnings[0], "--no-header") {
		t.Errorf("warnings %q", d.Warnings)
	}
	d, err = Read(strings.NewReader("a,1\n2,1\n3,0\n"), "t.csv", Options{Label: "2"})
	if err != nil || len(d.Warnings) != 0 {
		t.Errorf("header with a name: warnings %q, error %v", d.Warnings, err)
	}
}

// Features from about 1e154 up, whose squares overflow, are standardised
// by rescaling: the result is the same as for the column divided by 1e200,
// up to rounding.
func TestReadHugeValues(t *testing.T) {
	small, err := Read(strings.NewReader("a,y\n1,0\n2,1\n4,1\n"), "t.csv", Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"1e200", "1e300", "1e154"} {
		big := strings.NewReplacer("1,", "1"+s[1:]+",", "2,", "2"+s[1:]+",", "4,", "4"+s[1:]+",").Replace("a,y\n1,0\n2,1\n4,1\n")
		d, err := Read(strings.NewReader(big), "t.csv", Options{Label: "y"})
		if err != nil {
			t.Fatalf("%s: %v", big, err)
		}
		for i := range d.X {
			if !(math.Abs(d.X[i]-small.X[i]) <= 1e-14) || math.IsInf(d.SDs[0], 0) {
				t.Errorf("%s: standardised %v, want %v (sd %v)", s, d.X, small.X, d.SDs)
				break
			}
		}
	}
	// ±1.7e308: the mean is 0 and the sd 1.7e308, finite.
	d, err := Read(strings.NewReader("a,y\n1.7e308,0\n-1.7e308,1\n"), "t.csv", Options{Label: "y"})
	if err != nil || d.SDs[0] != 1.7e308 || d.X[0] != 1 || d.X[1] != -1 {
		t.Errorf("±1.7e308: %v, %+v", err, d)
	}
}

// A feature that varies at a tiny scale is standardised, not called
// constant: its squared residuals underflow, and meanSD rescales them.
func TestReadTinyValues(t *testing.T) {
	d, err := Read(strings.NewReader("a,y\n-4.39e-302,0\n1e-302,1\n3e-302,1\n"), "t.csv", Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	var m, v float64
	for _, z := range d.X {
		m += z / 3
	}
	for _, z := range d.X {
		v += (z - m) * (z - m) / 3
	}
	if !(math.Abs(m) < 1e-12 && math.Abs(v-1) < 1e-12) {
		t.Errorf("standardised %v: mean %v, variance %v", d.X, m, v)
	}
}

// DropConstant removes the constant features, names them in a warning and
// keeps the rest, in order, with their columns.
func TestReadDropConstant(t *testing.T) {
	d, err := Read(strings.NewReader("a,k,y,b,c\n1,5,0,0,7\n2,5,1,1,7\n4,5,1,3,7\n"), "t.csv", Options{Label: "y", DropConstant: true, NoStandardize: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.P != 2 || !slices.Equal(d.Names, []string{"a", "b"}) || !slices.Equal(d.X, []float64{1, 0, 2, 1, 4, 3}) || d.Column(1) != 4 {
		t.Errorf("P %d, names %q, X %v, column of b %d", d.P, d.Names, d.X, d.Column(1))
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], `dropped 2 constant feature(s): column 2 ("k", 5), column 5 ("c", 7)`) {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// One extreme value turns its standardised column into an indicator of its
// example: the reader warns, naming the column, the example and the value.
// Heavy but ordinary tails, and a dummy variable with one 1, do not warn.
func TestReadWarnsOnOutlier(t *testing.T) {
	var b, ok strings.Builder
	b.WriteString("a,b,y\n")
	ok.WriteString("a,d,y\n")
	for i := range 60 {
		v := fmt.Sprint(float64(i%7) + 0.5)
		if i == 17 {
			v = "1e308"
		}
		fmt.Fprintf(&b, "%d,%s,%d\n", i%5, v, i%2)
		fmt.Fprintf(&ok, "%g,%d,%d\n", math.Exp(float64(i%13)), min(1, max(0, i-58)), i%2)
	}
	d, err := Read(strings.NewReader(b.String()), "t.csv", Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], `t.csv: column 2 ("b"): example 18 (value 1e+308) lies`) {
		t.Errorf("warnings %q", d.Warnings)
	}
	d, err = Read(strings.NewReader(ok.String()), "t.csv", Options{Label: "y"})
	if err != nil || len(d.Warnings) != 0 {
		t.Errorf("ordinary data: %v, warnings %q", err, d.Warnings)
	}
}
