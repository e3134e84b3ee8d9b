package pin

import (
	"encoding/json"
	"reflect"
	"testing"
)

// What scanIndex reads, it reads as encoding/json does.
func FuzzScanIndex(f *testing.F) {
	full, _ := json.Marshal(index{Format: 2, Server: "mail", Origin: "/p", Listed: []string{"prompt", "tool"},
		Pinned: map[string]string{"tool/send": "ab", "prompt/p": "cd"}, Pending: map[string]string{"tool/x": "ef"},
		Removed: []string{"tool/y"}, Raw: map[string]string{"tool/send": "01"}})
	for _, s := range []string{string(full), `{"format":2,"server":"s","origin":"user","pinned":{}}`,
		`{"format":2,"server":"s","pinned":null,"listed":[]}`, `{"format":2,"server":"s","pinned":{"a":"b"},"pinned":{"c":"d"}}`,
		`{"format":02}`, `{"format":2,"server":"t\u00e9"}`, `{}`, `{"Server":"s"}`, `{"format":2} `, `{"format":2,"listed":null,"raw":null}`, `{"format":2,"clean":{"tool":"ab:cd"},"server":"s"}`,
		`{"format":2,"size":1234,"clean":{"tool":"ab:cd"},"server":"s"}`, `{"format":2,"size":01}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := scanIndex(b)
		if !ok {
			return
		}
		var want index
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("scanIndex(%q) = %+v, encoding/json: %v", b, got, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanIndex(%q) = %+v, encoding/json %+v", b, got, want)
		}
	})
}

// An index line as encodeFile writes it is read by the scanner, not encoding/json.
func TestScanIndexReadsWhatIsWritten(t *testing.T) {
	r := &Record{Server: "mail", Origin: "/home/u/p", Listed: []string{KindTool},
		Pinned: map[string]Definition{"tool/send": Tool(tool("send", "Send.", `{}`))}}
	r.Pinned["tool/send"] = func(d Definition) Definition { d.Raw = "00ff"; return d }(r.Pinned["tool/send"])
	data, err := encodeFile(r)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := splitFile(data)
	want := indexOf(r)
	want.Size = len(data)
	x, ok := scanIndex(head)
	if !ok || !reflect.DeepEqual(x, want) {
		t.Errorf("scanIndex(%s) = %+v, %v; want %+v", head, x, ok, want)
	}
}
