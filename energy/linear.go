package energy

// LinearTerms is implemented by Terms whose per-example gradient is a
// multiple of a fixed per-example vector, ∇U_i(θ) = d_i(θ)·x_i, as in a
// generalised linear model (x_i the features, d_i = ∂U_i/∂z at z = x_i·θ).
// A Minibatch then draws its gradients from the n slopes d_i and the rows
// x_i, several rows at a time, with no per-example gradient vector and no
// per-example energy.
//
// Slopes must give d_i bit for bit as Term computes ∇U_i = d_i·x_i, so that
// the two paths draw identical gradients.
type LinearTerms interface {
	Terms
	// Row returns x_i, the model's own storage (not to be modified).
	Row(i int) []float64
	// Slopes writes d_idx[k](θ) into d[k] for every k.
	Slopes(d, theta []float64, idx []int32)
}

// linearGrad computes, from the slopes d of the examples idx (d[0], idx[0]
// the shift example), shift = d_0·x_0 and the sums over the other examples
// of g_i − shift and, if sq is non-nil, of (g_i − shift)², where
// g_i = d_i·x_i, each coordinate summed in the order of idx as the per-term
// path sums them (so the bits agree). Rows are taken four at a time: one
// load and store of each running sum serves four examples, and the four
// products are independent.
func linearGrad(lin LinearTerms, sum, sq, shift, d []float64, idx []int32) {
	p := len(shift)
	x0 := lin.Row(int(idx[0]))[:p]
	for j, v := range x0 {
		shift[j] = d[0] * v
	}
	clear(sum)
	if sq != nil {
		clear(sq)
		sq = sq[:p]
	}
	sum = sum[:p]
	n := len(idx)
	k := 1
	for ; k+4 <= n; k += 4 {
		r0, r1 := lin.Row(int(idx[k]))[:p], lin.Row(int(idx[k+1]))[:p]
		r2, r3 := lin.Row(int(idx[k+2]))[:p], lin.Row(int(idx[k+3]))[:p]
		d0, d1, d2, d3 := d[k], d[k+1], d[k+2], d[k+3]
		if sq == nil {
			for j, sh := range shift {
				// float64(…) rounds each product as the per-term path
				// does when it stores ∇U_i, whatever the compiler fuses.
				s := sum[j] + (float64(d0*r0[j]) - sh)
				s += float64(d1*r1[j]) - sh
				s += float64(d2*r2[j]) - sh
				s += float64(d3*r3[j]) - sh
				sum[j] = s
			}
			continue
		}
		for j, sh := range shift {
			a := float64(d0*r0[j]) - sh
			b := float64(d1*r1[j]) - sh
			c := float64(d2*r2[j]) - sh
			e := float64(d3*r3[j]) - sh
			s := sum[j] + a
			s += b
			s += c
			s += e
			sum[j] = s
			q := sq[j] + a*a
			q += b * b
			q += c * c
			q += e * e
			sq[j] = q
		}
	}
	for ; k < n; k++ {
		r, dk := lin.Row(int(idx[k]))[:p], d[k]
		for j, sh := range shift {
			a := float64(dk*r[j]) - sh
			sum[j] += a
			if sq != nil {
				sq[j] += a * a
			}
		}
	}
}
