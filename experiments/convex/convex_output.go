package convex

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/experiments/report"
	"github.com/fresgld/fresgld/figure"
	"github.com/fresgld/fresgld/output"
)

// KRRDoF is the degrees of freedom of a kernel-ridge fit that reduces to
// the mean of its targets on a constant noise: points·(repeats − 1).
func (c Convex) KRRDoF() float64 { return float64(c.Var.KRRPoints * (c.Var.Repeats - 1)) }

// ConvexCell is a simulated method at one η, over seeds.
type ConvexCell struct {
	Method string
	Eta    float64
	// MomentW2 is |√E θ² − √(τ1/λ)|, the W2 distance for a centred
	// Gaussian law and a lower bound for any law (the L2 triangle
	// inequality under any coupling).
	MomentW2, MomentSE float64
	// W2 is the mean per-seed W2 from quantiles (biased upward by Monte
	// Carlo error), PooledW2 the W2 of all seeds' samples together.
	W2       report.Stat
	PooledW2 float64
	SwapRate report.Stat
	Grad     report.Stat
}

// Cells reduces the rows.
func (r ConvexResult) Cells(etas []float64) []ConvexCell {
	var out []ConvexCell
	for _, v := range ConvexVariants {
		for _, eta := range etas {
			var m2, w2, sr, gr []float64
			for _, row := range r.Rows {
				if row.Method == v.Name && row.Eta == eta {
					m2 = append(m2, row.M2)
					w2 = append(w2, row.W2)
					gr = append(gr, row.Grad)
					if !math.IsNaN(row.SwapRate) {
						sr = append(sr, row.SwapRate)
					}
				}
			}
			mm, mse := diag.MeanSE(m2)
			c := ConvexCell{Method: v.Name, Eta: eta, PooledW2: r.Pooled[v.Name][eta]}
			c.MomentW2 = math.Abs(math.Sqrt(mm) - math.Sqrt(cvTau1/cvLambda))
			c.MomentSE = mse / (2 * math.Sqrt(mm))
			c.W2 = stat(w2)
			c.SwapRate = stat(sr)
			c.Grad = stat(gr)
			out = append(out, c)
		}
	}
	return out
}

func stat(xs []float64) report.Stat {
	if len(xs) == 0 {
		return report.Stat{Mean: math.NaN(), SE: math.NaN()}
	}
	m, se := diag.MeanSE(xs)
	return report.Stat{Mean: m, SE: se}
}

