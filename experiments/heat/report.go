package heat

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fresgld/fresgld/models/heat"
	"github.com/fresgld/fresgld/output"
)

// fidelityTable times each fidelity's solve and measures its error against
// the closed form, on the circle of solutions and over the whole square.
func fidelityTable(p heat.Problem, fids []heat.Fidelity, m int) (string, error) {
	var b strings.Builder
	b.WriteString("| solver | grid | time steps | CPU µs per solve | max error on the circle | documented bound | max error over [0,1]² |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, fd := range fids {
		s, err := heat.NewSolved(p, fd.N, fd.Steps)
		if err != nil {
			return "", err
		}
		us := timeSolve(s)
		bound := "—"
		switch fd {
		case heat.Fine:
			bound = fmt.Sprintf("%.4f", heat.FineBound)
		case heat.Coarse:
			bound = fmt.Sprintf("%.4f", heat.CoarseBound)
		}
		fmt.Fprintf(&b, "| %s | %d×%d interior (h = 1/%d) | %d | %.1f | %.4f | %s | %.4f |\n",
			fd.Name, fd.N, fd.N, fd.N+1, fd.Steps, us, p.CircleError(s, 360), bound, p.MaxError(s, m, nil))
	}
	fmt.Fprintf(&b, "\nErrors are |G_h(x0) − u(x_s, T; x0)| of the sensor reading; the circle is sampled at 360 points, the square at the centres of %d×%d cells.\n", m, m)
	return b.String(), nil
}

// timeSolve returns the mean CPU time of one solve (reading and gradient)
// in µs, over at least 0.3 s of solves at random centres. CPU time, not
// wall time: on a shared machine the wall clock also counts other work.
func timeSolve(s *heat.Solved) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	g := make([]float64, 2)
	start := cpuTime()
	n := 0
	for cpuTime()-start < 300*time.Millisecond {
		for range 50 {
			s.S.ReadingGrad(g, [2]float64{rng.Float64(), rng.Float64()})
		}
		n += 50
	}
	return float64((cpuTime() - start).Microseconds()) / float64(n)
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heatFigure draws the first n cold-chain samples of the first seed of
// each method side by side, with the exact circle of solutions.
func heatFigure(base string, p heat.Problem, runs [][]heatRun, n, maxPoints int) error {
	r0 := p.Radius()
	circle := make(plotter.XYs, 361)
	for k := range circle {
		a := 2 * math.Pi * float64(k) / 360
		circle[k].X, circle[k].Y = p.Sensor[0]+r0*math.Cos(a), p.Sensor[1]+r0*math.Sin(a)
	}
	thin := max(1, (n+maxPoints-1)/maxPoints)
	var plots []*plot.Plot
	for mi, m := range heatMethods {
		r := runs[mi][0]
		pts := make(plotter.XYs, 0, n/thin+1)
		for k := 0; k < n && k < len(r.xs); k += thin {
			pts = append(pts, plotter.XY{X: r.xs[k], Y: r.ys[k]})
		}
		pl := plot.New()
		pl.Title.Text = fmt.Sprintf("%s: first %d samples", m.Name, n)
		pl.X.Label.Text, pl.Y.Label.Text = "x0 (first coordinate)", "x0 (second coordinate)"
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0.1, 0.5, 0.3, 0.7
		ln, err := plotter.NewLine(circle)
		if err != nil {
			return err
		}
		ln.Color = color.Gray{Y: 170}
		ln.Width = vg.Points(0.5)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 30, G: 80, B: 200, A: 255}, Radius: vg.Points(0.7), Shape: draw.CircleGlyph{}}
		sensor, _ := plotter.NewScatter(plotter.XYs{{X: p.Sensor[0], Y: p.Sensor[1]}})
		sensor.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 200, A: 255}, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		pl.Add(ln, sc, sensor)
		plots = append(plots, pl)
	}
	return saveRow(plots, 15*vg.Inch, 5*vg.Inch, base)
}

// saveRow draws plots side by side and writes base.png and base.svg.
func saveRow(plots []*plot.Plot, w, h vg.Length, base string) error {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return err
	}
	for _, ext := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return err
		}
		tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
		cs := plot.Align([][]*plot.Plot{plots}, tiles, draw.New(c))
		for i, pl := range plots {
			pl.Draw(cs[0][i])
		}
		if err := output.WriteFile(base+"."+ext, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return err
		}
	}
	return nil
}
