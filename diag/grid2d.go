package diag

import "math"

// Grid2D is a distribution on [X0, X1]×[Y0, Y1] given by the masses of
// NX×NY equal cells, summing to 1; Mass[i*NY+j] is cell i along x, j along y.
type Grid2D struct {
	X0, X1, Y0, Y1 float64
	NX, NY         int
	Mass           []float64
}

// Tabulate2D fills a Grid2D with masses ∝ exp(logDens) at the cell centres.
func Tabulate2D(logDens func(x, y float64) float64, x0, x1, y0, y1 float64, nx, ny int) Grid2D {
	g := Grid2D{X0: x0, X1: x1, Y0: y0, Y1: y1, NX: nx, NY: ny, Mass: make([]float64, nx*ny)}
	hx, hy := (x1-x0)/float64(nx), (y1-y0)/float64(ny)
	mx := math.Inf(-1)
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			l := logDens(x0+(float64(i)+0.5)*hx, y0+(float64(j)+0.5)*hy)
			g.Mass[i*ny+j] = l
			mx = math.Max(mx, l)
		}
	}
	var z float64
	for k, l := range g.Mass {
		g.Mass[k] = math.Exp(l - mx) // shifted by the maximum: no overflow
		z += g.Mass[k]
	}
	for k := range g.Mass {
		g.Mass[k] /= z
	}
	return g
}

// TV is the total variation distance between the histogram of the points
// (xs[k], ys[k]) and the grid's masses on bx×by equal bins, each a union of
// (NX/bx)×(NY/by) cells; bx must divide NX and by divide NY. Points outside
// the rectangle count as mass the grid does not have.
func (g Grid2D) TV(xs, ys []float64, bx, by int) float64 {
	if len(xs) == 0 || len(xs) != len(ys) || bx < 1 || by < 1 || g.NX%bx != 0 || g.NY%by != 0 {
		return math.NaN()
	}
	exact := make([]float64, bx*by)
	fx, fy := g.NX/bx, g.NY/by
	for i := 0; i < g.NX; i++ {
		for j := 0; j < g.NY; j++ {
			exact[(i/fx)*by+j/fy] += g.Mass[i*g.NY+j]
		}
	}
	counts := make([]float64, bx*by)
	var outside float64
	wx, wy := (g.X1-g.X0)/float64(bx), (g.Y1-g.Y0)/float64(by)
	for k, x := range xs {
		i, j := bin(x, g.X0, g.X1, wx, bx), bin(ys[k], g.Y0, g.Y1, wy, by)
		if i < 0 || j < 0 {
			outside++
			continue
		}
		counts[i*by+j]++
	}
	n := float64(len(xs))
	tv := outside / n
	for b, c := range counts {
		tv += math.Abs(c/n - exact[b])
	}
	return tv / 2
}

// bin is the index of x among b bins of width w on [lo, hi], or −1 outside.
func bin(x, lo, hi, w float64, b int) int {
	if !(x >= lo && x <= hi) {
		return -1
	}
	return min(int((x-lo)/w), b-1)
}
