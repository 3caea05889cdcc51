package results

import "encoding/json"

// A Warning says what in a run not to trust: Message is the whole line as
// printed (remedy included), Number the value that triggered it (an R̂, an
// ESS, a share; 0 when none), Remedy what to do about it.
type Warning struct {
	Code    string  `json:"code"`
	Chain   int     `json:"chain,omitempty"` // 0: the whole run
	Message string  `json:"message"`
	Number  float64 `json:"number"`
	Remedy  string  `json:"remedy,omitempty"`
}

func (w Warning) String() string { return w.Message }

// MarshalJSON writes Number as JSONNum does: null when NaN or infinite
// (R̂ of chains that do not move), which encoding/json refuses.
func (w Warning) MarshalJSON() ([]byte, error) {
	type plain Warning
	return json.Marshal(struct {
		plain
		Number JSONNum `json:"number"`
	}{plain(w), JSONNum(w.Number)})
}

// messages are the warnings' lines.
func messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}
