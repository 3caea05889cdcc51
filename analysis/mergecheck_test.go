package analysis

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
