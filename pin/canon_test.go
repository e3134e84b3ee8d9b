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

// FuzzCanonicalReference checks the streaming canonicaliser against the first one
// (canonicalRef): on JSON text both succeed or both fail, with the same canonical form.
func FuzzCanonicalReference(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2}`, `[1.5e300,-0,"x\u0000"]`, `{"type":"object","properties":{"q":{"type":"string"}}}`,
		`"\ud83d\ude00"`, `1e-7`, `{"\ufb33":1,"\ud83d\ude00":2,"a":3}`, `{"a\n":1,"a\u0001":2,"a":3}`, `"\ud800x\udc00"`,
		"\"\xff\xfe<>&\"", `{"a":1,"\u0061":2}`, `123456789012345678`, `-0.0`, `[1E5,1e-0,0.1e1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Canonical(data)
		want, refErr := canonicalRef(data)
		if err == nil && (refErr != nil || string(got) != string(want)) {
			t.Fatalf("Canonical(%q) = %q, the reference %q (%v)", data, got, want, refErr)
		}
		if json.Valid(data) && (err != nil) != (refErr != nil) {
			t.Fatalf("Canonical(%q): %v, the reference: %v", data, err, refErr)
		}
	})
}

// FuzzDigestReference checks that a definition's digest and kept schemas are what the first
// canonicaliser made of them, so pin files written with it still match. (The reference read
// a first value followed by text that is not JSON as that value; a listing holds JSON only.)
func FuzzDigestReference(f *testing.F) {
	f.Add("tool", "send", "", "Send an email <to> \"someone\"", []byte(`{"type":"object","properties":{"to":{"type":"string"}}}`), []byte(nil), []byte(`{"readOnlyHint":true,"title":"x"}`))
	f.Add("prompt", "p\xff", "T\u2028", "d\x01\\", []byte(`[{"name":"a","required":true}]`), []byte(`not json <`), []byte(`null`))
	f.Add("template", "", "", "", []byte(`{"uriTemplate":"file:///{path}","mimeType":"text/plain"}`), []byte(` 1.50 `), []byte(`{"b":1e400}`))
	f.Fuzz(func(t *testing.T, kind, name, title, desc string, schema, output, annotations []byte) {
		for _, raw := range [][]byte{schema, output, annotations} {
			if _, err := canonicalRef(raw); err == nil && len(raw) > 0 && !json.Valid(raw) {
				t.Skip("the reference reads the value before trailing text that is not JSON")
			}
		}
		d := Definition{Kind: kind, Name: name, Title: title, Description: desc, Schema: schema, Output: output, Annotations: annotations}
		got, want := d.seal(), sealRef(d)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seal(%+v) = %+v, the reference %+v", d, got, want)
		}
	})
}
