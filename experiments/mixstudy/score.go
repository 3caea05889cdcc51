package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/finitemix"
)

// A scored run: its largest error in P(K+ = k) and in the component
// table (means and sds on the data's sd scale, weights as they are), each
// also in MCSEs (the run's and the reference's in quadrature), its CPU
// seconds and, for the default, its verdict.
type scored struct {
	name, verdict  string
	cpu            float64
	errK, errT     float64
	zK, zT         float64
	worstK, worstT string
	note           string
}

// score reads a reference (ref.json) and runs: fresgld output folders
// (summary.json, report.html, and DIR.time from GNU time: user, system,
// wall) and NUTS draw files (nuts.R's OUT.csv, OUT.csv.info and
// OUT.time), and prints one table row each.
func score(args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	refPath := fs.String("ref", "", "the reference's JSON (mixstudy ref)")
	fs.Parse(args)
	b, err := os.ReadFile(*refPath)
	if err != nil {
		return err
	}
	var ref Reference
	if err := json.Unmarshal(b, &ref); err != nil {
		return err
	}
	if !ref.Converged {
		return fmt.Errorf("%s: the reference did not converge: %s", *refPath, ref.Problem)
	}
	c, err := dataset.ReadColumn(ref.Data, ref.Column, false)
	if err != nil {
		return err
	}
	m, err := finitemix.NewFiniteMixture(c.Values, ref.K, ref.E0)
	if err != nil {
		return err
	}
	fmt.Printf("| run | CPU s | verdict | largest error in P(K+ = k) (MCSEs) | largest error in the component table (MCSEs) | note |\n|---|---|---|---|---|---|\n")
	for _, run := range fs.Args() {
		var s scored
		var est, mcse []float64
		if strings.HasSuffix(run, ".csv") {
			est, mcse, s.note, err = nutsRun(m, run)
		} else {
			est, mcse, s.verdict, err = defaultRun(run)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", run, err)
		}
		s.name = filepath.Base(run)
		s.cpu, err = cpuSeconds(strings.TrimSuffix(run, ".csv") + ".time")
		if err != nil {
			return err
		}
		k := ref.K
		for q, name := range ref.Names {
			d := est[q] - ref.Mean[q]
			z := d / math.Hypot(mcse[q], ref.MCSE[q])
			if d == 0 {
				z = 0
			}
			if q < k {
				if math.Abs(d) > math.Abs(s.errK) {
					s.errK, s.zK, s.worstK = d, z, name
				}
				continue
			}
			if q < 3*k { // means and sds: on the data's sd scale
				d /= m.SD
			}
			if math.Abs(d) > math.Abs(s.errT) {
				s.errT, s.zT, s.worstT = d, z, name
			}
		}
		fmt.Printf("| %s | %.1f | %s | %+.4f (%s, %+.1f) | %+.4f (%s, %+.1f) | %s |\n", s.name, s.cpu, s.verdict, s.errK, s.worstK, s.zK, s.errT, s.worstT, s.zT, s.note)
	}
	return nil
}

// cpuSeconds is user + system from a GNU time file "%U %S %e".
func cpuSeconds(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("%s: %q: want user, system and wall seconds", path, b)
	}
	u, err1 := strconv.ParseFloat(f[len(f)-3], 64)
	s, err2 := strconv.ParseFloat(f[len(f)-2], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: %q", path, b)
	}
	return u + s, nil
}

var verdictRE = regexp.MustCompile(`class="verdict (\w+)"`)

// defaultRun reads a fresgld mixture folder: the quantities (named as in
// Quantities) and their MCSEs from summary.json's parameters, and the
// verdict from report.html.
func defaultRun(dir string) (est, mcse []float64, verdict string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, nil, "", err
	}
	var s struct {
		K          int `json:"components_k"`
		Parameters []struct {
			Variable string   `json:"variable"`
			Mean     float64  `json:"mean"`
			MCSE     *float64 `json:"mcse_mean"`
			SD       float64  `json:"sd"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, nil, "", err
	}
	for _, q := range Quantities(s.K) {
		i := slices.IndexFunc(s.Parameters, func(p struct {
			Variable string   `json:"variable"`
			Mean     float64  `json:"mean"`
			MCSE     *float64 `json:"mcse_mean"`
			SD       float64  `json:"sd"`
		}) bool {
			return p.Variable == q
		})
		if i < 0 {
			return nil, nil, "", fmt.Errorf("no %s in summary.json", q)
		}
		p := s.Parameters[i]
		est = append(est, p.Mean)
		e := 0.0
		if p.MCSE != nil && p.SD > 0 {
			e = *p.MCSE
		}
		mcse = append(mcse, e)
	}
	h, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		return nil, nil, "", err
	}
	if v := verdictRE.FindSubmatch(h); v != nil {
		verdict = string(v[1])
	}
	return est, mcse, verdict, nil
}

// nutsRun reads nuts.R's draws (chain, divergent, mu_k, sigma_k, w_k in
// the data's units), computes each draw's P(K+ = k | θ) as the default's
// p_clusters columns do, and returns the quantities' means over the
// draws, their MCSEs (diag.MCSEMean over the chains) and a note: R̂ and
// divergences from OUT.csv.info.
func nutsRun(m *finitemix.FiniteMixture, path string) (est, mcse []float64, note string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, "", err
	}
	k := m.K
	nq := 4 * k
	draws := make([][][]float64, nq) // [q][chain][t]
	for q := range draws {
		draws[q] = make([][]float64, 4)
	}
	p := m.NewParams()
	theta := make([]float64, m.Dim())
	out := make([]float64, k)
	for _, r := range rows[1:] {
		v := make([]float64, len(r))
		for i, x := range r {
			if v[i], err = strconv.ParseFloat(x, 64); err != nil {
				return nil, nil, "", err
			}
		}
		c := int(v[0]) - 1
		for j := range k {
			p.Mu[j] = (v[2+j] - m.Mean) / m.SD
			p.Sigma[j] = v[2+k+j] / m.SD
			p.W[j] = v[2+2*k+j]
		}
		m.Pack(theta, p)
		m.ClustersAt(out, theta)
		for j := range k {
			draws[j][c] = append(draws[j][c], out[j])
			draws[k+j][c] = append(draws[k+j][c], v[2+j])
			draws[2*k+j][c] = append(draws[2*k+j][c], v[2+k+j])
			draws[3*k+j][c] = append(draws[3*k+j][c], v[2+2*k+j])
		}
	}
	for q := range nq {
		est = append(est, diag.PooledMean(draws[q]))
		e := diag.MCSEMean(draws[q])
		if math.IsNaN(e) {
			e = 0
		}
		mcse = append(mcse, e)
	}
	info, err := os.ReadFile(path + ".info")
	if err == nil {
		l := strings.Split(strings.TrimSpace(string(info)), "\n")
		if len(l) == 2 {
			var sec, rh, div float64
			if _, err := fmt.Sscanf(l[1], "%g,%g,%g", &sec, &rh, &div); err == nil {
				note = fmt.Sprintf("sampling %.1f s, R̂ ≤ %.3f, %.0f divergent after warmup", sec, rh, div)
			}
		}
	}
	return est, mcse, note, nil
}
