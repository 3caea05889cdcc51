package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// An interrupted run's chains, of unequal lengths, are pooled whole: the
// means are of every draw, the diagnostics of the equal-length layout that
// keeps the most draws; a chain that never started, or stopped by an error
// beside sound chains, is listed and left out.
func TestSummaryPoolsUnequalChains(t *testing.T) {
	ok := ChainStats{Steps: 1000, Cost: 4000, Clamped: []int64{0, 0}, Attempts: []int{100}, Accepts: []int{10}}
	intr := ok
	intr.Stopped = ErrInterrupted.Error()
	never := ChainStats{Stopped: ErrInterrupted.Error(), Clamped: []int64{0, 0}, Attempts: []int{0}, Accepts: []int{0}}
	dv := ok
	dv.Stopped = "level 1 diverged at step 500"
	for _, c := range []struct {
		name   string
		chains []*Chain
		pooled []int // chains pooled
		diag   []int // chains of the layout
		L      int
	}{
		// 1000·2 = 2000 draws in the layout beat 300·3 = 900.
		{"one short", []*Chain{fakeChain(1, 1000, 0, intr), fakeChain(2, 1000, 0, intr), fakeChain(3, 300, 0, intr)}, []int{1, 2, 3}, []int{1, 2}, 1000},
		// 900·3 = 2700 beat 1000·1.
		{"one long", []*Chain{fakeChain(1, 1000, 0, intr), fakeChain(2, 900, 0, intr), fakeChain(3, 950, 0, intr)}, []int{1, 2, 3}, []int{1, 2, 3}, 900},
		{"never started", []*Chain{fakeChain(1, 700, 0, intr), fakeChain(2, 800, 0, intr), fakeChain(3, 0, 0, never), fakeChain(4, 0, 0, never)}, []int{1, 2}, []int{1, 2}, 700},
		{"diverged", []*Chain{fakeChain(1, 700, 0, intr), fakeChain(2, 400, 50, dv)}, []int{1}, []int{1}, 700},
		{"none started", []*Chain{fakeChain(1, 0, 0, never), fakeChain(2, 0, 0, never)}, nil, nil, 0},
	} {
		s, err := SummarizeChains(c.chains)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(s.Chains, c.pooled) || !slices.Equal(s.DiagChains, c.diag) || s.Draws != c.L || !s.Interrupted {
			t.Errorf("%s: pooled %v, layout %v × %d, interrupted %v; want %v, %v × %d", c.name, s.Chains, s.DiagChains, s.Draws, s.Interrupted, c.pooled, c.diag, c.L)
		}
		var all []float64
		for _, ch := range c.chains {
			if slices.Contains(c.pooled, ch.Header.ID) {
				all = append(all, ch.Cols[5]...)
			}
		}
		if s.PooledDraws != len(all) {
			t.Errorf("%s: %d draws pooled, want %d", c.name, s.PooledDraws, len(all))
		}
		if len(all) == 0 {
			if len(s.Parameters) != 0 {
				t.Errorf("%s: a table of no draws", c.name)
			}
			continue
		}
		mean := 0.0
		for _, x := range all {
			mean += x
		}
		mean /= float64(len(all))
		if p := s.Parameters[1]; math.Abs(p.Mean-mean) > 1e-12 {
			t.Errorf("%s: mean %v, the mean of every pooled draw %v", c.name, p.Mean, mean)
		}
		for _, pc := range s.PerChain {
			if pc.Draws != len(c.chains[pc.Chain-1].Cols[0]) || pc.Pooled != slices.Contains(c.pooled, pc.Chain) {
				t.Errorf("%s: per-chain %+v", c.name, pc)
			}
			if pc.Draws == 0 && pc.Status != StatusNeverStarted {
				t.Errorf("%s: chain %d never started, status %q", c.name, pc.Chain, pc.Status)
			}
		}
	}
}

