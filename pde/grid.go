package pde

// pattern describes a grid function over the interior nodes of the form
//
//	v_ij = x1_i·y1_j − k·x2_i·y2_j + (boundary lift),
//
// where the lift adds bx_i'·by_j'/dz² for each boundary node (i', j')
// adjacent to (i, j): the boundary data moved to the right-hand side of the
// five-point Laplacian. The bump's source, its boundary data and their
// derivatives with respect to x0 all have this form. Slices have n+2
// entries, indices 0 and n+1 being the boundary nodes.
type pattern struct {
	x1, y1, x2, y2 []float64
	k              float64
	bx, by         []float64 // nil: no lift
}

// fill writes scale·v into dst (n×n, row-major, i along x).
func fill(dst []float64, n int, dz, scale float64, p pattern) {
	for i := 1; i <= n; i++ {
		a1, a2 := scale*p.x1[i], scale*p.k*p.x2[i]
		row := dst[(i-1)*n : i*n]
		for j := range row {
			row[j] = a1*p.y1[j+1] - a2*p.y2[j+1]
		}
	}
	if p.bx == nil {
		return
	}
	w := scale / (dz * dz)
	for j := 1; j <= n; j++ {
		dst[j-1] += w * p.bx[0] * p.by[j]
		dst[(n-1)*n+j-1] += w * p.bx[n+1] * p.by[j]
	}
	for i := 1; i <= n; i++ {
		dst[(i-1)*n] += w * p.bx[i] * p.by[0]
		dst[(i-1)*n+n-1] += w * p.bx[i] * p.by[n+1]
	}
}

// dot returns Σ_ij nu_ij·v_ij without forming v.
func dot(nu []float64, n int, dz float64, p pattern) float64 {
	var s float64
	for i := 1; i <= n; i++ {
		row := nu[(i-1)*n : i*n]
		var r1, r2 float64
		for j, v := range row {
			r1 += v * p.y1[j+1]
			r2 += v * p.y2[j+1]
		}
		s += p.x1[i]*r1 - p.k*p.x2[i]*r2
	}
	if p.bx == nil {
		return s
	}
	var lift float64
	for j := 1; j <= n; j++ {
		lift += nu[j-1]*p.bx[0]*p.by[j] + nu[(n-1)*n+j-1]*p.bx[n+1]*p.by[j]
	}
	for i := 1; i <= n; i++ {
		lift += nu[(i-1)*n]*p.bx[i]*p.by[0] + nu[(i-1)*n+n-1]*p.bx[i]*p.by[n+1]
	}
	return s + lift/(dz*dz)
}
