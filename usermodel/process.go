package usermodel

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/results"
)

// Blame gives the chains' stop warnings of a run whose model failed
// their true cause: they stopped on what the failed model answered (a NaN,
// nothing), not on their step size, so the sampler's own account of the
// stop (a divergence, a variance, its Go types) is left out and the model
// named.
func Blame(s *results.Summary, cmd string) {
	remedy := fmt.Sprintf("the model process %q failed: its error is printed last, and kept in summary.json (model_error) and report.html; the step size is not the cause", cmd)
	for i, w := range s.Details {
		if w.Code == "stopped" {
			s.Details[i].Message = fmt.Sprintf("chain %d stopped after %d steps: %s", w.Chain, int(w.Number), remedy)
			s.Details[i].Remedy = remedy
			s.Warnings[i] = s.Details[i].Message
		}
	}
}

// Busy is the progress note of a run on m: the share of the time
// since the last note that the model's process spent computing, which says
// whether the model or the sampler sets the pace.
func Busy(m *modelproc.Model) func() string {
	cpu0, _ := m.CPUTime()
	t0 := time.Now()
	return func() string {
		cpu, ok := m.CPUTime()
		now := time.Now()
		if !ok || !now.After(t0) {
			return ""
		}
		note := fmt.Sprintf("model busy %.0f%%", 100*float64(cpu-cpu0)/float64(now.Sub(t0)))
		cpu0, t0 = cpu, now
		return note
	}
}

// Failure puts the model's own failure, if it had one, before err: the
// sampler saw only the NaN or the silence that followed it, so err's account
// (a diverged level, a Hessian that is not positive definite, --eta) is not
// the cause and is left out; only the stage the run was in is said.
func Failure(m *modelproc.Model, cmd string, err error) error {
	merr := m.Err()
	if one, ok := either(merr, err); ok {
		return one
	}
	stage := ""
	if s, _, ok := strings.Cut(err.Error(), ": "); ok && stageName.MatchString(s) {
		stage = " (in its " + s + ")"
	}
	// What err says of the files is kept: a chain file that keeps the
	// draws of the run a resume continued, one a full disk left short.
	var files []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if strings.Contains(l, results.ErrKeptEarlier.Error()) || strings.Contains(l, "holds only") {
			files = append(files, "\n"+l)
		}
	}
	return fmt.Errorf("%w\nthe run stopped on it%s: the model process %q failed, not the sampler: fix the model (run its command by hand on the request above) and run again%s", merr, stage, cmd, strings.Join(files, ""))
}

// stageName matches the name of a run's stage that an error begins with
// ("automatic step size"), not a file's or a chain's.
var stageName = regexp.MustCompile(`^[a-z][a-z ]{2,40}$`)

// either is err where the model did not fail (merr nil), and merr where
// the run did not: true where one of the two is the whole account.
func either(merr, err error) (error, bool) {
	switch {
	case merr == nil:
		return err, true
	case err == nil:
		return merr, true
	}
	return nil, false
}
