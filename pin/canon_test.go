package pin

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1, "a":[true,false,null]}`, `{"a":[true,false,null],"b":1}`},
		{`1.0`, `1`},
		{`-0`, `0`},
		{`1e21`, `1e+21`},
		{`1e20`, `100000000000000000000`},
		{`0.000001`, `0.000001`},
		{`1e-7`, `1e-7`},
		{`333333333.33333329`, `333333333.3333333`},
		{`9007199254740993`, `9007199254740992`},
		{`4.50`, `4.5`},
		{`2e-3`, `0.002`},
		{`"<a&b>"`, `"<a&b>"`},
		{`"\u0001\n\u2028\u00e9"`, "\"\\u0001\\n\u2028\u00e9\""},
		{`"\/"`, `"/"`},
		// RFC 8785 §3.2.3: sorted by UTF-16 code units, U+1F600 (D83D DE00) before U+FB33.
		{`{"\ufb33":1,"\ud83d\ude00":2,"a":3}`, "{\"a\":3,\"\U0001F600\":2,\"\uFB33\":1}"},
		{` { "z" : { "y" : 1 , "x" : [ 1 , { "b" : 2 , "a" : 1 } ] } } `, `{"z":{"x":[1,{"a":1,"b":2}],"y":1}}`},
	} {
		got, err := Canonical([]byte(c.in))
		if err != nil {
			t.Errorf("Canonical(%s): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("Canonical(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCanonicalRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1,"a":2}`, `1 2`, `1e400`, `[1,]`} {
		if got, err := Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%q) = %s, want an error", in, got)
		}
	}
}

// FuzzCanonical checks that the canonical form is valid JSON, equal in value to the input,
// and a fixed point.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2}`, `[1.5e300,-0,"x\u0000"]`, `{"type":"object","properties":{"q":{"type":"string"}}}`, `"\ud83d\ude00"`, `1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Canonical(data)
		if err != nil {
			return
		}
		if !json.Valid(c) {
			t.Fatalf("Canonical(%q) = %q: not JSON", data, c)
		}
		again, err := Canonical(c)
		if err != nil || string(again) != string(c) {
			t.Fatalf("Canonical(%q) = %q, then %q (%v): not a fixed point", data, c, again, err)
		}
		var a, b any
		if json.Unmarshal(data, &a) == nil && json.Unmarshal(c, &b) == nil {
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("Canonical(%q) = %q changes the value", data, c)
			}
		}
	})
}