// fakeChain is a chain of n draws of one parameter "x" drawn iid from
// N(shift, 1), with the given statistics.
func fakeChain(id, n int, shift float64, st ChainStats) *Chain {
	rng := rand.New(rand.NewPCG(uint64(id), 99))
	c := &Chain{Header: ChainHeader{Command: "gmm", ID: id, Thin: 1, Keep: n}, Columns: []string{"lp__", ColSwaps, ColClamped, ReplicaCol(1), ReplicaCol(2), "x"}, Stats: st}
	c.Cols = make([][]float64, len(c.Columns))
	for range n {
		x := shift + rng.NormFloat64()
		for j, v := range []float64{-x * x / 2, 0, 0, 1, 2, x} {
			c.Cols[j] = append(c.Cols[j], v)
		}
	}
	return c
}

func TestWarnings(t *testing.T) {
	ok := ChainStats{Steps: 1000, Cost: 4000, Clamped: []int64{0, 0}, Attempts: []int{100}, Accepts: []int{10}}
	// chains of n iid draws each, numbered from 1.
	iid := func(chains, n int) []*Chain {
		var cs []*Chain
		for id := 1; id <= chains; id++ {
			cs = append(cs, fakeChain(id, n, 0, ok))
		}
		return cs
	}
	good := func() []*Chain { return iid(4, 1000) }
	has := func(ws []string, s string) bool {
		for _, w := range ws {
			if strings.Contains(w, s) {
				return true
			}
		}
		return false
	}
	// Four chains of 1000 iid draws: bulk ESS near 4000, R̂ within
	// 1 + O(1/√1000): no warning.
	s, err := SummarizeChains(good())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("well-mixed chains: warnings %q", s.Warnings)
	}
	// A chain two sds off: R̂ far above 1.01.
	cs := good()
	cs[2] = fakeChain(3, 1000, 2, ok)
	if s, _ := SummarizeChains(cs); !has(s.Warnings, "R̂ > 1.01 for 2 of 2 variables") {
		t.Errorf("a shifted chain: warnings %q", s.Warnings)
	}
	// 90 draws a chain: bulk ESS about 360 < 400. The remedy says how much
	// longer, from the smallest ESS: 400/ESS times the thinning (1 here)
	// or the draws a chain.
	s, _ = SummarizeChains(iid(4, 90))
	if !has(s.Warnings, "bulk ESS < 400 in all or < 100 per chain") {
		t.Errorf("short chains: warnings %q", s.Warnings)
	}
	for _, w := range s.Details {
		if w.Code != "ess" {
			continue
		}
		f := 400 / w.Number
		worst := slices.MinFunc(s.Parameters, func(a, b ParamRow) int { return cmp.Compare(a.ESSBulk, b.ESSBulk) })
		want := fmt.Sprintf("%.3g times the steps would bring %s's to 400: --thin %d (from 1), or --keep %d (from 90 draws a chain)", f, worst.Name, int(math.Ceil(f)), int(math.Ceil(90*f)))
		if w.Number >= 400 || !strings.Contains(w.Remedy, want) || !strings.Contains(w.Message, want) {
			t.Errorf("short chains' ESS warning %q, remedy %q: want %q", w.Message, w.Remedy, want)
		}
	}
	// x with generalized Pareto tails of shape 0.9 on both sides, past
	// KHatMax = 0.5 by more than 3 of k̂'s standard errors at 4000 draws
	// (about (1 + k)/√189 = 0.14; a normal's k̂ is near 0, above).
	cs = good()
	rng := rand.New(rand.NewPCG(3, 5))
	for _, c := range cs {
		c.Header.Command = "sample"
		for i := range c.Cols[5] {
			x := math.Expm1(-0.9*math.Log1p(-rng.Float64())) / 0.9
			if rng.IntN(2) == 0 {
				x = -x
			}
			c.Cols[5][i] = x
		}
	}
	if s, _ := SummarizeChains(cs); !has(s.Warnings, "heavy tails for 1 of 2 variables (heaviest: x, Pareto k̂ 0.9") {
		t.Errorf("heavy tails: warnings %q", s.Warnings)
	}
	// The same draws in a regress run: not judged (its posteriors have
	// every moment).
	for _, c := range cs {
		c.Header.Command = "regress"
	}
	if s, _ := SummarizeChains(cs); has(s.Warnings, "heavy tails") {
		t.Errorf("heavy tails in regress: warnings %q", s.Warnings)
	}
	// A Stan model's run: a draw constant in every chain (a Viterbi state
	// that never changes) is not judged, as in the verdict; in a run of a
	// --model-cmd model, whose columns are its coordinates, a constant
	// column is a stuck chain and warns.
	constant := func(settings [][2]string) []*Chain {
		cs := good()
		for _, c := range cs {
			c.Header.Command, c.Header.Settings = "sample", settings
			c.Columns = append(c.Columns, "z_star.1")
			c.Cols = append(c.Cols, slices.Repeat([]float64{1}, len(c.Cols[5])))
		}
		return cs
	}
	if s, _ := SummarizeChains(constant([][2]string{{"stan", "m.stan"}})); len(s.Warnings) != 0 {
		t.Errorf("a Stan run with a constant generated quantity: warnings %q", s.Warnings)
	}
	if s, _ := SummarizeChains(constant([][2]string{{"model_cmd", "./m"}})); !has(s.Warnings, "R̂ > 1.01 for 1 of 3 variables (largest: z_star.1, NaN)") {
		t.Errorf("a model-cmd run with a constant coordinate: warnings %q", s.Warnings)
	}
	// Swaps: 10 of 100 attempts accepted (the stats above) is the floor
	// itself, no warning; 9 of 100 in every chain is below it.
	cs = good()
	few := ok
	few.Accepts = []int{9}
	for _, c := range cs {
		c.Stats = few
	}
	// gmm's ladder report warns there, chain by chain.
	if s, _ := SummarizeChains(cs); has(s.Warnings, "of swap attempts accepted") {
		t.Errorf("few swaps in gmm: the summary warns too: %q", s.Warnings)
	}
	for _, c := range cs {
		c.Header.Command = "logistic"
	}
	if s, _ := SummarizeChains(cs); !has(s.Warnings, "9.0% of swap attempts accepted (36 of 400), below 10%") {
		t.Errorf("few swaps: warnings %q", s.Warnings)
	}
	// Two chains of 150 draws: bulk ESS about 300, above 100 a chain but
	// below 400 in all.
	if s, _ := SummarizeChains(iid(2, 150)); !has(s.Warnings, "bulk ESS < 400 in all") {
		t.Errorf("two short chains: warnings %q", s.Warnings)
	}
	// 2% of level 2's steps clamped in one chain: 0.5% over four chains is
	// fine, 2% in each is not.
	cs = good()
	cl := ok
	cl.Clamped = []int64{0, 20}
	cs[0].Stats = cl
	if s, _ := SummarizeChains(cs); has(s.Warnings, "clamped") {
		t.Errorf("0.5%% clamped: warnings %q", s.Warnings)
	}
	for _, c := range cs {
		c.Stats = cl
	}
	if s, _ := SummarizeChains(cs); !has(s.Warnings, "level 2: 2.0% of steps clamped") {
		t.Errorf("2%% clamped: warnings %q", s.Warnings)
	}
	// One chain without a swap.
	cs = good()
	ns := ok
	ns.Accepts = []int{0}
	cs[1].Stats = ns
	if s, _ := SummarizeChains(cs); !has(s.Warnings, "no swap accepted in 1 of 4 chains") {
		t.Errorf("a chain without swaps: warnings %q", s.Warnings)
	}
	// A diverged chain is reported and left out of the table.
	cs = good()
	dv := ok
	dv.Stopped = "level 1 diverged at step 500"
	cs[3] = fakeChain(4, 250, 50, dv)
	s, _ = SummarizeChains(cs)
	if !has(s.Warnings, "chain 4 stopped after 1000 steps: level 1 diverged") || len(s.Chains) != 3 || s.Draws != 1000 || has(s.Warnings, "R̂") {
		t.Errorf("a diverged chain: pooled %v × %d, warnings %q", s.Chains, s.Draws, s.Warnings)
	}
}

