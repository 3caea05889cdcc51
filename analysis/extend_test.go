package analysis

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

// extendRun is four Langevin chains on N(0, 1) at step 0.15: ρ = 0.85 a
// step, τ_int = (1 + ρ)/(1 − ρ) ≈ 12 steps, so keep draws a chain at thin 1
// give a bulk ESS of about 4·keep/12: 330 at keep 1000, between the
// verdict's 400 and the half of it beyond which a run is not extended.
func extendRun(t *testing.T, keep int, extend bool) ChainRun {
	mix, err := models.NewMixture([]float64{1}, []float64{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	return ChainRun{
		Header: results.ChainHeader{Command: "test", Seed: 3, Burn: 100, Keep: keep, Thin: 1},
		Names:  []string{"x"},
		Plan:   exchange.Plan{Burn: 100, Keep: keep, Thin: 1},
		New: func(id int) (*exchange.Sampler, error) {
			cold, hot := models.PaperFixedNoise(mix)
			cfg, err := exchange.SGLDMethod.Config(exchange.Setup{Tau1: 1, Eta: langevin.Constant{Step: 0.15},
				Cold: cold, Hot: hot, Seed: exchange.ChainSeed(3, id)})
			if err != nil {
				return nil, err
			}
			return exchange.New(cfg, starts(len(cfg.Levels), 1))
		},
		LogDensity: func(x []float64) float64 { return -x[0] * x[0] / 2 },
		Out:        t.TempDir(),
		Extend:     extend,
	}
}

// A run whose plan fell short of the verdict's ESS runs on to the draws
// Shortfall asks (times the margin), and its draws are, bit for bit, those
// of a run planned that long from the start: the extension continues the
// same frozen kernel and random stream, exact in law. It fails if the
// extension is off, aimed at another length, restarts a chain, or skips
// or repeats a step.
func TestRunExtendsShortRun(t *testing.T) {
	const keep = 1000
	ids := []int{1, 2, 3, 4}
	short, err := Sample(context.Background(), extendRun(t, keep, false), ids)
	if err != nil {
		t.Fatal(err)
	}
	f, worst := results.Shortfall(short.Summary, nil)
	if !(f > 1 && f <= ExtendMax) {
		t.Fatalf("the planned run's shortfall is %.3g (%s's ESS %.0f): the test needs one in (1, %d]", f, worst.Name, worst.ESSBulk, ExtendMax)
	}
	want := int(math.Ceil(extendMargin * f * keep))
	ext, err := Sample(context.Background(), extendRun(t, keep, true), ids)
	if err != nil {
		t.Fatal(err)
	}
	long, err := Sample(context.Background(), extendRun(t, want, false), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range ext.Chains {
		if n := len(c.Cols[0]); n != want {
			t.Fatalf("chain %d: %d draws, want %d (shortfall %.3g)", c.Header.ID, n, want, f)
		}
		for j := range c.Cols {
			if !slices.Equal(c.Cols[j], long.Chains[i].Cols[j]) {
				t.Errorf("chain %d column %s: the extended draws differ from a run planned at %d draws", c.Header.ID, c.Columns[j], want)
			}
		}
		if c.Stats.Steps != long.Chains[i].Stats.Steps {
			t.Errorf("chain %d: %d steps, the long run %d", c.Header.ID, c.Stats.Steps, long.Chains[i].Stats.Steps)
		}
		read, err := results.ReadStanCSV(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(read.Cols[0]); n != want {
			t.Errorf("chain %d's CSV holds %d draws, want %d", c.Header.ID, n, want)
		}
		// Its header says so, as a CmdStan CSV reader checks (num_samples),
		// and is the long run's.
		if !slices.Equal(read.Comments[:len(c.Header.Lines())], long.Chains[i].Header.Lines()) || read.Header.Keep != want {
			t.Errorf("chain %d's CSV header says %d draws a chain:\n%s", c.Header.ID, read.Header.Keep, strings.Join(read.Comments, "\n"))
		}
	}
	if !slices.ContainsFunc(ext.Notes, func(n string) bool { return strings.Contains(n, worst.Name) && strings.Contains(n, "frozen kernel") }) {
		t.Errorf("no note names the extension and %s: %q", worst.Name, ext.Notes)
	}
	if g, _ := results.Shortfall(ext.Summary, nil); g > 1 {
		t.Logf("after the extension the shortfall is still %.3g", g)
	}
	t.Logf("shortfall %.3g (%s's ESS %.0f): extended to %d draws a chain", f, worst.Name, worst.ESSBulk, want)
}

// A run that meets the thresholds, one beyond ExtendMax, one of a larger
// run's chains (--chain c) and one whose length the user chose are not
// extended.
func TestRunExtendsOnlyWithinReach(t *testing.T) {
	ids := []int{1, 2, 3, 4}
	for _, c := range []struct {
		name   string
		keep   int
		single bool
		extend bool
	}{
		{"met", 4000, false, true},             // ESS about 1300
		{"beyond ExtendMax", 300, false, true}, // ESS about 100: 4 times short
		{"one chain of a run", 1000, true, true},
		{"length chosen", 1000, false, false},
	} {
		r := extendRun(t, c.keep, c.extend)
		r.Single = c.single
		res, err := Sample(context.Background(), r, ids)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := results.Shortfall(res.Summary, nil)
		if n := len(res.Chains[0].Cols[0]); n != c.keep {
			t.Errorf("%s: %d draws a chain, want the planned %d (shortfall %.3g)", c.name, n, c.keep, f)
		}
		// Each case is what its name says, or it tests nothing.
		if reach := f > 1 && f <= ExtendMax; c.keep == 4000 && f > 1 || c.keep == 300 && f <= ExtendMax || c.keep == 1000 && !reach {
			t.Errorf("%s: shortfall %.3g", c.name, f)
		}
	}
}

// A run interrupted while it extends resumes: its chains, stopped at
// different lengths past the plan's, go on to the length the extension
// chose, with its note, and every draw is the one the uninterrupted run
// takes. It fails where a checkpoint past the plan's steps is refused (as
// it was), a chain restarts, or the extension reads the chains again where
// the interrupt left them (it ended at another length than the run's).
func TestExtensionResumes(t *testing.T) {
	const keep = 1000
	ids := []int{1, 2, 3, 4}
	r := extendRun(t, keep, true)
	r.Every, r.Version = 3600, "test"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.Sample = func(step int) bool {
		if step == r.Plan.Burn+(keep+50)*r.Plan.Thin {
			cancel() // inside the extension
		}
		return true
	}
	first, err := Sample(ctx, r, ids)
	if err != nil {
		t.Fatal(err)
	}
	lens := map[int]bool{}
	for _, c := range first.Chains {
		lens[len(c.Cols[0])] = true
	}
	if len(lens) < 2 {
		// With as many cores as chains they may stop together: the
		// catch-up is then not exercised, the resume still is.
		t.Logf("the interrupt left every chain at one length %v", lens)
	}
	spec, err := ReadCheckpoints(r.Out, 0, "test")
	if err != nil {
		t.Fatal(err)
	}
	r.Sample, r.Resume = nil, spec
	resumed, err := Sample(context.Background(), r, ids)
	if err != nil {
		t.Fatal(err)
	}
	n := len(resumed.Chains[0].Cols[0])
	if n <= keep+50 || n > ExtendMax*keep {
		t.Fatalf("resumed to %d draws a chain, want more than the %d the interrupt reached and at most %d", n, keep+50, ExtendMax*keep)
	}
	whole, err := Sample(context.Background(), extendRun(t, keep, true), ids)
	if err != nil {
		t.Fatal(err)
	}
	if w := len(whole.Chains[0].Cols[0]); n != w {
		t.Errorf("resumed to %d draws a chain, the uninterrupted run extended to %d", n, w)
	}
	note := func(notes []string) string {
		for _, s := range notes {
			if strings.Contains(s, "frozen kernel") {
				return s
			}
		}
		return ""
	}
	if a, b := note(resumed.Notes), note(whole.Notes); a != b || a == "" {
		t.Errorf("the resumed run's extension note %q, the uninterrupted run's %q", a, b)
	}
	long, err := Sample(context.Background(), extendRun(t, n, false), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range resumed.Chains {
		if read, err := results.ReadStanCSV(c.Path); err != nil || read.Header.Keep != n {
			t.Errorf("chain %d's CSV header after the resume: %v", c.Header.ID, err)
		}
		for j := range c.Cols {
			if !slices.Equal(c.Cols[j], long.Chains[i].Cols[j]) {
				t.Fatalf("chain %d column %s: %d draws resumed differ from a run planned at %d", c.Header.ID, c.Columns[j], len(c.Cols[j]), n)
			}
		}
	}
	t.Logf("interrupted at lengths %v, resumed to %d draws a chain", lens, n)
}
