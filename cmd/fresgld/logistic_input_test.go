package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/analysis"
)

// writeData writes a 60-example data set: header (or none), then rows of
// two features and a label, with prefix before the header.
func writeData(t *testing.T, prefix, header string, scale float64) string {
	t.Helper()
	return writeFile(t, "d.csv", csvRows(prefix+header, 60, func(i int) string {
		return fmt.Sprintf("%g,%g,%d", scale*float64(i%7), float64(i%5)-2, (i*7)%3%2)
	}))
}

// Each CSV case of the reader, through the command: the file is read as a
// user means it, or refused with the column named; samples.csv quotes
// column names as CSV needs.
func TestLogisticCSVInput(t *testing.T) {
	short := []string{"--burn", "50", "--keep", "50", "--method", "sgld"}
	// A BOM and a quoted header with a comma: the label is found by name,
	// and the name with a comma survives in samples.csv.
	out := t.TempDir()
	data := writeData(t, "\uFEFF", "\"size, cm\",x2,\"label\"\n", 1)
	if err := run(t, append([]string{"logistic", "--data", data, "--label", "size, cm", "--out", out}, short...)...); err == nil {
		t.Errorf("a feature used as label was accepted")
	}
	data = writeData(t, "\uFEFF", "\"size, cm\",x2,\"label\"\n", 1)
	mustRun(t, append([]string{"logistic", "--data", data, "--label", "label", "--out", out}, short...)...)
	header, rows := parseChain(t, filepath.Join(out, "chain-1.csv"), -1)
	if len(rows) != 50 || !slices.Contains(header, "size, cm") || !slices.Contains(header, "intercept") {
		t.Errorf("chain-1.csv: %d draws, header %q", len(rows), header)
	}

	// A headerless file: its first line is used as names, with a warning.
	var stderr bytes.Buffer
	rootCmd.SetErr(&stderr)
	err := run(t, append([]string{"logistic", "--data", writeData(t, "", "1,2,0\n", 1), "--label", "3", "--out", t.TempDir()}, short...)...)
	rootCmd.SetErr(nil)
	if err != nil || !strings.Contains(stderr.String(), "warning: ") || !strings.Contains(stderr.String(), "--no-header") {
		t.Errorf("headerless file: error %v, stderr %q", err, stderr.String())
	}

	for _, c := range []struct {
		name   string
		data   string
		args   []string
		want   string // error; "" for success
		finite bool
	}{
		{"duplicate names", writeData(t, "", "a,a,y\n", 1), nil, `column 2 ("a"): duplicate column name: column 1 has the same name`, false},
		{"duplicate numbers", writeData(t, "", "1,1,0\n", 1), []string{"--label", "3"}, "--no-header", false},
		{"values 1e200", writeData(t, "", "a,b,y\n", 1e200), nil, "", true},
		{"values 1e308", writeData(t, "", "a,b,y\n", 1e307), nil, "", true},
		{"values 1e308 raw", writeData(t, "", "a,b,y\n", 1e307), []string{"--no-standardize"}, `--no-standardize: column 1 ("a") has values up to 6e+307`, false},
	} {
		out := t.TempDir()
		err := run(t, append(append([]string{"logistic", "--data", c.data, "--label", "y", "--out", out}, short...), c.args...)...)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var sum struct {
			SD []float64 `json:"feature_sds"`
		}
		if s := readSummary(t, out); s.Draws != 50 || len(s.Stopped) != 0 {
			t.Errorf("%s: %d draws, stopped %v", c.name, s.Draws, s.Stopped)
		}
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil || len(sum.SD) != 2 || !(sum.SD[0] > 0) {
			t.Errorf("%s: summary %v: %s", c.name, err, b)
		}
	}
}

// Every flag is checked before any work, and the error names it as typed.
func TestLogisticFlags(t *testing.T) {
	data := smallCSV(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--keep", "0"}, "--keep = 0"},
		{[]string{"--thin", "0"}, "--thin = 0"},
		{[]string{"--burn", "-1"}, "--burn = -1"},
		{[]string{"--hot-share", "0"}, "--hot-share = 0"},
		{[]string{"--hot-share", "NaN"}, "--hot-share = NaN"},
		{[]string{"--eta", "0"}, "--eta = 0: must be positive and finite (or auto)"},
		{[]string{"--eta", "fast"}, `--eta = "fast": want a number or auto`},
		{[]string{"--batch", "0"}, "--batch = 0: must be ≥ 1 (or auto)"},
		{[]string{"--hot-batch", "-1"}, "--hot-batch = -1"},
		{[]string{"--tau2", "1e300"}, "--tau2 = 1e+300"},
		{[]string{"--tau2", "NaN"}, "--tau2 = NaN"},
		{[]string{"--prior-sd", "Inf"}, "--prior-sd = +Inf"},
		{[]string{"--swap-rate", "2"}, "--swap-rate = 2"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := run(t, append([]string{"logistic", "--data", data, "--label", "y", "--out", out}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: --out was created before the flags were checked", c.args)
		}
	}
	// auto is explicit, and recorded as such with the value chosen.
	out := t.TempDir()
	mustRun(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--eta", "auto", "--batch", "auto", "--burn", "10", "--keep", "10", "--out", out)
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	for _, want := range []string{`"eta_automatic": true`, `"batch_automatic": true`, `"hot_share": 0.9`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("summary lacks %s", want)
		}
	}
	// The automatic batch lies in the rule's bounds, capped by the N = 200
	// rows of the data, and the rule is recorded beside it.
	var auto struct {
		Settings struct {
			Batch int `json:"batch"`
		} `json:"settings"`
		Rule string `json:"batch_rule"`
	}
	if err := json.Unmarshal(b, &auto); err != nil || auto.Settings.Batch < min(analysis.ColdMin, 200) || auto.Settings.Batch > min(analysis.ColdMax, 200) || auto.Rule == "" {
		t.Errorf("automatic --batch recorded as %d (rule %q; %v)", auto.Settings.Batch, auto.Rule, err)
	}
}

// Unknown subcommands fail; --version prints a version.
func TestCommandLine(t *testing.T) {
	for _, args := range [][]string{{"reproduce", "foo"}, {"foo"}, {"gmm", "extra"}} {
		if err := run(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	err := run(t, "--version")
	rootCmd.SetOut(nil)
	if err != nil || !strings.HasPrefix(out.String(), "fresgld version ") {
		t.Errorf("--version: %v, %q", err, out.String())
	}
}
