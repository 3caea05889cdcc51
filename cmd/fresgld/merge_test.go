package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

// dataRows is a chain CSV without its comment lines: the header and the
// draws, which must not depend on how the chain was run (the comments
// carry wall times).
func dataRows(t *testing.T, path string) []byte {
	t.Helper()
	b := readFile(t, path)
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
		mustRun(t, append(cmd, "--chains", "4", "--out", all)...)
		var dirs []string
		for c := 4; c >= 1; c-- { // any order
			d := t.TempDir()
			mustRun(t, append(cmd, "--chain", fmt.Sprint(c), "--out", d)...)
			if !bytes.Equal(dataRows(t, results.ChainFile(all, c)), dataRows(t, results.ChainFile(d, c))) {
				t.Errorf("%s: chain %d alone differs from chain %d of the four-chain run", cmd[0], c, c)
			}
			dirs = append(dirs, d)
		}
		merged := t.TempDir()
		mustRun(t, append([]string{"merge", "--out", merged}, dirs...)...)
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
		mustRun(t, append(append(base, r.args...), "--out", r.dir)...)
	}
	// A line that does not parse is an error, unless it is the last of a
	// file killed mid-write (TestKillThenMergeAndRepair).
	bad := filepath.Join(t.TempDir(), "chain-3.csv")
	full, _ := os.ReadFile(results.ChainFile(a, 1))
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
