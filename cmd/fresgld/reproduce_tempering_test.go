package main

import (
	"strings"
	"testing"
)

// Bad settings are refused, naming the flag: --seeds before any work, an
// unknown workload or method before any run, and --docs with a part of the
// study (the smoke size, some methods, no NUTS), which would overwrite the
// full tables (the study itself is tested at a small size in
// experiments/tempering).
func TestReproduceTemperingFlags(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, "--seeds", "1"}, "--seeds"},
		{[]string{"--docs", "--smoke"}, "--docs with --smoke"},
		{[]string{"--out", out, "--workloads", "nope"}, `--workloads: no workload "nope"`},
		{[]string{"--out", out, "--methods", "one level"}, `--methods: no method "one level"`},
		{[]string{"--docs", "--methods", "nuts"}, "--docs with --methods nuts"},
		{[]string{"--docs", "--nuts=false"}, "--docs with --nuts false"},
	} {
		err := run(t, append([]string{"reproduce", "tempering"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %s", c.args, err, c.want)
		}
	}
}
