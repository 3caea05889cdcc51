package results

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// chainOf is a chain of n draws of x ~ N(mu, sd²), with lp__ its log
// density up to a constant.
func chainOf(id, n int, mu, sd float64, rng *rand.Rand) *Chain {
	c := &Chain{Header: ChainHeader{ID: id}, Columns: []string{"lp__", "x"}, Cols: make([][]float64, 2)}
	for range n {
		z := rng.NormFloat64()
		c.Cols[0] = append(c.Cols[0], -z*z/2)
		c.Cols[1] = append(c.Cols[1], mu+sd*z)
	}
	return c
}

// A chain that fell into the far mode (N(60, 0.5²)) while three sample
// N(0, 1) is named, and no other; four chains that sample one law never
// are, over 200 seeds (the rule's false alarm is below 2^−n a chain for n
// independent draws: nil here at n = 1000, and at n = 50, 10^−15).
func TestApartNamesTheChainApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	for seed := range 200 {
		n := []int{50, 1000}[seed%2]
		var cs []*Chain
		for id := 1; id <= 4; id++ {
			cs = append(cs, chainOf(id, n, 0, 1, rng))
		}
		if w := ApartWarnings(cs, []string{"x"}, ""); len(w) > 0 {
			t.Fatalf("seed %d, %d draws a chain: %v", seed, n, w)
		}
	}
	cs := []*Chain{chainOf(1, 1000, 0, 1, rng), chainOf(2, 1000, 0, 1, rng), chainOf(3, 1000, 60, 0.5, rng), chainOf(4, 1000, 0, 1, rng)}
	w := ApartWarnings(cs, []string{"x"}, "5 search(es)")
	if len(w) != 1 || w[0].Chain != 3 || w[0].Code != "chain-apart" || !strings.Contains(w[0].Message, "median x is 60") || !strings.Contains(w[0].Message, "5 search(es)") {
		t.Fatalf("warnings %v; want one, for chain 3, on x", w)
	}
	t.Log(w[0].Message, " — ", w[0].Remedy)
}