// Write saves convex.{csv,json,md} under results and the figure convex-w2
// under figures, and returns the Markdown.
func (c Convex) Write(res ConvexResult, results, figures string) (string, error) {
	cells := res.Cells(c.Etas)
	var md bytes.Buffer
	nu := c.KRRDoF()
	fmt.Fprintf(&md, "\nA. Exact, without swaps (a = 0): W2(cold chain's stationary law, N(0, τ1/λ)); λ = %g, τ1 = %g, s1 = %g\n\n", cvLambda, cvTau1, cvS1)
	md.WriteString("| η | LD = f-reSGLD (known ŝ²) | SGLD = reSGLD cold chain | f-reSGLD, ŝ² estimated (ν = " + strconv.Itoa(int(nu)) + ") | W2 to LD's law: SGLD | W2 to LD's law: f-reSGLD est. |\n|---|---|---|---|---|---|\n")
	var ld, sg, est, gn, ge []float64
	for _, eta := range c.Etas {
		a, b := ExactW2(eta, true, 1), ExactW2(eta, false, 1)
		e, eld := ExactW2Estimated(eta, nu)
		// Both laws are centred Gaussians: W2 is the difference of sds.
		sld := diag.GaussianW2(0, coldVar(eta, false, 1), 0, coldVar(eta, true, 1))
		ld, sg, est = append(ld, a), append(sg, b), append(est, e)
		gn, ge = append(gn, sld), append(ge, eld)
		fmt.Fprintf(&md, "| %g | %s | %s | %s | %s | %s |\n", eta, report.G(a), report.G(b), report.G(e), report.G(sld), report.G(eld))
	}
	fmt.Fprintf(&md, "| fitted slope of log W2 on log η | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
		SlopeLogLog(c.Etas, ld), SlopeLogLog(c.Etas, sg), SlopeLogLog(c.Etas, est), SlopeLogLog(c.Etas, gn), SlopeLogLog(c.Etas, ge))

	fmt.Fprintf(&md, "\nB. Simulated, with swaps (a = %g, attempt probability a·η): %d seeds, %g time units each after %g of burn-in, a state kept every %g; τ2 = %g, s2 = %g, σ1 = %g, σ2 = %g\n\n",
		cvA, c.Seeds, c.Time, cvBurnTime, cvThinTime, cvTau2, cvS2, cvSig1, cvSig2)
	md.WriteString("| method | η | \\|√E θ² − √(τ1/λ)\\| ± SE | W2 per seed (quantiles) | W2 pooled | swap rate | gradient evals per seed |\n|---|---|---|---|---|---|---|\n")
	for _, cl := range cells {
		fmt.Fprintf(&md, "| %s | %g | %s ± %s | %s | %s | %s | %s |\n", cl.Method, cl.Eta, report.G(cl.MomentW2), report.G(cl.MomentSE), cl.W2, report.G(cl.PooledW2), cl.SwapRate, report.G(cl.Grad.Mean))
	}
	md.WriteString("\nFitted slope of log(moment W2) on log η, over the η where it exceeds 3 SE:\n\n| method | slope | η used |\n|---|---|---|\n")
	for _, v := range ConvexVariants {
		var xs, ys []float64
		for _, cl := range cells {
			if cl.Method == v.Name && cl.MomentW2 > 3*cl.MomentSE {
				xs, ys = append(xs, cl.Eta), append(ys, cl.MomentW2)
			}
		}
		fmt.Fprintf(&md, "| %s | %.3f | %v |\n", v.Name, SlopeLogLog(xs, ys), xs)
	}

	if err := os.MkdirAll(results, 0o755); err != nil {
		return "", err
	}
	var cb bytes.Buffer
	cw := csv.NewWriter(&cb)
	cw.Write([]string{"method", "eta", "seed", "samples", "mean_theta2", "w2", "swap_rate", "grad_evals"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for _, r := range res.Rows {
		cw.Write([]string{r.Method, f(r.Eta), strconv.Itoa(r.Seed), strconv.Itoa(r.Samples), f(r.M2), f(r.W2), f(r.SwapRate), f(r.Grad)})
	}
	cw.Flush()
	type exactRow struct{ Eta, LD, SGLD, Estimated float64 }
	var ex []exactRow
	for i, eta := range c.Etas {
		ex = append(ex, exactRow{eta, ld[i], sg[i], est[i]})
	}
	type jcell struct {
		Method                       string
		Eta, MomentW2, MomentSE, W2P float64
		W2, SwapRate                 report.Stat
	}
	var jc []jcell
	for _, cl := range cells {
		jc = append(jc, jcell{cl.Method, cl.Eta, cl.MomentW2, cl.MomentSE, cl.PooledW2, cl.W2, cl.SwapRate})
	}
	js, err := json.MarshalIndent(struct {
		Exact     []exactRow
		Simulated []jcell
	}{ex, jc}, "", "  ")
	if err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"convex.csv": cb.Bytes(), "convex.json": js, "convex.md": md.Bytes()} {
		if err := output.WriteBytes(filepath.Join(results, name), b); err != nil {
			return "", err
		}
	}
	if err := c.figure(cells, ld, sg, est, filepath.Join(figures, "convex-w2")); err != nil {
		return "", err
	}
	return md.String(), nil
}

func (c Convex) figure(cells []ConvexCell, ld, sg, est []float64, base string) error {
	p := plot.New()
	p.Title.Text = "Gaussian target: W2(cold chain's stationary law, π) against η"
	p.X.Label.Text = "step size η"
	p.Y.Label.Text = "W2"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: no data there
	xy := func(ys []float64) plotter.XYs {
		out := make(plotter.XYs, 0, len(ys))
		for i, y := range ys {
			if y > 0 {
				out = append(out, plotter.XY{X: c.Etas[i], Y: y})
			}
		}
		return out
	}
	lines := []struct {
		name string
		ys   []float64
		col  color.Color
		dash bool
	}{
		{"exact, a=0: SGLD / reSGLD", sg, color.Black, false},
		{"exact, a=0: f-reSGLD known (= LD)", ld, color.Gray{Y: 0x70}, false},
		{"exact, a=0: f-reSGLD estimated ŝ²", est, color.Gray{Y: 0xa0}, true},
	}
	for _, l := range lines {
		ln, err := plotter.NewLine(xy(l.ys))
		if err != nil {
			return err
		}
		ln.Color, ln.Width = l.col, vg.Points(1.5)
		if l.dash {
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(ln)
		p.Legend.Add(l.name, ln)
	}
	// Slope ½ (the theorem's rate) through the SGLD line's largest η.
	half := make([]float64, len(c.Etas))
	for i, eta := range c.Etas {
		half[i] = sg[0] * math.Sqrt(eta/c.Etas[0])
	}
	hl, err := plotter.NewLine(xy(half))
	if err != nil {
		return err
	}
	hl.Dashes, hl.Color = []vg.Length{vg.Points(1), vg.Points(3)}, color.Black
	p.Add(hl)
	p.Legend.Add("slope ½ (the bound's rate)", hl)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	for i, v := range ConvexVariants {
		var pts plotter.XYs
		for _, cl := range cells {
			if cl.Method == v.Name && cl.MomentW2 > 0 {
				pts = append(pts, plotter.XY{X: cl.Eta, Y: cl.MomentW2})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = figure.Palette[i%len(figure.Palette)]
		sc.GlyphStyle.Shape = shapes[i%len(shapes)]
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add("swaps, simulated: "+v.Name, sc)
	}
	return figure.Save(p, 18*vg.Centimeter, 13*vg.Centimeter, base)
}
