package dataset

import (
	"math"
	"strings"
	"testing"
)

// A response column takes any finite number, and is standardised to mean
// 0 and population sd 1 (values 1, 2, 6: mean 3, sd √(14/3)); without
// Response the same file is refused for its non-0/1 labels.
func TestResponse(t *testing.T) {
	const text = "a,y\n1,1\n2,2\n4,6\n"
	if _, err := Read(strings.NewReader(text), "r.csv", Options{Label: "y"}); err == nil || !strings.Contains(err.Error(), "not 0 or 1") {
		t.Errorf("0/1 label: error %v", err)
	}
	d, err := Read(strings.NewReader(text), "r.csv", Options{Label: "y", Response: true})
	if err != nil {
		t.Fatal(err)
	}
	m, sd, err := d.StandardizeResponse()
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt(14.0 / 3)
	if m != 3 || math.Abs(sd-want) > 1e-15 {
		t.Errorf("mean %v sd %v, want 3 and %v", m, sd, want)
	}
	for i, v := range []float64{1, 2, 6} {
		if math.Abs(d.Y[i]-(v-3)/want) > 1e-15 {
			t.Errorf("y[%d] = %v, want %v", i, d.Y[i], (v-3)/want)
		}
	}
	c, _ := Read(strings.NewReader("a,y\n1,2\n3,2\n"), "c.csv", Options{Label: "y", Response: true})
	if _, _, err := c.StandardizeResponse(); err == nil || !strings.Contains(err.Error(), `"y" is constant`) {
		t.Errorf("constant response: error %v", err)
	}
}

// A response has no classes: one whose values are all 0, or all huge
// (1e300 × a response, which int conversion would have counted as no
// ones), is read, not refused with logistic regression's "both classes".
func TestResponseHasNoClasses(t *testing.T) {
	for _, text := range []string{"a,y\n1,0\n2,0\n3,0\n", "a,y\n1,1e300\n2,-2e300\n3,3e300\n"} {
		d, err := Read(strings.NewReader(text), "r.csv", Options{Label: "y", Response: true})
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if d.N != 3 {
			t.Errorf("%q: %d rows", text, d.N)
		}
	}
	if _, err := Read(strings.NewReader("a,y\n1,0\n2,0\n3,0\n"), "r.csv", Options{Label: "y"}); err == nil || !strings.Contains(err.Error(), "both classes") {
		t.Errorf("a 0/1 label of one class: error %v", err)
	}
}
