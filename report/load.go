package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fresgld/fresgld/output"
)

// WriteDir writes dir/report.html, the report Load builds from the run
// in dir.
func WriteDir(dir string) error {
	r, err := Load(dir)
	if err != nil {
		return err
	}
	return Save(filepath.Join(dir, FileName), r)
}

// Save writes r to path, whole or not at all.
func Save(path string, r *Report) error {
	return output.WriteFile(path, func(w io.Writer) error { return Write(w, r) })
}

// summary holds the members of a run's summary.json that the report
// reads by type; the rest it reads by name in Load.
type summary struct {
	Command     string          `json:"command"`
	Files       []string        `json:"files"` // a merge's chain files
	Settings    json.RawMessage `json:"settings"`
	Examples    int             `json:"examples"`
	WallSeconds float64         `json:"wall_seconds"`
	DiagChains  []int           `json:"diagnostic_chains"`
	Draws       int             `json:"draws_per_chain"`
	PooledDraws int             `json:"pooled_draws"`
	PerChain    []struct {
		Chain  int    `json:"chain"`
		Draws  int    `json:"draws"`
		Status string `json:"status"`
		Pooled bool   `json:"pooled"`
	} `json:"per_chain"`
	Chains     []int      `json:"chains"`
	Parameters []Variable `json:"parameters"`
	Scale      string     `json:"scale"`
	DataScale  []Variable `json:"parameters_data_scale"`
	DataHead   string     `json:"data_scale"`
	Swaps      []struct {
		Levels   [2]int `json:"levels"`
		Attempts int    `json:"attempts"`
		Accepts  int    `json:"accepts"`
		NoSwap   int    `json:"chains_without_swaps"`
	} `json:"swap_acceptance"`
	SwapNoise []float64 `json:"swap_noise"`
	// Per pair; absent from runs without screened swaps' counts.
	SwapConfirmed []int `json:"swap_confirmed"`
	SwapDeclined  []int `json:"swap_declined"`
	Clamped       []struct {
		Level   int   `json:"level"`
		Steps   int   `json:"steps"`
		Clamped int64 `json:"clamped_steps"`
		// A Metropolis-adjusted level's accepted proposals.
		Accepted *int64 `json:"accepted"`
		// A level's jumps between the modes and those accepted.
		Jumps         *int64 `json:"jumps"`
		JumpsAccepted *int64 `json:"jumps_accepted"`
	} `json:"clamped"`
	Stopped []struct {
		Chain int    `json:"chain"`
		Steps int    `json:"steps"`
		Error string `json:"error"`
	} `json:"stopped_chains"`
	// ModelError is the failure of a model in another process (sample):
	// its error, standard error's tail and exit status.
	ModelError string   `json:"model_error"`
	Counted    int      `json:"chains_counted"`
	Cost       float64  `json:"total_cost"`
	CostUnit   string   `json:"cost_unit"`
	Notes      []string `json:"notes"`
	Warnings   []string `json:"warnings"`
	// Details are the warnings as values, where the run wrote them.
	Details []struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Number  float64 `json:"number"` // 0: none
		Remedy  string  `json:"remedy"`
	} `json:"warning_details"`
}

