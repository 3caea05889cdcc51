package minibatch

import (
	"encoding/json"

	"github.com/fresgld/fresgld/experiments/report"
)

// MarshalJSON writes the summary with NaN as null.
func (m MethodSummary) MarshalJSON() ([]byte, error) {
	type plain MethodSummary // without this method
	return json.Marshal(struct {
		plain
		Mean, SE    [][]report.Num
		Reach       []report.Num
		ReachReSGLD []report.Num
		SwapRate    report.Num
	}{plain(m), report.Nums2(m.Mean), report.Nums2(m.SE), report.Nums(m.Reach), report.Nums(m.ReachReSGLD), report.Num(m.SwapRate)})
}
