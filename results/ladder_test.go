package results

import (
	"slices"
	"testing"
)

// gmm's ladder warnings, one per chain, are folded into one with the
// chains and the range of the number.
func TestFoldWarnings(t *testing.T) {
	rej := func(id int, v float64) ladderWarning {
		return ladderWarning{chain: id, before: "levels 1–2 (τ = 1, 10) rejected ", format: "%.1f%%", value: v, tail: " of their swap attempts"}
	}
	trip := func(id int) ladderWarning { return ladderWarning{chain: id, before: "no round trip"} }
	for _, c := range []struct {
		in   []ladderWarning
		want []string
	}{
		{[]ladderWarning{rej(1, 91.7), rej(2, 92.04), rej(3, 91.96)}, []string{"chains 1, 2, 3: levels 1–2 (τ = 1, 10) rejected 91.7–92.0% of their swap attempts"}},
		{[]ladderWarning{rej(1, 95), rej(2, 95.01)}, []string{"chains 1, 2: levels 1–2 (τ = 1, 10) rejected 95.0% of their swap attempts"}},
		{[]ladderWarning{rej(3, 99), trip(3), trip(4)}, []string{"chain 3: levels 1–2 (τ = 1, 10) rejected 99.0% of their swap attempts", "chains 3, 4: no round trip"}},
	} {
		if got := foldWarnings(c.in); !slices.Equal(got, c.want) {
			t.Errorf("foldWarnings = %q, want %q", got, c.want)
		}
	}
}
