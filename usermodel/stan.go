// Package usermodel holds the user's model of fresgld sample as a run
// samples it: a Stan program compiled, started and loaded in process where
// it can be (Stan), and a model process's share of the run's time and its
// failure put before the sampler's (Busy, Failure, Blame).
package usermodel

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/stan"
)

// Stan is a run's Stan model (sample --stan): its compiled program,
// loaded in this process where it can be (Native), its start, and the
// writer of Stan's draws for a model run as a process.
type Stan struct {
	*stan.Model
	init   []float64    // --init's, unconstrained
	Native *stan.Native // nil where the model runs as a process
	w      *stan.Writer
}

// OpenStan compiles the model source (--stan; or finds it compiled), reads
// its data and init (--data, --init; "" for none), and loads it at seed,
// all before any sampling. A model that cannot be loaded in process (a
// build without cgo) runs as a process of its program, which a line on
// log says.
func OpenStan(ctx context.Context, source, data, init string, seed uint64, log io.Writer) (*Stan, error) {
	m, err := stan.Open(ctx, source, data, "", log)
	if err != nil {
		return nil, err
	}
	s := &Stan{Model: m}
	if init != "" {
		if s.init, err = m.Init(ctx, init); err != nil {
			return nil, err
		}
	}
	if s.Native, err = m.Load(seed); err != nil {
		fmt.Fprintf(log, "note: the model runs as a process of its program, a round trip a gradient: %v\n", err)
		s.Native = nil
	}
	return s, nil
}

// UGrader is the energy and gradient of the model, in process or not,
// and what it rejected.
type UGrader interface {
	energy.Terms
	UGrad(g, x []float64) float64
	Rejected() (int64, string)
}

// PlanModel is the model the run samples on t, the model's energy in
// process or not: the sampler moves Stan's unconstrained parameters,
// written in the columns uncNames names; Stan's draws (constrained parameters, transformed parameters and generated
// quantities, with Stan's names) follow them.
func (s *Stan) PlanModel(t UGrader, seed uint64) (plan.Model, error) {
	start, note, err := stan.Start(t.UGrad, t.Dim(), s.init, seed)
	if err != nil {
		if n, msg := t.Rejected(); n > 0 {
			err = fmt.Errorf("%w (the model rejected those states; the latest: %s)", err, msg)
		}
		return plan.Model{}, fmt.Errorf("--stan %s: %w", s.Bin.Source, err)
	}
	if note != "" {
		fmt.Println(note)
	}
	m := plan.Model{Terms: t, Names: uncNames(s.Unconstrained), Init: start, Generated: s.Constrained}
	if s.Native != nil {
		m.Generate = s.Native.Write
		return m, nil
	}
	if s.w, err = s.NewWriter(seed); err != nil {
		return plan.Model{}, err
	}
	m.Generate = s.w.Write
	return m, nil
}

// uncNames are the unconstrained coordinates' columns: Stan's name with
// its dots made underscores and "_unc__" after it (theta.1 → theta_1_unc__).
// The suffix "__" marks a sampler column, which fresgld's summaries leave
// out and which no Stan variable's name can end in; and a name without
// dots is one variable to rstan's read_stan_csv, which reads theta.1 as
// theta[1]. Where two would be alike (a vector theta and a scalar
// theta_1), the columns are unc_1__, unc_2__, … instead.
func uncNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for j, n := range names {
		out[j] = strings.ReplaceAll(n, ".", "_") + "_unc__"
		if seen[out[j]] {
			for j := range out {
				out[j] = fmt.Sprintf("unc_%d__", j+1)
			}
			return out
		}
		seen[out[j]] = true
	}
	return out
}

// Failure puts the loaded model's own failure, if it had one, before
// the run's error err: the run stopped on it, not on the sampler.
func (s *Stan) Failure(err error) error {
	merr := s.Native.Err()
	if one, ok := either(merr, err); ok {
		return one
	}
	return fmt.Errorf("%w\nthe run stopped on it: the Stan model failed, not the sampler (%w)", merr, err)
}

// Notes adds what the model said during the run to its summary: how many
// states it rejected (a note: Stan's samplers meet such states too), and
// a warning where its transformed parameters or generated quantities
// failed on some draws.
func (s *Stan) Notes(res *analysis.Result, rejected func() (int64, string)) {
	if n, msg := rejected(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the model rejected %d states (each a rejected proposal; the latest: %s)", n, msg))
	}
	var fails int64
	var msg string
	switch {
	case s.Native != nil:
		fails, msg = s.Native.WriteFailures()
	case s.w != nil:
		if msg = s.w.Messages(); msg != "" {
			fails = 1
		}
		if err := s.w.Err(); err != nil {
			fails, msg = 1, err.Error()
		}
	}
	if fails == 0 {
		return
	}
	w := results.Warning{Code: "stan-write", Number: float64(fails),
		Remedy: "check the generated quantities block (an _rng given an invalid argument throws)"}
	w.Message = fmt.Sprintf("Stan's draws: the model failed on %d draws, whose transformed parameters or generated quantities are NaN from the failure on (the latest: %s); %s", fails, lastLine(msg), w.Remedy)
	if s.Native == nil {
		w.Message = fmt.Sprintf("Stan's draws: the model failed on some draws, whose transformed parameters or generated quantities are NaN from the failure on (%s); %s", lastLine(msg), w.Remedy)
	}
	res.Summary.Details = append(res.Summary.Details, w)
	res.Summary.Warnings = append(res.Summary.Warnings, w.Message)
}

// lastLine is s's last line, its final newlines left out.
func lastLine(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}

// Close ends the model's writer and unloads it.
func (s *Stan) Close() {
	if s.w != nil {
		s.w.Close()
	}
	if s.Native != nil {
		s.Native.Close()
	}
}
