package figure

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// An axis's tick labels share one format: "250.00" no longer stands beside
// "300", and tiny or huge values keep a short mantissa.
func TestTickFormat(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		want []string
	}{
		{[]float64{250, 275, 300}, []string{"250", "275", "300"}},
		{[]float64{0, 2.5, 5}, []string{"0", "2.5", "5.0"}},
		{[]float64{-0.5, 0, 0.5, 1}, []string{"-0.5", "0", "0.5", "1.0"}},
		{[]float64{-3e-140, 0, 3e-140}, []string{"-3e-140", "0", "3e-140"}},
		{[]float64{1e7, 2e7, 3e7}, []string{"1e+07", "2e+07", "3e+07"}},
		{[]float64{30000, 90000, 150000}, []string{"30000", "90000", "150000"}},
	} {
		f := tickFormat(c.vals)
		var got []string
		for _, v := range c.vals {
			got = append(got, f(v))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("labels of %v: %q, want %q", c.vals, got, c.want)
		}
	}
	// Through the ticker: every labelled tick of one axis has the same
	// number of decimals.
	for _, r := range [][2]float64{{0.1, 0.95}, {240, 310}, {-2.87567e-140, 3.1e-140}} {
		var decimals []int
		for _, tk := range (tidyTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" || tk.Label == "0" {
				continue
			}
			m, _, _ := strings.Cut(tk.Label, "e")
			_, frac, _ := strings.Cut(m, ".")
			decimals = append(decimals, len(frac))
		}
		if len(decimals) < 2 || slices.Min(decimals) != slices.Max(decimals) {
			t.Errorf("ticks on %v: decimals %v", r, decimals)
		}
	}
}

// The replica axis is labelled at whole replica ids only.
func TestReplicasIntegerTicks(t *testing.T) {
	ps, err := Replicas([]int{1}, [][][]float64{{{1, 1, 2}, {2, 2, 1}, {3, 3, 3}}}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range ps[0].Y.Tick.Marker.Ticks(ps[0].Y.Min, ps[0].Y.Max) {
		labels = append(labels, tk.Label)
	}
	if !slices.Equal(labels, []string{"1", "2", "3"}) {
		t.Errorf("replica ticks %q, want 1, 2, 3", labels)
	}
}

// The key names each line in its colour and carries the caption.
func TestKey(t *testing.T) {
	k, err := Key([]string{"chain 1", "chain 2"}, "trace: the 12 of 40 variables with the largest rhat")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(k.Title.Text, "12 of 40") || !strings.Contains(k.Title.Text, "\n") {
		t.Errorf("caption %q, want it wrapped", k.Title.Text)
	}
	var svg bytes.Buffer
	w, err := k.WriterTo(6*vg.Centimeter, 4*vg.Centimeter, "svg")
	if err != nil {
		t.Fatal(err)
	}
	w.WriteTo(&svg)
	for _, want := range []string{">chain 1<", ">chain 2<", "stroke:#2CA02C"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("the key's SVG lacks %s", want)
		}
	}
}
