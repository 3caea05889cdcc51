package main

import (
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
)

func warpbreaks(t *testing.T, sigma0 float64) *Poisson {
	x, y, err := Warpbreaks(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 54 {
		t.Fatalf("%d examples, want warpbreaks' 54", len(y))
	}
	m, err := NewPoisson(x, y, sigma0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Under a flat prior the posterior mode is the maximum-likelihood fit,
// which R's glm computes independently: Newton's mode (|∇U|∞ < 1e-9, so
// within about 1e-9/λ_min ≈ 1e-10 of the exact mode here) and glm iterated
// to a relative deviance change of 1e-14 agree far inside 1e-6, while a
// wrong design column, count or gradient moves the fit by more than 1e-2.
func TestModeMatchesGLM(t *testing.T) {
	if _, err := exec.LookPath("Rscript"); err != nil {
		t.Skip("Rscript is not installed: the fit is not checked against R's glm")
	}
	out, err := exec.Command("Rscript", "-e", `d <- read.csv("warpbreaks.csv"); d$tension <- factor(d$tension, levels = c("L", "M", "H")); `+
		`f <- glm(breaks ~ wool + tension, poisson, d, control = glm.control(epsilon = 1e-14, maxit = 100)); `+
		`cat(sprintf("%.17g", coef(f)))`).Output()
	if err != nil {
		t.Fatal(err)
	}
	mode, _, err := mala.Laplace(energy.NewFull(warpbreaks(t, math.Inf(1))), make([]float64, len(Names)))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) != len(Names) {
		t.Fatalf("glm printed %q", out)
	}
	for j, s := range f {
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(mode[j]-want) <= 1e-6) {
			t.Errorf("%s: mode %v, glm %v", Names[j], mode[j], want)
		}
	}
}

// Each term's gradient is the derivative of its energy: central
// differences with step h = 1e-5 err by O(h²·U”') ≈ 1e-8 here, relative
// to values of order 10–100; a wrong factor or sign errs by order 1.
func TestTermGradient(t *testing.T) {
	m := warpbreaks(t, 2)
	beta := []float64{3.5, -0.2, -0.3, -0.5}
	g, gp := make([]float64, 4), make([]float64, 4)
	for _, i := range []int{-1, 0, 20, 53} {
		f := func(b []float64, g []float64) float64 {
			if i < 0 {
				return m.Prior(g, b)
			}
			return m.Term(g, b, i)
		}
		f(b0(beta), g)
		for j := range beta {
			const h = 1e-5
			bp, bm := b0(beta), b0(beta)
			bp[j] += h
			bm[j] -= h
			fd := (f(bp, gp) - f(bm, gp)) / (2 * h)
			if !(math.Abs(fd-g[j]) <= 1e-6*(1+math.Abs(g[j]))) {
				t.Errorf("%s ∂_%d: gradient %v, difference quotient %v", term(i), j, g[j], fd)
			}
		}
	}
}

func b0(b []float64) []float64 { return append([]float64(nil), b...) }

func term(i int) string {
	if i < 0 {
		return "prior"
	}
	return fmt.Sprintf("term %d", i)
}

// Bad data is refused naming its line and value.
func TestWarpbreaksErrors(t *testing.T) {
	for in, want := range map[string]string{
		"breaks,wool,tension\n3,C,L\n": `line 2: wool "C"`,
		"breaks,wool,tension\nx,A,L\n": `line 2: breaks "x"`,
		"breaks,wool,tension\n3,A,Q\n": `line 2: tension "Q"`,
		"count,wool,tension\n3,A,L\n":  "header",
		"breaks,wool,tension\n3,A\n":   "wrong number of fields",
	} {
		if _, _, err := Warpbreaks([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", in, err, want)
		}
	}
	if _, err := NewPoisson([][]float64{{1}}, []float64{2.5}, 1); err == nil || !strings.Contains(err.Error(), "count 1 is 2.5") {
		t.Errorf("a count of 2.5: error %v", err)
	}
}
