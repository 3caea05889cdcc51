package figure

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// ReplicaTrace draws the level of every replica against the step: the
// replica-index trace of a tempering ladder. at[i][l] is the replica at level
// l at the i-th record, made at step steps[i]. A well-mixing ladder shows each
// line sweeping from the bottom to the top and back; a line stuck in a band
// shows a pair that rarely swaps. One colour per replica; no legend, which
// would cover the lines.
func ReplicaTrace(title string, steps []int, at [][]int) (*plot.Plot, error) {
	if len(at) == 0 || len(steps) != len(at) {
		return nil, fmt.Errorf("replica trace: %d records at %d steps", len(at), len(steps))
	}
	K := len(at[0])
	lines := make([]plotter.XYs, K)
	for r := range lines {
		lines[r] = make(plotter.XYs, len(at))
	}
	seen := make([]int, K) // seen[r] = i+1 once replica r is placed in record i
	for i, row := range at {
		if len(row) != K {
			return nil, fmt.Errorf("replica trace: record %d has %d levels, record 0 has %d", i, len(row), K)
		}
		for l, r := range row {
			if r < 0 || r >= K || seen[r] == i+1 {
				return nil, fmt.Errorf("replica trace: record %d (step %d) is not a permutation of the %d replicas: %v", i, steps[i], K, row)
			}
			seen[r] = i + 1
			lines[r][i] = plotter.XY{X: float64(steps[i]), Y: float64(l)}
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "step"
	p.Y.Label.Text = "level (0 = coldest)"
	for r, xy := range lines {
		l, err := paletteLine(xy, r, vg.Points(0.8), vg.Points(3))
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	p.Y.Min, p.Y.Max = -0.2, float64(K-1)+0.2
	return p, nil
}
