package energy

import (
	"math"
	"strings"
	"testing"
)

// Reflection folds a coordinate back into [lo, hi] as a mirror does, as many
// times as needed: on [1, 3] (width 2), 3.5 → 2.5, 0.25 → 1.75, 6.5 → 2.5
// (past hi by 3.5: off hi to −0.5, off lo to 2.5), −4 → 2 (below lo by 5: two
// widths and 1 more). Points inside, on a wall, or not finite are untouched.
func TestBoxReflect(t *testing.T) {
	b := Box{Lo: []float64{1}, Hi: []float64{3}}
	for _, c := range []struct{ x, want float64 }{
		{2, 2}, {1, 1}, {3, 3}, {3.5, 2.5}, {0.25, 1.75}, {6.5, 2.5}, {-4, 2}, {5, 1}, {-1, 3}, {7, 3},
	} {
		x := []float64{c.x}
		b.Reflect(x)
		if !(math.Abs(x[0]-c.want) <= 1e-15) {
			t.Errorf("reflect %v into [1, 3]: %v, want %v", c.x, x[0], c.want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		x := []float64{v}
		b.Reflect(x)
		if !(math.IsNaN(v) && math.IsNaN(x[0])) && x[0] != v {
			t.Errorf("reflect %v: %v, want it left alone", v, x[0])
		}
	}
	// Per coordinate, with each coordinate's own walls.
	b2 := Box{Lo: []float64{0, -1}, Hi: []float64{1, 0}}
	x := []float64{1.25, 0.5}
	b2.Reflect(x)
	if x[0] != 0.75 || x[1] != -0.5 {
		t.Errorf("two coordinates: %v, want [0.75 −0.5]", x)
	}
}

func TestBoxContainsAndValidate(t *testing.T) {
	b := Box{Lo: []float64{0, -1}, Hi: []float64{1, 0}}
	for _, c := range []struct {
		x  []float64
		in bool
	}{{[]float64{0, 0}, true}, {[]float64{1, -1}, true}, {[]float64{0.5, -0.5}, true}, {[]float64{1.01, -0.5}, false}, {[]float64{0.5, -1.01}, false}, {[]float64{-0.01, -0.5}, false}, {[]float64{0.5, 0.01}, false}, {[]float64{math.NaN(), 0}, false}} {
		if b.Contains(c.x) != c.in {
			t.Errorf("Contains(%v) = %v", c.x, !c.in)
		}
	}
	if err := b.Validate(2); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		b    Box
		p    int
		want string
	}{
		{b, 3, "lengths 2 and 2 for dimension 3"},
		{Box{Lo: []float64{0}, Hi: []float64{0}}, 1, "coordinate 0 has bounds [0, 0]"},
		{Box{Lo: []float64{1}, Hi: []float64{0}}, 1, "bounds [1, 0]"},
		{Box{Lo: []float64{math.Inf(-1)}, Hi: []float64{0}}, 1, "need finite"},
		{Box{Lo: []float64{0}, Hi: []float64{math.Inf(1)}}, 1, "need finite"},
		{Box{Lo: []float64{0}, Hi: []float64{math.NaN()}}, 1, "need finite"},
	} {
		if err := c.b.Validate(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%v, %d): %v, want %q", c.b, c.p, err, c.want)
		}
	}
}
