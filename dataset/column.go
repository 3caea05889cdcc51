package dataset

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Column is one numeric column of a CSV file.
type Column struct {
	// Name is the column's header name, or "col<k>" without a header.
	Name string
	// Index is its column number, from 1.
	Index int
	// Values are its values, one per data row, in file order.
	Values []float64
}

// ReadColumn reads the column named col (a header name, or a column number
// counted from 1) of the CSV file at path: every data row's value, which
// must be a finite number. The other columns are not read as numbers (a
// file of other columns, text among them, is fine), but every row must
// have the first line's number of fields. Errors name the file, the line
// and the value, as Read's do.
func ReadColumn(path, col string, noHeader bool) (*Column, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadColumnFrom(f, path, col, noHeader)
}

// ReadColumnFrom is ReadColumn on the CSV text r, named file in errors
// (an embedded data set, say).
func ReadColumnFrom(r io.Reader, file, col string, noHeader bool) (*Column, error) {
	next, bad, first, line, err := firstRecord(r, file)
	if err != nil {
		return nil, err
	}
	ncol := len(first)
	names := make([]string, ncol)
	for k := range names {
		names[k] = "col" + strconv.Itoa(k+1)
		if !noHeader {
			names[k] = strings.TrimSpace(strings.ReplaceAll(first[k], bom, ""))
		}
	}
	k, err := findColumn("column", col, names, !noHeader)
	if err != nil {
		hl := 0
		if !noHeader {
			hl = line
			if numericRow(first) {
				err = fmt.Errorf("%v; the first line is all numbers: if the file has no header, read it with --no-header and give the column as a number", err)
			}
		}
		return nil, bad(hl, 0, "", "%v", err)
	}
	c := &Column{Name: names[k], Index: k + 1}
	row := func(rec []string, line int) error {
		if len(rec) != ncol {
			return bad(line, 0, "", "%d fields, but the first line has %d", len(rec), ncol)
		}
		s := strings.TrimSpace(rec[k])
		if s == "" {
			return bad(line, k+1, c.Name, "missing value")
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(line, k+1, c.Name, "%q is not a finite number", s)
		}
		c.Values = append(c.Values, v)
		return nil
	}
	if err := eachRow(next, first, line, noHeader, row); err != nil {
		return nil, err
	}
	if len(c.Values) == 0 {
		return nil, bad(0, 0, "", "no data rows after the header")
	}
	return c, nil
}
