package analysis

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

// messages are the warnings' lines.
func messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}
