package dataset

import (
	"math"
	"strings"
	"testing"
)

// FuzzRead: on any input the reader returns an error or data that a sampler
// can use: no panic; every accepted file gives finite features, means and
// sds, 0/1 labels and consistent shapes; no name keeps a byte order mark.
// CI runs it briefly (.ci/run); `go test ./dataset -fuzz FuzzRead` runs it
// for as long as one likes.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"a,y,b\n1,0,10\n2,1,20\n3,1,60\n",
		"\uFEFF\"a, b\",y\n1,0\n2,1\n",
		"1,0\n2,1\n",
		"a,y\n1e200,0\n-1e308,1\n5e-324,0\n",
		"a,a,y\n1,2,0\n",
		"a,y\n1,0\n2\n",
		"a,y\n\"1,0\n",
	} {
		f.Add(s, "y", false, false)
		f.Add(s, "2", true, false)
		f.Add(s, "1", false, true)
	}
	f.Fuzz(func(t *testing.T, in, label string, noHeader, noStd bool) {
		d, err := Read(strings.NewReader(in), "f.csv", Options{Label: label, NoHeader: noHeader, NoStandardize: noStd})
		if err != nil {
			if d != nil {
				t.Fatalf("data and an error: %v", err)
			}
			return
		}
		if d.N < 1 || d.P < 1 || len(d.X) != d.N*d.P || len(d.Y) != d.N || len(d.Names) != d.P {
			t.Fatalf("shapes: N %d, P %d, |X| %d, |Y| %d, names %d", d.N, d.P, len(d.X), len(d.Y), len(d.Names))
		}
		finite := func(what string, xs []float64) {
			for i, x := range xs {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%s[%d] = %v", what, i, x)
				}
			}
		}
		finite("X", d.X)
		finite("Means", d.Means)
		finite("SDs", d.SDs)
		if !noStd && (len(d.Means) != d.P || len(d.SDs) != d.P) {
			t.Fatalf("standardised without means or sds")
		}
		for _, sd := range d.SDs {
			if !(sd > 0) {
				t.Fatalf("sd %v", sd)
			}
		}
		for _, y := range d.Y {
			if y != 0 && y != 1 {
				t.Fatalf("label %v", y)
			}
		}
		for _, n := range append([]string{d.Label}, d.Names...) {
			if strings.Contains(n, bom) {
				t.Fatalf("name %q keeps a byte order mark", n)
			}
		}
	})
}
