package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dataRows is a chain CSV without its comment lines: the header and the
// draws, which must not depend on how the chain was run (the comments
// carry wall times).
func dataRows(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("#")) {
			out = append(out, l...)
		}
	}
	return out
}

func TestMergeOfSingleChainsMatchesOneRun(t *testing.T) {
	data := smallCSV(t)
	for _, cmd := range [][]string{
		{"gmm", "--keep", "400", "--burn", "100", "--thin", "2", "--seed", "5"},
		{"logistic", "--data", data, "--label", "y", "--keep", "300", "--burn", "100", "--thin", "1"},
	} {
		all := t.TempDir()
		if err := run(t, append(cmd, "--chains", "4", "--out", all)...); err != nil {
			t.Fatal(err)
		}
		var dirs []string
		for c := 4; c >= 1; c-- { // any order
			d := t.TempDir()
			if err := run(t, append(cmd, "--chain", fmt.Sprint(c), "--out", d)...); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dataRows(t, chainFile(all, c)), dataRows(t, chainFile(d, c))) {
				t.Errorf("%s: chain %d alone differs from chain %d of the four-chain run", cmd[0], c, c)
			}
			dirs = append(dirs, d)
		}
		merged := t.TempDir()
		if err := run(t, append([]string{"merge", "--out", merged}, dirs...)...); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(all, "summary.txt"))
		got, _ := os.ReadFile(filepath.Join(merged, "summary.txt"))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: merged table\n%s\nthe four-chain run's\n%s", cmd[0], got, want)
		}
		// Without --out, merge prints the table and nothing else.
		printed := captureStdout(t, func() error { return run(t, append([]string{"merge"}, dirs...)...) })
		if printed != string(want) {
			t.Errorf("%s: merge printed\n%s\nthe four-chain run's table is\n%s", cmd[0], printed, want)
		}
		if !strings.Contains(string(want), "4 chains × ") {
			t.Errorf("%s: table does not say it pools 4 chains:\n%s", cmd[0], want)
		}
	}
}

func TestMergeRefusesMismatchedChains(t *testing.T) {
	base := []string{"gmm", "--keep", "50", "--burn", "10", "--thin", "1"}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, r := range []struct {
		dir  string
		args []string
	}{
		{a, []string{"--chain", "1"}},
		{b, []string{"--chain", "1"}},
		{c, []string{"--chain", "2", "--tau2", "5"}},
	} {
		if err := run(t, append(append(base, r.args...), "--out", r.dir)...); err != nil {
			t.Fatal(err)
		}
	}
	// A line that does not parse is an error, unless it is the last of a
	// file killed mid-write (TestKillThenMergeAndRepair).
	bad := filepath.Join(t.TempDir(), "chain-3.csv")
	full, _ := os.ReadFile(chainFile(a, 1))
	cut := bytes.LastIndexByte(full[:len(full)/2], '\n') + 1
	os.WriteFile(bad, append(append(full[:cut:cut], "1,2\n"...), full[cut:]...), 0o644)
	for _, x := range []struct {
		args []string
		want string
	}{
		{[]string{a, b}, "are both chain 1"},
		{[]string{a, c}, "different settings"},
		{[]string{bad}, "2 fields, the header has 6"},
		{[]string{t.TempDir()}, "no chain-*.csv"},
		{[]string{filepath.Join(a, "nope")}, "nope"},
	} {
		err := run(t, append([]string{"merge"}, x.args...)...)
		if err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("merge %v: error %v, want one containing %q", x.args, err, x.want)
		}
	}
}

// fakeChain is a chain of n draws of one parameter "x" drawn iid from
// N(shift, 1), with the given statistics.
func fakeChain(id, n int, shift float64, st chainStats) *stanChain {
	rng := rand.New(rand.NewPCG(uint64(id), 99))
	c := &stanChain{Header: chainHeader{Command: "gmm", ID: id, Thin: 1, Keep: n}, Columns: []string{"lp__", colSwaps, colClamped, replicaCol(1), replicaCol(2), "x"}, Stats: st}
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
	ok := chainStats{Steps: 1000, Cost: 4000, Clamped: []int64{0, 0}, Attempts: []int{100}, Accepts: []int{10}}
	good := func() []*stanChain {
		var cs []*stanChain
		for id := 1; id <= 4; id++ {
			cs = append(cs, fakeChain(id, 1000, 0, ok))
		}
		return cs
	}
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
	s, err := summarizeChains(good())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("well-mixed chains: warnings %q", s.Warnings)
	}
	// A chain two sds off: R̂ far above 1.01.
	cs := good()
	cs[2] = fakeChain(3, 1000, 2, ok)
	if s, _ := summarizeChains(cs); !has(s.Warnings, "R̂ > 1.01 for 2 of 2 variables") {
		t.Errorf("a shifted chain: warnings %q", s.Warnings)
	}
	// 90 draws a chain: bulk ESS about 360 < 400.
	cs = nil
	for id := 1; id <= 4; id++ {
		cs = append(cs, fakeChain(id, 90, 0, ok))
	}
	if s, _ := summarizeChains(cs); !has(s.Warnings, "bulk ESS < 100 per chain") {
		t.Errorf("short chains: warnings %q", s.Warnings)
	}
	// 2% of level 2's steps clamped in one chain: 0.5% over four chains is
	// fine, 2% in each is not.
	cs = good()
	cl := ok
	cl.Clamped = []int64{0, 20}
	cs[0].Stats = cl
	if s, _ := summarizeChains(cs); has(s.Warnings, "clamped") {
		t.Errorf("0.5%% clamped: warnings %q", s.Warnings)
	}
	for _, c := range cs {
		c.Stats = cl
	}
	if s, _ := summarizeChains(cs); !has(s.Warnings, "level 2: 2.0% of steps clamped") {
		t.Errorf("2%% clamped: warnings %q", s.Warnings)
	}
	// One chain without a swap.
	cs = good()
	ns := ok
	ns.Accepts = []int{0}
	cs[1].Stats = ns
	if s, _ := summarizeChains(cs); !has(s.Warnings, "no swap accepted in 1 of 4 chains") {
		t.Errorf("a chain without swaps: warnings %q", s.Warnings)
	}
	// A diverged chain is reported and left out of the table.
	cs = good()
	dv := ok
	dv.Stopped = "level 1 diverged at step 500"
	cs[3] = fakeChain(4, 250, 50, dv)
	s, _ = summarizeChains(cs)
	if !has(s.Warnings, "chain 4 stopped after 1000 steps: level 1 diverged") || len(s.Chains) != 3 || s.Draws != 1000 || has(s.Warnings, "R̂") {
		t.Errorf("a diverged chain: pooled %v × %d, warnings %q", s.Chains, s.Draws, s.Warnings)
	}
}

func TestParamRowJSONRoundTrip(t *testing.T) {
	s, err := summarizeChains([]*stanChain{fakeChain(1, 50, 0, chainStats{Clamped: []int64{0}}), fakeChain(2, 50, 0, chainStats{Clamped: []int64{0}})})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back chainsSummary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Parameters) != 2 || back.Parameters[1].Name != "x" || back.Parameters[1].Mean != s.Parameters[1].Mean {
		t.Errorf("round trip of %s gave %+v", b, back.Parameters)
	}
}

// captureStdout runs f with os.Stdout sent to a pipe and returns what it
// printed.
func captureStdout(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	ferr := f()
	os.Stdout = old
	w.Close()
	b := <-done
	if ferr != nil {
		t.Fatal(ferr)
	}
	return string(b)
}
