package main

import (
	"strings"
	"testing"
)

// Bad sizes are refused before any work, naming the flag (the study itself
// is tested at its smoke size in experiments/multimodal).
func TestReproduceMultimodalFlags(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--out", out, "--seeds", "1"}, "--seeds"},
		{[]string{"--out", out, "--workers", "0"}, "--workers"},
		{[]string{"--docs", "--smoke"}, "--smoke"},
		{[]string{"--out", out, "--swaps", "penalty"}, "--swaps"},
		{[]string{"--out", out, "--problems", "synthetic-1e9"}, "--problems"},
		{[]string{"--out", out, "--methods", "nuts"}, "--methods"},
		// The published results are the whole study: no part of it.
		{[]string{"--docs", "--problems", "diabetes"}, "--problems"},
	} {
		err := run(t, append([]string{"reproduce", "multimodal"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%v: error %v, want one naming %s", c.args, err, c.flag)
		}
	}
}
