package sampling

import (
	"fmt"
	"reflect"
	"strings"
)

// Settings lists the fields of a command's flag struct by their JSON
// names, for the comment lines of its chains' CSVs. The chain selection
// (the fields of an embedded struct of type chains) and fields not in JSON
// are left out: chains of one run
// differ in nothing else, which is what merge checks. So are the seed and
// the plan (burn, keep, thin), which CmdStan's own lines carry, and method
// is called sampler, since CmdStan readers take "method" for theirs.
func Settings(flags any, chains reflect.Type) ([][2]string, error) {
	v := reflect.Indirect(reflect.ValueOf(flags))
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("settings of %T: not a struct", flags)
	}
	return settingsOf(v, chains), nil
}

// settingsOf is Settings of the struct v; an embedded struct's
// fields are listed in its place, as encoding/json flattens them (read
// through reflect, since an embedded struct of an unexported type, such as
// fresgld's slabFlags, cannot be handed out as an interface).
func settingsOf(v reflect.Value, chains reflect.Type) [][2]string {
	var out [][2]string
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == chains {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, settingsOf(v.Field(i), chains)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		switch name {
		case "":
			name = f.Name
		case "seed", "burn", "keep", "thin":
			continue
		case "method":
			name = "sampler"
		}
		out = append(out, [2]string{name, fmt.Sprint(v.Field(i))})
	}
	return out
}
