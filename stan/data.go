package stan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Stan model reads its data through a var_context. The Stan library that
// Debian's StanHeaders carries (2.21) reads R's dump format but not JSON,
// which is what CmdStan, cmdstanpy and posteriordb use; so JSON is read here
// and written as a dump. A dump holds each array's values in column-major
// order with its dimensions; JSON nests arrays row-major.

// variable is one name of the data: its dimensions (none for a scalar),
// its values in column-major order, and whether every value was written
// as an integer.
type variable struct {
	name string
	dims []int
	vals []json.Number
	ints bool
}

// ReadData reads a data file for a Stan model, JSON (CmdStan's layout) or
// an R dump (a name ending .R or .r, passed through), and returns the
// dump's text. An empty path is a model without data.
func ReadData(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".r" {
		return b, nil
	}
	d, err := JSONToDump(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// JSONToDump converts a JSON object of Stan data (numbers, the strings
// "NaN", "Inf", "Infinity" and their negatives, and rectangular nested
// arrays of them) into R dump text.
func JSONToDump(r io.Reader) ([]byte, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("not a JSON object of data: %w", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value: want one object")
	}
	names := make([]string, 0, len(top))
	for n := range top {
		names = append(names, n)
	}
	sort.Strings(names)
	var out bytes.Buffer
	for _, n := range names {
		v, err := toVariable(n, top[n])
		if err != nil {
			return nil, err
		}
		writeDump(&out, v)
	}
	return out.Bytes(), nil
}

func toVariable(name string, x any) (variable, error) {
	if !validName(name) {
		return variable{}, fmt.Errorf("data name %q is not a Stan identifier", name)
	}
	v := variable{name: name, ints: true}
	dims, err := shape(x)
	if err != nil {
		return variable{}, fmt.Errorf("data %q: %w", name, err)
	}
	v.dims = dims
	// Row-major leaves, then their column-major order.
	var flat []json.Number
	if err := leaves(x, &flat); err != nil {
		return variable{}, fmt.Errorf("data %q: %w", name, err)
	}
	for _, s := range flat {
		if !isInt(s) {
			v.ints = false
		}
	}
	v.vals = columnMajor(flat, dims)
	return v, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shape is the dimensions of a rectangular nest of arrays, an error where
// the nest is ragged.
func shape(x any) ([]int, error) {
	a, ok := x.([]any)
	if !ok {
		if _, err := number(x); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if len(a) == 0 {
		return []int{0}, nil
	}
	inner, err := shape(a[0])
	if err != nil {
		return nil, err
	}
	for i, e := range a[1:] {
		d, err := shape(e)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(d, inner) {
			return nil, fmt.Errorf("ragged array: element %d has dimensions %v, element 1 %v", i+2, d, inner)
		}
	}
	return append([]int{len(a)}, inner...), nil
}

func leaves(x any, dst *[]json.Number) error {
	if a, ok := x.([]any); ok {
		for _, e := range a {
			if err := leaves(e, dst); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := number(x)
	if err != nil {
		return err
	}
	*dst = append(*dst, n)
	return nil
}

// number reads a JSON number, or one of the strings that CmdStan's JSON
// reader takes for the values JSON cannot write.
func number(x any) (json.Number, error) {
	switch v := x.(type) {
	case json.Number:
		return v, nil
	case string:
		switch strings.ToLower(v) {
		case "nan":
			return "NaN", nil
		case "inf", "infinity", "+inf", "+infinity":
			return "Inf", nil
		case "-inf", "-infinity":
			return "-Inf", nil
		}
		return "", fmt.Errorf("the string %q is not a number (only \"NaN\", \"Inf\" and \"-Inf\" are)", v)
	case bool:
		return "", fmt.Errorf("%v: a boolean, where Stan data are numbers (write 0 or 1)", v)
	case nil:
		return "", errors.New("null, where Stan data are numbers")
	default:
		return "", fmt.Errorf("%v is not a number or an array", v)
	}
}

func isInt(s json.Number) bool {
	if strings.ContainsAny(string(s), ".eEIN") {
		return false
	}
	_, err := strconv.ParseInt(string(s), 10, 32)
	return err == nil
}

// columnMajor reorders row-major values of the given dimensions.
func columnMajor(rm []json.Number, dims []int) []json.Number {
	if len(dims) < 2 {
		return rm
	}
	cm := make([]json.Number, len(rm))
	idx := make([]int, len(dims))
	for k := range rm {
		// k is the row-major position of idx; its column-major one has
		// the first index varying fastest.
		c, stride := 0, 1
		for d := range dims {
			c += idx[d] * stride
			stride *= dims[d]
		}
		cm[c] = rm[k]
		for d := len(dims) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
	}
	return cm
}

func writeDump(w *bytes.Buffer, v variable) {
	w.WriteString(v.name)
	w.WriteString(" <- ")
	val := func(s json.Number) string {
		if v.ints {
			return string(s)
		}
		return realText(s)
	}
	if v.dims == nil {
		w.WriteString(val(v.vals[0]))
		w.WriteString("\n")
		return
	}
	if len(v.dims) > 1 {
		w.WriteString("structure(")
	}
	switch {
	case len(v.vals) > 0:
		w.WriteString("c(")
		for i, s := range v.vals {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(val(s))
		}
		w.WriteString(")")
	case v.ints:
		w.WriteString("integer(0)")
	default:
		w.WriteString("double(0)")
	}
	if len(v.dims) > 1 {
		w.WriteString(", .Dim = c(")
		for i, d := range v.dims {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(strconv.Itoa(d))
		}
		w.WriteString("))")
	}
	w.WriteString("\n")
}

// realText writes a number so that the dump reads it as a real: with a
// decimal point or an exponent.
func realText(s json.Number) string {
	t := string(s)
	switch t {
	case "NaN", "Inf", "-Inf":
		return t
	}
	if strings.ContainsAny(t, ".eE") {
		return t
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	return t + ".0"
}