// MarshalJSON writes the row as summary.json has it: {"variable": name,
// ...the Summary's fields}.
func (v Variable) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(v.Summary)
	if err != nil {
		return nil, err
	}
	n, _ := json.Marshal(v.Name)
	return append(append(append([]byte(`{"variable":`), n...), ','), b[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *Variable) UnmarshalJSON(b []byte) error {
	var n struct {
		Variable string `json:"variable"`
	}
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	v.Name = n.Variable
	return json.Unmarshal(b, &v.Summary)
}

// Load builds the report of the run in dir from its summary.json and the
// figures the run wrote beside it.
func Load(dir string) (*Report, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	all, err := fields(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	byKey := map[string]json.RawMessage{}
	for _, f := range all {
		byKey[f.Key] = f.Value
	}
	r := &Report{Title: "fresgld " + s.Command}
	var pairs [][2]string // a merge's settings: the chain files' header pairs
	if json.Unmarshal(s.Settings, &pairs) == nil {
		for _, p := range pairs {
			r.Settings = append(r.Settings, Item{Name: p[0], Value: p[1]})
		}
	} else if s.Settings != nil {
		r.Settings = readable(flatten("", s.Settings))
	}
	for _, it := range r.Settings {
		switch it.Name {
		case "data":
			r.Title += " on " + filepath.Base(it.Value)
		case "model_cmd":
			// A title line, not the whole command: Settings has it all.
			c := []rune(it.Value)
			if len(c) > titleCmd {
				c = append(c[:titleCmd-1], '…')
			}
			r.Title += " on the model " + strconv.Quote(string(c))
		}
	}
	r.Lines = append(r.Lines, runLine(s), drawsLine(s))
	if s.WallSeconds > 0 {
		// On a line of its own: the one line a resumed run's report
		// differs in from an uninterrupted one's.
		r.Lines = append(r.Lines, fmt.Sprintf("wall time: %.3g s", s.WallSeconds))
	}
	r.Warnings = warnings(s)
	for _, f := range all {
		if name, ok := strings.CutSuffix(f.Key, "_rule"); ok {
			r.Choices = append(r.Choices, Item{Name: strings.ReplaceAll(name, "_", " "), Value: scalar(f.Value)})
		}
	}
	var swap struct {
		Mode string `json:"mode"`
		Rule string `json:"rule"`
	}
	if json.Unmarshal(byKey["swap_energies"], &swap) == nil && swap.Mode != "" {
		r.Choices = append(r.Choices, Item{Name: "swap energies", Value: swap.Mode + " (" + swap.Rule + ")"})
	}
	if len(s.Parameters) > 0 {
		r.Tables = append(r.Tables, SummaryTable(s.Scale, s.Parameters, len(s.DiagChains)))
	}
	if len(s.DataScale) > 0 {
		r.Tables = append(r.Tables, SummaryTable(s.DataHead, s.DataScale, len(s.DiagChains)))
	}
	if t, ok := coefficientTable(byKey["per_coefficient"]); ok {
		r.Tables = append(r.Tables, t)
	}
	if s.Counted > 0 {
		for l, p := range s.Swaps {
			q := Pair{Levels: p.Levels, Attempts: p.Attempts, Accepts: p.Accepts, NoSwap: p.NoSwap}
			if l < len(s.SwapNoise) {
				q.Noise = &s.SwapNoise[l]
			}
			if l < len(s.SwapConfirmed) && l < len(s.SwapDeclined) {
				q.Confirmed, q.Declined = &s.SwapConfirmed[l], &s.SwapDeclined[l]
			}
			r.Pairs = append(r.Pairs, q)
		}
		for _, l := range s.Clamped {
			r.Levels = append(r.Levels, Level{Level: l.Level, Steps: l.Steps, Clamped: l.Clamped, Accepted: l.Accepted, Jumps: l.Jumps, JumpsAccepted: l.JumpsAccepted})
		}
	}
	r.Ladders = ladderTable(byKey["ladders"], s)
	var plan struct {
		Search struct {
			Searched string `json:"searched"`
		} `json:"search"`
	}
	if json.Unmarshal(byKey["plan"], &plan) == nil {
		r.Searched = plan.Search.Searched
	}
	r.Notes = s.Notes
	if s.Counted > 0 {
		r.Groups = append(r.Groups, costGroup(s, byKey))
	} else {
		r.Notes = append(r.Notes, "swap acceptance, clamped steps and cost: unknown (every chain was killed before writing them)")
	}
	if t, g, ok := exactSection(byKey, s.Parameters); ok {
		r.Exact = t
		if len(g.Items) > 0 {
			r.Groups = append(r.Groups, g)
		}
	}
	r.Failure = failure(s)
	j := judged(s, r)
	j.ExactFailed = exactFailures(r.Exact, byKey)
	r.Verdict = Judge(j)
	r.Figures, err = LoadFigures(dir)
	return r, err
}

// titleCmd is the most runes of a model's command the title shows.
const titleCmd = 60

// zeroMeans says what a setting's 0 stands for where it is not a number:
// the settings record the flags as given.
var zeroMeans = map[string]string{
	"exact_every":      "auto (⌈4KN/n⌉ steps)",
	"cycle":            "off",
	"swap_batch":       "auto (each chain's own minibatch)",
	"hot_batch":        "auto (sized as the run goes)",
	"checkpoint_every": "off",
	"swap_a":           "0 (an attempt at every step)",
}

// readable shows settings as a reader wants them: a setting chosen
// automatically as "auto" (with the value chosen, where the run recorded
// it), a 0 that stands for automatic or off as such, and the
// X_automatic flags folded into X.
func readable(items []Item) []Item {
	auto := map[string]bool{}
	for _, it := range items {
		if name, ok := strings.CutSuffix(it.Name, "_automatic"); ok && it.Value == "true" {
			auto[name] = true
		}
	}
	var out []Item
	for _, it := range items {
		if _, ok := strings.CutSuffix(it.Name, "_automatic"); ok && (it.Value == "true" || it.Value == "false") {
			continue
		}
		switch {
		case it.Value == "0" && zeroMeans[it.Name] != "":
			it.Value = zeroMeans[it.Name]
		case auto[it.Name] && (it.Value == "0" || it.Value == "auto"):
			it.Value = "auto"
		case auto[it.Name]:
			it.Value = "auto: " + it.Value
		}
		out = append(out, it)
	}
	return out
}

// failure is what stopped a failed run's chains, each error once, and the
// model's own error.
func failure(s summary) []Item {
	var out []Item
	if s.ModelError != "" {
		out = append(out, Item{Name: "the model process's error (its exit status and the end of its standard error among it)", Value: s.ModelError})
	}
	seen := map[string]bool{}
	for _, st := range s.Stopped {
		if st.Error == "" || st.Error == "interrupted" || seen[st.Error] {
			continue
		}
		seen[st.Error] = true
		var chains []string
		for _, o := range s.Stopped {
			if o.Error == st.Error {
				chains = append(chains, strconv.Itoa(o.Chain))
			}
		}
		out = append(out, Item{Name: "what stopped chain(s) " + strings.Join(chains, ", "), Value: st.Error})
	}
	return out
}

// judged is what the verdict reads from a run.
func judged(s summary, r *Report) Judged {
	j := Judged{Parameters: s.Parameters, Chains: len(s.DiagChains), Pairs: r.Pairs, Warnings: len(r.Warnings), Draws: s.PooledDraws, Failed: s.ModelError != ""}
	for _, c := range s.PerChain {
		switch c.Status {
		case "finished":
		case "stopped":
			j.Failed = true
			j.Stopped = append(j.Stopped, fmt.Sprintf("chain %d stopped on an error after %d draws", c.Chain, c.Draws))
		case "never started":
			j.Stopped = append(j.Stopped, fmt.Sprintf("chain %d never started", c.Chain)) // not "… after 0 draws"
		default:
			j.Stopped = append(j.Stopped, fmt.Sprintf("chain %d %s after %d draws", c.Chain, c.Status, c.Draws))
		}
	}
	return j
}

// warnings are the run's warnings, as values where summary.json holds
// them, each message without the remedy it ends with (shown apart).
func warnings(s summary) []Warning {
	if len(s.Details) != len(s.Warnings) {
		var out []Warning
		for _, m := range s.Warnings {
			out = append(out, Warning{Message: m})
		}
		return out
	}
	var out []Warning
	for _, d := range s.Details {
		w := Warning{Code: d.Code, Message: d.Message, Remedy: d.Remedy}
		if d.Number != 0 {
			w.Number = &d.Number
		}
		if m, ok := strings.CutSuffix(d.Message, d.Remedy); ok && d.Remedy != "" {
			w.Message = strings.TrimRight(m, " :;")
		}
		out = append(out, w)
	}
	return out
}

// runLine says what ran, on how many examples, or what a merge pooled.
func runLine(s summary) string {
	if len(s.Files) > 0 {
		return fmt.Sprintf("fresgld merge of %d %s chain file(s): %s", len(s.Files), s.Command, strings.Join(s.Files, ", "))
	}
	l := "fresgld " + s.Command
	if s.Examples > 0 {
		l += fmt.Sprintf(", %d examples", s.Examples)
	}
	return l + fmt.Sprintf(", %d chain(s) run", len(s.PerChain))
}

// drawsLine is the table's first line as the command prints it.
func drawsLine(s summary) string {
	l := fmt.Sprintf("%d chains × %d draws", len(s.Chains), s.Draws)
	if s.PooledDraws != s.Draws*len(s.Chains) {
		l = fmt.Sprintf("%d chains, %d draws", len(s.Chains), s.PooledDraws)
	}
	var per []string
	early := false
	for _, c := range s.PerChain {
		d := fmt.Sprintf("chain %d: %d draws", c.Chain, c.Draws)
		if c.Status != "finished" {
			early = true
			d += ", " + c.Status
		}
		if !c.Pooled && c.Draws > 0 {
			d += ", left out"
		}
		per = append(per, d)
	}
	if early {
		l += " (" + strings.Join(per, "; ") + ")"
	}
	return l
}

// costGroup is the run's cost: the total and, for the minibatch
// commands, its parts.
func costGroup(s summary, byKey map[string]json.RawMessage) Group {
	g := Group{Heading: "Cost", Items: []Item{{Name: "total cost", Value: fmt.Sprintf("%.4g %s", s.Cost, s.CostUnit)}}}
	if raw, ok := byKey["swap_cost"]; ok {
		for _, it := range flatten("", raw) {
			g.Items = append(g.Items, Item{Name: strings.ReplaceAll(it.Name, "_", " "), Value: it.Value})
		}
	}
	var swap struct {
		Pilot float64 `json:"pilot_evaluations"`
	}
	if json.Unmarshal(byKey["swap_energies"], &swap) == nil && swap.Pilot > 0 {
		g.Items = append(g.Items, Item{Name: "swap-energy pilot (not in the total)", Value: fmt.Sprintf("%.4g", swap.Pilot)})
	}
	return g
}

// coefficientTable is regress's per-coefficient table: the run's mean,
// sd and inclusion probability and, when the run computed them, the exact
// posterior's, a column for each member the first row has.
func coefficientTable(raw json.RawMessage) (Table, bool) {
	var rows []json.RawMessage
	if raw == nil || json.Unmarshal(raw, &rows) != nil || len(rows) == 0 {
		return Table{}, false
	}
	first, err := fields(rows[0])
	if err != nil {
		return Table{}, false
	}
	t := Table{Caption: "per coefficient: the run's mean, sd and inclusion probability P(γ = 1 | y) with its MCSE"}
	var keys []string
	for _, f := range first {
		keys = append(keys, f.Key)
	}
	if slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "exact_") }) {
		t.Caption += "; exact_*: the exact posterior's (σ fixed)"
	}
	t.Columns = slices.Clone(keys)
	for _, row := range rows {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(row, &m); err != nil {
			return Table{}, false
		}
		var cells []Cell
		for _, k := range keys {
			var x *float64
			if json.Unmarshal(m[k], &x) == nil && x != nil {
				cells = append(cells, Cell{Text: fmt.Sprintf("%.4g", *x)})
			} else {
				cells = append(cells, Cell{Text: scalar(m[k])})
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t, true
}

// ladderTable is each chain's ladder as gmm records it: its temperatures,
// the barrier estimate Λ̂, the replicas' round trips and the rate they
// approach; nil for a run without one.
func ladderTable(raw json.RawMessage, s summary) *Table {
	var ls []*struct {
		Steps       int        `json:"steps"`
		Taus        []float64  `json:"taus"`
		Scheme      string     `json:"scheme"`
		Rejection   []*float64 `json:"rejection"`
		Lambda      *float64   `json:"lambda"`
		RoundTrips  int        `json:"round_trips"`
		TripRate    float64    `json:"round_trip_rate"`
		Bound       *float64   `json:"rate_bound"`
		Recommended *int       `json:"recommended_levels"`
	}
	if raw == nil || json.Unmarshal(raw, &ls) != nil || len(ls) == 0 {
		return nil
	}
	t := &Table{
		Caption: "each chain's ladder: Λ̂ = Σ rejection over the pairs, the replicas' round trips per round and the rate 1/(2 + 2Λ̂) they approach with many levels; K ≈ 2Λ̂ levels recommended",
		Columns: []string{"chain", "levels τ", "swaps", "steps", "rejection per pair", "Λ̂", "round trips", "rate/round", "1/(2+2Λ̂)", "recommended K"},
	}
	opt := func(x *float64, f string) string {
		if x == nil {
			return "–"
		}
		return fmt.Sprintf(f, *x)
	}
	for i, l := range ls {
		if l == nil {
			continue
		}
		id := fmt.Sprint(i + 1)
		if i < len(s.PerChain) {
			id = fmt.Sprint(s.PerChain[i].Chain)
		}
		var taus, rej []string
		for _, x := range l.Taus {
			taus = append(taus, fmt.Sprintf("%.4g", x))
		}
		for _, x := range l.Rejection {
			rej = append(rej, opt(x, "%.3f"))
		}
		rec := "–"
		if l.Recommended != nil {
			rec = fmt.Sprint(*l.Recommended)
		}
		t.Rows = append(t.Rows, []Cell{{Text: id}, {Text: strings.Join(taus, ", ")}, {Text: l.Scheme}, {Text: fmt.Sprint(l.Steps)},
			{Text: strings.Join(rej, " ")}, {Text: opt(l.Lambda, "%.3f")}, {Text: fmt.Sprint(l.RoundTrips)},
			{Text: fmt.Sprintf("%.4f", l.TripRate)}, {Text: opt(l.Bound, "%.4f")}, {Text: rec}})
	}
	return t
}

// figures are the figures a run writes, in the order the report shows
// them, with what each shows.
var figures = []struct{ name, caption string }{
	{"density", "the pooled draws' density against the exact one"},
	{"trace", "trace plots: each chain's draws by step"},
	{"ranks", "rank histograms: each chain's ranks among all draws (flat, near the dashed count, when the chains mix)"},
	{"marginals", "marginal densities, one curve per chain, and in black the exact density where the command knows it"},
	{"replicas", "which replica sits at each level, by step: the ladder's mixing"},
	{"ladder-trace", "the first chain's ladder trace: the level each replica holds, draw by draw"},
}

// LoadFigures reads the figures a run wrote into dir, the PNG of each (the
// fonts drawn in, so the page looks the same everywhere) or, without one,
// the SVG; figures the run did not write are skipped.
func LoadFigures(dir string) ([]Figure, error) {
	var out []Figure
	for _, f := range figures {
		for _, t := range []struct{ ext, typ string }{{".png", "image/png"}, {".svg", "image/svg+xml"}} {
			b, err := os.ReadFile(filepath.Join(dir, f.name+t.ext))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, Figure{Name: f.name, Caption: f.caption, Type: t.typ, Data: b})
			break
		}
	}
	return out, nil
}
