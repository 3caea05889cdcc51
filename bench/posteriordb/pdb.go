package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/internal/meanvar"
)

// Posterior is one of posteriordb's posteriors: a model, its data and
// the name of its reference draws.
type Posterior struct {
	Name      string `json:"name"`
	Model     string `json:"model_name"`
	Data      string `json:"data_name"`
	Reference string `json:"reference_posterior_name"`
}

// db is a posteriordb checkout: the folder holding posterior_database.
type db struct{ root string }

func (d db) path(parts ...string) string {
	return filepath.Join(append([]string{d.root, "posterior_database"}, parts...)...)
}

// Posteriors are the checkout's posteriors that filter keeps: a comma
// list of names (or one name), in its order, those without a reference
// and those not in the checkout among them (Model "": the study says
// so); or a regular expression, or "" for all, keeping those with a
// reference posterior, sorted by name.
func (d db) Posteriors(filter string) ([]Posterior, error) {
	files, err := filepath.Glob(d.path("posteriors", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--pdb %s: no posteriors in %s", d.root, d.path("posteriors"))
	}
	names := listFilter(filter)
	var re *regexp.Regexp
	if names == nil && filter != "" {
		if re, err = regexp.Compile(filter); err != nil {
			return nil, fmt.Errorf("--posteriors: %w", err)
		}
	}
	all := map[string]Posterior{}
	var ps []Posterior
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var p Posterior
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all[p.Name] = p
		if names == nil && p.Reference != "" && (re == nil || re.MatchString(p.Name)) {
			ps = append(ps, p)
		}
	}
	if names == nil {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
		return ps, nil
	}
	for _, n := range names {
		p, ok := all[n]
		if !ok {
			p = Posterior{Name: n}
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// listFilter is --posteriors's names where it is a list (commas, or one
// name: nothing a regular expression would treat specially), else nil.
func listFilter(filter string) []string {
	if filter == "" || !strings.Contains(filter, ",") && regexp.QuoteMeta(filter) != filter {
		return nil
	}
	var names []string
	for _, n := range strings.Split(filter, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// Code is the model's Stan code.
func (d db) Code(p Posterior) (string, error) {
	b, err := os.ReadFile(d.path("models", "stan", p.Model+".stan"))
	return string(b), err
}

// DataJSON is the posterior's data, unzipped.
func (d db) DataJSON(p Posterior) ([]byte, error) {
	return unzipOne(d.path("data", "data", p.Data+".json.zip"))
}

// unzipOne reads the one file of a zip archive.
func unzipOne(path string) ([]byte, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	if len(z.File) != 1 {
		return nil, fmt.Errorf("%s: %d files, expected one", path, len(z.File))
	}
	r, err := z.File[0].Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Reference is a posterior's reference: per parameter (CmdStan's name),
// the mean and sd of the reference draws, pooled over their chains.
type Reference struct {
	Names []string  // in the reference's order
	Mean  []float64 // of the pooled draws
	SD    []float64
	Draws int // per parameter, all chains
}

// Reference reads the posterior's reference draws.
func (d db) Reference(p Posterior) (*Reference, error) {
	path := d.path("reference_posteriors", "draws", "draws", p.Reference+".json.zip")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("reference draws %s absent from the checkout", filepath.Base(path))
	}
	b, err := unzipOne(path)
	if err != nil {
		return nil, err
	}
	return ParseReference(b)
}

// ParseReference reads reference draws in posteriordb's layout: a JSON
// array of chains, each an object from Stan's names ("theta[1]") to the
// chain's draws, the names in the same order in every chain.
func ParseReference(b []byte) (*Reference, error) {
	names, err := chainKeys(b)
	if err != nil {
		return nil, err
	}
	var chains []map[string][]float64
	if err := json.Unmarshal(b, &chains); err != nil {
		return nil, err
	}
	if len(chains) == 0 || len(names) == 0 {
		return nil, fmt.Errorf("reference draws: no chains or no parameters")
	}
	r := &Reference{}
	for _, n := range names {
		var pooled []float64
		for c, ch := range chains {
			x, ok := ch[n]
			if !ok {
				return nil, fmt.Errorf("reference draws: chain %d has no %s", c+1, n)
			}
			pooled = append(pooled, x...)
		}
		m, s := meanvar.MeanSD(pooled)
		r.Names = append(r.Names, CmdStanName(n))
		r.Mean = append(r.Mean, m)
		r.SD = append(r.SD, s)
		r.Draws = len(pooled)
	}
	return r, nil
}

// chainKeys are the keys of the first chain's object in the order they
// are written (a Go map would lose it).
func chainKeys(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("reference draws: not a JSON array of chains")
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("reference draws: the first chain is not an object")
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("reference draws: key %v", t)
		}
		names = append(names, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// CmdStanName is Stan's name of an element as CmdStan's CSV writes it:
// theta[1] → theta.1, Sigma[1,2] → Sigma.1.2.
func CmdStanName(s string) string {
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return s
	}
	idx := strings.Split(s[i+1:len(s)-1], ",")
	for k := range idx {
		idx[k] = strings.TrimSpace(idx[k])
	}
	return s[:i] + "." + strings.Join(idx, ".")
}

// Errors compares a method's draws with the reference: per reference
// parameter the summary of its chains (draws[name] is [chain][draw]).
type Errors struct {
	MaxMeanErr    num    `json:"max_abs_mean_err_over_ref_sd"`
	MaxMeanErrVar string `json:"max_abs_mean_err_variable"`
	SDRatioMin    num    `json:"sd_ratio_min"`
	SDRatioMax    num    `json:"sd_ratio_max"`
	MinESSBulk    num    `json:"min_ess_bulk"`
	MinESSVar     string `json:"min_ess_bulk_variable"`
	MaxRhat       num    `json:"max_rhat"`
	// Right: every |mean − ref| ≤ 0.1 ref sd, every sd ratio in [0.9, 1.1].
	Right bool `json:"right"`
	// Constant are reference parameters with sd 0, left out.
	Constant []string `json:"constant,omitempty"`
}

// Thresholds of "right".
const (
	MeanTol = 0.1
	SDTol   = 0.1
)

// Compare summarises draws over the reference's parameters.
func Compare(ref *Reference, draws map[string][][]float64) (Errors, error) {
	e := Errors{SDRatioMin: num(math.Inf(1)), SDRatioMax: num(math.Inf(-1)), MinESSBulk: num(math.Inf(1))}
	for k, n := range ref.Names {
		ch, ok := draws[n]
		if !ok {
			return e, fmt.Errorf("the reference's %s is not among the draws", n)
		}
		if ref.SD[k] == 0 {
			e.Constant = append(e.Constant, n)
			continue
		}
		s := diag.Summarize(ch)
		if err := math.Abs(s.Mean-ref.Mean[k]) / ref.SD[k]; worse(err, e.MaxMeanErr, true) {
			e.MaxMeanErr, e.MaxMeanErrVar = num(err), n
		}
		r := s.SD / ref.SD[k]
		if worse(r, e.SDRatioMin, false) {
			e.SDRatioMin = num(r)
		}
		if worse(r, e.SDRatioMax, true) {
			e.SDRatioMax = num(r)
		}
		if worse(s.ESSBulk, e.MinESSBulk, false) {
			e.MinESSBulk, e.MinESSVar = num(s.ESSBulk), n
		}
		if worse(s.Rhat, e.MaxRhat, true) {
			e.MaxRhat = num(s.Rhat)
		}
	}
	e.Right = e.MaxMeanErr <= MeanTol && e.SDRatioMin >= 1-SDTol && e.SDRatioMax <= 1+SDTol
	return e, nil
}

// worse says whether x is worse than the worst so far: larger (or
// smaller), NaN being worst of all and staying so.
func worse(x float64, w num, larger bool) bool {
	worst := float64(w)
	switch {
	case math.IsNaN(worst):
		return false
	case math.IsNaN(x):
		return true
	case larger:
		return x > worst
	}
	return x < worst
}
