package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/sampling"
	"github.com/fresgld/fresgld/usermodel"
)

// runStanNative runs the model loaded in process.
func runStanNative(ctx context.Context, stop func(), cmd *cobra.Command, f *sampleFlags, o analysis.Options, s *usermodel.Stan) error {
	model, err := s.PlanModel(s.Native, f.Seed)
	if err != nil {
		return err
	}
	return runSampling(cmd, sampling.Run{Model: model, Options: o, Ctx: ctx, Stop: stop,
		Ran: s.Failure,
		Headline: func(res *analysis.Result) string {
			s.Notes(res, s.Native.Rejected)
			return fmt.Sprintf("%s on the Stan model %s (%d unconstrained parameters, loaded in process), %d chain(s) in %.1fs, %d gradients:", f.Method, f.Stan, s.Native.Dim(), len(o.Chains), res.Wall.Seconds(), s.Native.Evals())
		},
		Summary: func(res *analysis.Result) any {
			return &sampleSummary{Settings: f, N: 1, Names: s.Constrained, WallSeconds: res.Wall.Seconds(), Requests: s.Native.Evals(), Result: sampling.ResultOf(res)}
		}})
}
