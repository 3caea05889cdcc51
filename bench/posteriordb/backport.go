package main

import (
	"fmt"
	"strings"
)

// Backport rewrites the array declarations of Stan ≥ 2.26 into the
// syntax that Debian's rstan 2.21 parses, which posteriordb's models
// used until its 2023 reformatting (a stanc3 --print-canonical pass,
// which changed nothing else that matters):
//
//	array[N, K] real<lower=0> y;   →  real<lower=0> y[N, K];
//	array[N] vector[K] x = f(…);   →  vector[K] x[N] = f(…);
//	array[] real theta             →  real[] theta      (a function's argument)
//	array[,] int f(…)              →  int[,] f(…)       (a function's return type)
//
// Comments and strings are left alone. It reports how many declarations
// it rewrote; code without them comes back unchanged.
func Backport(code string) (string, int, error) {
	var b strings.Builder
	n := 0
	i := 0
	for i < len(code) {
		// Comments and strings pass through.
		switch {
		case strings.HasPrefix(code[i:], "//") || code[i] == '#':
			j := strings.IndexByte(code[i:], '\n')
			if j < 0 {
				j = len(code) - i
			}
			b.WriteString(code[i : i+j])
			i += j
			continue
		case strings.HasPrefix(code[i:], "/*") || code[i] == '"':
			open, close := "/*", "*/"
			if code[i] == '"' {
				open, close = `"`, `"`
			}
			j := strings.Index(code[i+len(open):], close)
			if j < 0 {
				b.WriteString(code[i:])
				return b.String(), n, nil
			}
			end := i + len(open) + j + len(close)
			b.WriteString(code[i:end])
			i = end
			continue
		}
		if !strings.HasPrefix(code[i:], "array") || i > 0 && isIdent(code[i-1]) {
			b.WriteByte(code[i])
			i++
			continue
		}
		j := skipSpace(code, i+len("array"))
		if j >= len(code) || code[j] != '[' {
			b.WriteByte(code[i])
			i++
			continue
		}
		dims, j, err := balanced(code, j, '[', ']')
		if err != nil {
			return "", 0, err
		}
		// The element type: a name, its bounds <…>, its sizes […].
		j = skipSpace(code, j)
		k := j
		for k < len(code) && isIdent(code[k]) {
			k++
		}
		if k == j {
			return "", 0, fmt.Errorf("line %d: array[%s] not followed by a type", line(code, i), dims)
		}
		typ := code[j:k]
		for {
			k2 := skipSpace(code, k)
			if k2 < len(code) && (code[k2] == '<' || code[k2] == '[') {
				open, close := code[k2], byte('>')
				if open == '[' {
					close = ']'
				}
				inner, end, err := balanced(code, k2, open, close)
				if err != nil {
					return "", 0, err
				}
				typ += string(open) + inner + string(close)
				k = end
				continue
			}
			break
		}
		if strings.Trim(dims, " ,") == "" {
			// An unsized array type (arguments, return types): real[ , ].
			b.WriteString(typ + "[" + strings.ReplaceAll(dims, " ", "") + "]")
			i = k
			n++
			continue
		}
		k = skipSpace(code, k)
		e := k
		for e < len(code) && isIdent(code[e]) {
			e++
		}
		if e == k {
			return "", 0, fmt.Errorf("line %d: array[%s] %s not followed by a name", line(code, i), dims, typ)
		}
		b.WriteString(typ + " " + code[k:e] + "[" + dims + "]")
		i = e
		n++
	}
	return b.String(), n, nil
}

// balanced returns what lies between code[i] (open) and its matching
// close, and the index after the close.
func balanced(code string, i int, open, close byte) (string, int, error) {
	depth := 0
	for j := i; j < len(code); j++ {
		switch code[j] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return code[i+1 : j], j + 1, nil
			}
		}
	}
	return "", 0, fmt.Errorf("line %d: unbalanced %c", line(code, i), open)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func line(s string, i int) int { return 1 + strings.Count(s[:i], "\n") }
