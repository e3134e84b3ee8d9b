package trust

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
)

// fill sets every field reachable from v to a value that is not its zero value: a pointer gets
// a value, a slice one element, a map one entry, each filled in turn.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.Interface:
		v.Set(reflect.ValueOf("${VAR}"))
	case reflect.String:
		v.SetString("${VAR}")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	default:
		panic("fill: a declaration field of kind " + v.Kind().String() + ": teach fill and change about it")
	}
}

// change gives v, filled, a different value of the same kind: a string, number or flag
// differs, a slice gets a second element, a map a second entry, a pointer is nil.
func change(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.Zero(v.Type()))
	case reflect.Slice:
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.Set(reflect.Append(v, e))
	case reflect.Map:
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.SetMapIndex(reflect.ValueOf("k2"), e)
	case reflect.Interface:
		v.Set(reflect.ValueOf("${OTHER}"))
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	default:
		panic("change: a declaration field of kind " + v.Kind().String() + ": teach fill and change about it")
	}
}

// field is one field a declaration holds, reached from a Decl by index: into a struct, the
// element of a pointer, and the first element of a slice of structs.
type field struct {
	name  string
	index [][]int // each step's field index; -1 a pointer's element or a slice's first element
}

// fields lists every leaf field of t (a string, number, flag, a slice or map of those),
// descending into structs, pointers to structs and slices of structs.
func fields(t reflect.Type, prefix string, path [][]int) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue // not in the declaration as written (what the host derives), so not digested
		}
		name := f.Name
		if !f.Anonymous {
			name = prefix + f.Name
		} else {
			name = prefix
		}
		p := append(append([][]int(nil), path...), []int{i})
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct && ft.String() != "time.Time":
			sub := name
			if !f.Anonymous {
				sub += "."
			}
			out = append(out, fields(ft, sub, p)...)
		case (ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice) && ft.Elem().Kind() == reflect.Struct:
			out = append(out, field{name, p}) // the pointer or slice itself: nil against set
			sub := name + "."
			if ft.Kind() == reflect.Slice {
				sub = name + "[0]."
			}
			out = append(out, fields(ft.Elem(), sub, append(p, []int{-1}))...)
		default:
			out = append(out, field{name, p})
		}
	}
	return out
}

// at returns the field of d that f names.
func (f field) at(d reflect.Value) reflect.Value {
	v := d
	for _, step := range f.index {
		if step[0] == -1 {
			if v.Kind() == reflect.Slice {
				v = v.Index(0)
			} else {
				v = v.Elem()
			}
			continue
		}
		v = v.Field(step[0])
	}
	return v
}

// Every field of a declaration, however deep (auth's, retry's, a static tool's), is part of
// its digest: changing any one of a fully written declaration changes the digest, and so does
// writing any one into an empty declaration. A field added to decl.Server and left out of the
// digest fails here.
func TestTrustDigestCoversEveryField(t *testing.T) {
	all := fields(reflect.TypeFor[Decl](), "", nil)
	var names []string
	for _, f := range all {
		names = append(names, f.name)
	}
	for _, want := range []string{"Where", "Name", "Command", "Auth.ClientSecret", "Auth.Type", "Retry.Calls", "Tools[0].InputSchema", "StartupTimeout"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Fatalf("the walk misses %s; it found %v", want, names)
		}
	}
	full := func() reflect.Value {
		v := reflect.New(reflect.TypeFor[Decl]()).Elem()
		fill(v)
		return v
	}
	digest := func(v reflect.Value) string { return v.Interface().(Decl).Digest() }
	for _, f := range all {
		t.Run(f.name, func(t *testing.T) {
			// Changed in a declaration that has every field.
			d := full()
			before := digest(d)
			change(f.at(d))
			if digest(d) == before {
				t.Errorf("changing %s keeps the digest", f.name)
			}
			// Written into a declaration that has no other field.
			empty := reflect.New(reflect.TypeFor[Decl]()).Elem()
			zero := digest(empty)
			set(empty, f)
			if digest(empty) == zero {
				t.Errorf("writing %s into an empty declaration keeps the digest", f.name)
			}
		})
	}
}

// set writes f into d, making the pointers and slices on its way.
func set(d reflect.Value, f field) {
	v := d
	for _, step := range f.index {
		if step[0] == -1 {
			if v.Kind() == reflect.Slice {
				if v.Len() == 0 {
					v.Set(reflect.MakeSlice(v.Type(), 1, 1))
				}
				v = v.Index(0)
			} else {
				if v.IsNil() {
					v.Set(reflect.New(v.Type().Elem()))
				}
				v = v.Elem()
			}
			continue
		}
		v = v.Field(step[0])
	}
	fill(v)
}

// The digest is of the declaration as written: a ${VAR} reference, not its value, so a
// rotated secret asks nothing, and no secret is in what trust keeps.
func TestDigestOfReferences(t *testing.T) {
	d := Decl{Name: "api", Server: decl.Server{Type: decl.TypeStreamableHTTP, URL: "https://h/mcp",
		Auth: &decl.Auth{Type: decl.GrantClientCredentials, ClientID: "agentpool", ClientSecret: "${API_SECRET}"}}}
	other := d
	a := *d.Auth
	a.ClientSecret = "${OTHER_SECRET}"
	other.Auth = &a
	if d.Digest() == other.Digest() {
		t.Error("naming another variable for the client secret keeps the digest")
	}
	again := d
	b := *d.Auth
	again.Auth = &b
	if d.Digest() != again.Digest() {
		t.Error("an equal declaration has another digest")
	}
}
