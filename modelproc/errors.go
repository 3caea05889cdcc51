package modelproc

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// describe names the request in progress: method, what it asked for, how
// many examples, and the state.
func (c *proc) describe() string {
	m := c.m
	r := &c.req
	var b strings.Builder
	b.WriteString(r.method)
	if r.grad {
		b.WriteString(" with gradient")
	}
	if r.method == "terms" {
		if r.y != nil {
			b.WriteString(" of differences")
		}
		if r.all {
			fmt.Fprintf(&b, " on all %d examples", m.n)
		} else {
			fmt.Fprintf(&b, " on %d examples", len(r.idx))
		}
	}
	fmt.Fprintf(&b, " at θ = %s", short(r.x))
	if r.y != nil {
		fmt.Fprintf(&b, " and %s", short(r.y))
	}
	return b.String()
}

// short prints up to six coordinates of x.
func short(x []float64) string {
	if len(x) <= 6 {
		return fmt.Sprint(x)
	}
	return strings.TrimSuffix(fmt.Sprint(x[:6]), "]") + fmt.Sprintf(" … (%d coordinates)]", len(x))
}

func (c *proc) failure(what string, err error) error {
	m := c.m
	msg := fmt.Sprintf("model process %q: request %s: %v", m.command, what, err)
	if t := c.tail.String(); t != "" {
		msg += "\nits standard error ended with:\n" + t
	}
	return errors.New(msg)
}

// layout says what a reply to r holds, for an error about its length.
func layout(r *request, p int) string {
	s := "U_0"
	if r.grad {
		s += fmt.Sprintf(", ∇U_0 (%d)", p)
	}
	if r.method == "terms" {
		s += ", U, USum, USq"
		if r.grad {
			s += fmt.Sprintf(", G, GSum, GSq (%d each)", p)
		}
	}
	return s
}

// valueName names the k-th value (from 0) of a reply to r.
func valueName(r *request, p, k int) string {
	names := []string{"U_0"}
	if r.grad {
		names = append(names, "∇U_0")
	}
	if r.method == "terms" {
		names = append(names, "U", "USum", "USq")
		if r.grad {
			names = append(names, "G", "GSum", "GSq")
		}
	}
	for _, s := range names {
		n := 1
		if strings.HasPrefix(s, "∇") || s == "G" || s == "GSum" || s == "GSq" {
			n = p
		}
		if k < n {
			if n == 1 {
				return s
			}
			return fmt.Sprintf("%s[%d]", s, k)
		}
		k -= n
	}
	return "beyond the reply"
}

// clip shortens a line for an error message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// tail keeps the last lines of the model's standard error.
type tail struct {
	mu sync.Mutex
	b  []byte
}

const tailBytes = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return strings.TrimRight(string(b), "\n")
}
