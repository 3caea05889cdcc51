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

// A feature that repeats another in every example is named in a warning,
// with the column it repeats; features that differ in one example are not.
func TestDuplicateColumnsWarned(t *testing.T) {
	const text = "x1,x2,y,x4,x5\n1,5,0,1,1\n2,6,1,2,2\n3,8,0,3,3.5\n4,7,1,4,4\n"
	d, err := Read(strings.NewReader(text), "d.csv", Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(d.Warnings, "\n")
	if !strings.Contains(w, `column 4 ("x4") repeats column 1 ("x1")`) || strings.Contains(w, "x5") || strings.Contains(w, "x2") {
		t.Errorf("warnings %q; want one saying x4 repeats x1, none of x2 or x5", w)
	}
	d, _ = Read(strings.NewReader("x1,x2,y\n1,5,0\n2,6,1\n"), "d.csv", Options{Label: "y"})
	if len(d.Warnings) != 0 {
		t.Errorf("distinct columns warned: %q", d.Warnings)
	}
}
