package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// field is one member of a JSON object, in the order it was written.
type field struct {
	Key   string
	Value json.RawMessage
}

// fields reads a JSON object's members in order: settings are shown as
// the run wrote them, not sorted.
func fields(raw json.RawMessage) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{Key: t.(string), Value: v})
	}
	return out, nil
}

// flatten lists an object's scalar members as items, nested objects'
// members under "outer.inner", arrays as their JSON text.
func flatten(prefix string, raw json.RawMessage) []Item {
	fs, err := fields(raw)
	if err != nil {
		return []Item{{Name: strings.TrimSuffix(prefix, "."), Value: scalar(raw)}}
	}
	var items []Item
	for _, f := range fs {
		if len(f.Value) > 0 && f.Value[0] == '{' {
			items = append(items, flatten(prefix+f.Key+".", f.Value)...)
			continue
		}
		items = append(items, Item{Name: prefix + f.Key, Value: scalar(f.Value)})
	}
	return items
}

// scalar is a JSON value as a reader would write it: strings unquoted,
// numbers and the rest as written.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return string(raw)
	}
	return c.String()
}
