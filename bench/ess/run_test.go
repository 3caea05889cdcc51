package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run.sh says why the NUTS side failed, with R's own last lines and the
// remedy, and exits non-zero; it once sent R's stderr to /dev/null and
// exited 1 without a word when rstan could not compile the model. Go and
// Rscript are stand-ins on PATH: go succeeds, Rscript loads its packages
// and then fails as rstan does without Boost's headers.
func TestRunShSaysWhyNUTSFailed(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin := t.TempDir()
	stub := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub("go", "exit 0")
	stub("Rscript", `case "$1" in -e) exit 0 ;; esac
echo "Error in stan_model(model_code = code) : Boost not found; call install.packages('BH')" >&2
exit 1`)
	repo, _ := filepath.Abs("../..")
	cmd := exec.Command(sh, "bench/ess/run.sh")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("run.sh exited 0 after R failed:\n%s", out)
	}
	for _, want := range []string{"NUTS side failed", "Boost not found", "libboost-dev", "SKIP_NUTS=1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("run.sh's output does not say %q:\n%s", want, out)
		}
	}
}