func TestParamRowJSONRoundTrip(t *testing.T) {
	s, err := SummarizeChains([]*Chain{fakeChain(1, 50, 0, ChainStats{Clamped: []int64{0}}), fakeChain(2, 50, 0, ChainStats{Clamped: []int64{0}})})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Parameters) != 2 || back.Parameters[1].Name != "x" || back.Parameters[1].Mean != s.Parameters[1].Mean {
		t.Errorf("round trip of %s gave %+v", b, back.Parameters)
	}
}

// A warning about an undefined number (R̂ of chains that do not move)
// still marshals, its number as null, its fields as before.
func TestWarningNaNJSON(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), 1.5} {
		b, err := json.Marshal(Warning{Code: "rhat", Message: "m", Number: x, Remedy: "r"})
		if err != nil {
			t.Fatalf("%v: %v", x, err)
		}
		want := `{"code":"rhat","message":"m","remedy":"r","number":null}`
		if x == 1.5 {
			want = `{"code":"rhat","message":"m","remedy":"r","number":1.5}`
		}
		if string(b) != want {
			t.Errorf("%v: %s, want %s", x, b, want)
		}
	}
}

// A Metropolis-adjusted level's accepted proposals survive the chain
// file's trailing lines, are summed over the chains and shown as a share
// of the steps in place of that level's clamped steps; a level without
// them keeps its clamp line. So do a level's jumps between the modes,
// shown as the share of them accepted.
func TestMetropolisAcceptance(t *testing.T) {
	st := ChainStats{Steps: 1000, Cost: 4000, Clamped: []int64{0, 30}, Accepted: []int64{600, -1}, Jumps: []int64{200, -1}, JumpsAccepted: []int64{50, -1}, Attempts: []int{100}, Accepts: []int{10}}
	var back ChainStats
	for _, l := range st.Lines() {
		if err := back.parse(l); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	if !slices.Equal(back.Accepted, st.Accepted) || !slices.Equal(back.Jumps, st.Jumps) || !slices.Equal(back.JumpsAccepted, st.JumpsAccepted) {
		t.Fatalf("accepted, jumps and accepted jumps read back as %v, %v, %v, want %v, %v, %v", back.Accepted, back.Jumps, back.JumpsAccepted, st.Accepted, st.Jumps, st.JumpsAccepted)
	}
	other := st
	other.Accepted = []int64{500, -1}
	other.Jumps, other.JumpsAccepted = []int64{100, -1}, []int64{30, -1}
	s, err := SummarizeChains([]*Chain{fakeChain(1, 100, 0, st), fakeChain(2, 100, 0, other)})
	if err != nil {
		t.Fatal(err)
	}
	l0, l1 := s.Clamped[0], s.Clamped[1]
	if l0.Accepted == nil || *l0.Accepted != 1100 || *l0.AcceptRate != 1100.0/2000 || l1.Accepted != nil || l1.AcceptRate != nil {
		t.Fatalf("levels %+v, %+v: want 1100 of 2000 accepted at level 1, none counted at level 2", l0, l1)
	}
	if l0.Jumps == nil || *l0.Jumps != 300 || *l0.JumpsAccepted != 80 || *l0.JumpRate != 80.0/300 || l1.Jumps != nil || l1.JumpRate != nil {
		t.Fatalf("levels %+v, %+v: want 80 of 300 jumps accepted at level 1, none at level 2", l0, l1)
	}
	var b strings.Builder
	WriteTable(&b, s)
	for _, want := range []string{"Metropolis acceptance: level 1 0.550 (1100 of 2000 proposals)\n", "clamped steps: level 2 3.00%\n", "jumps between the modes, share accepted: level 1 0.267 (80 of 300 jumps)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "level 1 0.00%") {
		t.Errorf("table shows level 1's clamped steps:\n%s", b.String())
	}
	var bad ChainStats
	bad.Clamped = []int64{0}
	if err := bad.parse(statAccepted + "2: 5"); err == nil {
		t.Error("accepted proposals at a level the file does not have were read")
	}
	for _, l := range []string{statJumps + "2: 5 accepted of 9", statJumps + "1: 10 accepted of 9"} {
		if err := bad.parse(l); err == nil {
			t.Errorf("%q was read", l)
		}
	}
}
