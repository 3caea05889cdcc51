package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/results"
)

// fresgld resume of a directory that does not exist, or of a file, says
// so, not that the run completed or was never checkpointed.
func TestResumeMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	err := run(t, "resume", missing)
	if err == nil || !strings.Contains(err.Error(), "no such directory") || strings.Contains(err.Error(), "completed") {
		t.Errorf("resume %s: %v; want it to say there is no such directory", missing, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := run(t, "resume", file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("resume %s: %v; want it to say it is a file", file, err)
	}
}

// A resume whose model fails sooner than in the run it continues keeps the
// draws that run left in the chain file, and says so; nothing on disk is
// replaced by less. The first run's first checkpoint is taken aside while
// it runs and put back after its model failed: the chain file then holds
// many draws beyond the checkpoint, as after a run killed between two.
func TestFailedResumeKeepsDraws(t *testing.T) {
	out := t.TempDir()
	cmd := fmt.Sprintf("FRESGLD_TEST_MODEL=1 exec '%s'", os.Args[0])
	ckpt := filepath.Join(out, analysis.CheckpointName(1))
	var first []byte
	stop := make(chan struct{})
	taken := make(chan struct{})
	go func() {
		defer close(taken)
		for {
			if b, err := os.ReadFile(ckpt); err == nil {
				first = b
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	t.Setenv("FRESGLD_TEST_DIE_AFTER", "8000")
	err := run(t, "sample", "--model-cmd", cmd, "--keep", "20000", "--burn", "100", "--thin", "1", "--chains", "1", "--checkpoint-every", "0.05", "--out", out)
	close(stop)
	<-taken
	if err == nil {
		t.Fatal("the model did not fail")
	}
	if first == nil {
		t.Fatal("no checkpoint before the model failed")
	}
	if err := os.WriteFile(ckpt, first, 0o644); err != nil {
		t.Fatal(err)
	}
	before := draws(t, results.ChainFile(out, 1))
	// The resume plans anew (about 2500 requests with its NUTS pilot),
	// then dies sooner in its sampling than the first run did.
	t.Setenv("FRESGLD_TEST_DIE_AFTER", "4000")
	err = run(t, "resume", out)
	if err == nil || !strings.Contains(err.Error(), "keeps that run's draws") {
		t.Errorf("resume: %v; want it to say the file keeps the earlier draws", err)
	}
	if after := draws(t, results.ChainFile(out, 1)); after != before {
		t.Errorf("chain-1.csv holds %d draws after the failed resume, %d before", after, before)
	}
}

// A model that fails after its handshake, in the run's setup or in the
// middle of sampling, is named as the cause in every line the run prints
// after its own error; none blames the step size or shows a Go type.
func TestModelFaultNamesModel(t *testing.T) {
	blame := regexp.MustCompile(`--eta|η|step size is not positive|Hessian|diverged|\*energy\.|variance\.[A-Z]|estimator \*`)
	for _, c := range []struct {
		name     string
		dieAfter int
	}{
		{"in the setup", 30},
		{"while sampling", 3000},
	} {
		out := t.TempDir()
		var stderr strings.Builder
		rootCmd.SetErr(&stderr)
		err := run(t, "sample", "--model-cmd", testModelCmd(c.dieAfter), "--keep", "5000", "--burn", "100", "--thin", "1", "--chains", "2", "--out", out)
		rootCmd.SetErr(nil)
		if err == nil {
			t.Fatalf("%s: the model did not fail", c.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "the test model crashes on purpose") || !strings.Contains(msg, "the model process") {
			t.Errorf("%s: error does not name the model's failure:\n%s", c.name, msg)
		}
		_, rest, _ := strings.Cut(msg, "the run stopped on it")
		if rest == "" || blame.MatchString(rest) || !strings.Contains(rest, testModelCmd(c.dieAfter)) {
			t.Errorf("%s: the error's last lines do not name the model, or blame the sampler:\n%s", c.name, msg)
		}
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "warning: chain") && (blame.MatchString(l) || !strings.Contains(l, "the model process")) {
				t.Errorf("%s: warning %q blames the sampler, not the model", c.name, l)
			}
		}
	}
}
