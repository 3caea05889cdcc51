package results

import (
	"strings"
	"testing"
)

// Two unrelated runs, each chain 1, are refused as different runs, naming
// the setting that differs; they were told to "give each task its own
// --chain", which would not make them one run. The same run given twice
// is told so, and tasks that ran the same chain to give each its own.
func TestMergeSaysUnrelatedRuns(t *testing.T) {
	chain := func(path string, id int, sd string) *Chain {
		return &Chain{Path: path, Header: ChainHeader{ID: id, Settings: [][2]string{{"prior_sd", sd}}}, Columns: []string{"lp__", "a"}}
	}
	_, err := checkChains([]*Chain{chain("a/chain-1.csv", 1, "1"), chain("b/chain-1.csv", 1, "0.2")})
	if err == nil || !strings.Contains(err.Error(), "prior_sd = 1 against prior_sd = 0.2") || !strings.Contains(err.Error(), "different runs") || strings.Contains(err.Error(), "--chain") {
		t.Errorf("unrelated runs: %v", err)
	}
	_, err = checkChains([]*Chain{chain("a/chain-1.csv", 1, "1"), chain("b/chain-1.csv", 1, "1")})
	if err == nil || !strings.Contains(err.Error(), "the same run given twice (leave one out)") || !strings.Contains(err.Error(), "give each task its own --chain") {
		t.Errorf("one run twice: %v", err)
	}
}

// Runs that differ only in their seed, or in --keep, are refused naming
// what the user gave: not the plan's note ("sampler = 17 searches found 2
// modes …" against "… 3 modes …") or the --thin that --keep chose.
func TestMergeNamesSeedAndKeep(t *testing.T) {
	chain := func(path string, id int, seed uint64, keep, thin int, sampler string) *Chain {
		h := ChainHeader{Command: "regress", ID: id, Seed: seed, Keep: keep, Thin: thin, Settings: [][2]string{{"thin_automatic", "true"}, {"sampler", sampler}}}
		var comments []string
		for _, l := range h.Lines() {
			if !strings.HasPrefix(l, "# id = ") {
				comments = append(comments, l)
			}
		}
		return &Chain{Path: path, Header: h, Comments: comments, Columns: []string{"lp__", "a"}}
	}
	_, err := checkChains([]*Chain{chain("a/chain-1.csv", 1, 1, 1000, 20, "2 modes"), chain("b/chain-2.csv", 2, 11, 1000, 20, "3 modes")})
	if err == nil || !strings.Contains(err.Error(), "different seeds, --seed 1 against 11") {
		t.Errorf("two seeds: %v", err)
	}
	_, err = checkChains([]*Chain{chain("a/chain-1.csv", 1, 1, 1000, 20, "2 modes"), chain("b/chain-2.csv", 2, 1, 500, 40, "2 modes")})
	if err == nil || !strings.Contains(err.Error(), "--keep 1000 against 500") {
		t.Errorf("two --keep: %v", err)
	}
	_, err = checkChains([]*Chain{chain("a/chain-1.csv", 1, 1, 1000, 20, "2 modes"), chain("b/chain-2.csv", 2, 1, 1000, 20, "2 modes")})
	if err != nil {
		t.Errorf("one run's tasks: %v", err)
	}
}

// The tasks of one NUTS run (--chain c) each warm up their own chain, so
// their step size (eta) and the sampler line that reports it differ, and
// they merge; any other setting that differs is still refused, and so are
// eta and sampler under another algorithm (MALA's step is the plan's,
// one for every chain). Two tasks of eight schools (sample --stan
// examples/stan/eight_schools.stan --chain 1, --chain 2) were refused as
// different runs, "eta = 0.51 against eta = 0.41".
func TestMergeNUTSTasks(t *testing.T) {
	chain := func(path string, id int, algorithm, eta, sampler, seedNote string) *Chain {
		h := ChainHeader{Command: "sample", Algorithm: algorithm, ID: id, Seed: 1, Keep: 1000, Thin: 1, Settings: [][2]string{{"eta", eta}, {"sampler", sampler}, {"note", seedNote}}}
		return &Chain{Path: path, Header: h, Comments: h.Lines(), Columns: []string{"lp__", "a"}}
	}
	a := chain("t1/chain-1.csv", 1, "hmc_nuts", "0.43", "NUTS; step sizes 0.43–0.43", "one mode")
	if _, err := checkChains([]*Chain{a, chain("t2/chain-2.csv", 2, "hmc_nuts", "0.40", "NUTS; step sizes 0.401–0.401", "one mode")}); err != nil {
		t.Errorf("two NUTS tasks: %v", err)
	}
	_, err := checkChains([]*Chain{a, chain("t2/chain-2.csv", 2, "hmc_nuts", "0.40", "NUTS; step sizes 0.401–0.401", "two modes")})
	if err == nil || !strings.Contains(err.Error(), "note = one mode against note = two modes") {
		t.Errorf("NUTS tasks with another setting: %v", err)
	}
	m := chain("t1/chain-1.csv", 1, "", "0.43", "MALA", "one mode")
	_, err = checkChains([]*Chain{m, chain("t2/chain-2.csv", 2, "", "0.40", "MALA", "one mode")})
	if err == nil || !strings.Contains(err.Error(), "eta = 0.43 against eta = 0.40") {
		t.Errorf("MALA tasks with different steps: %v", err)
	}
}
