package wire

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzDecode: Decode never panics, agrees with the go-sdk on every single JSON value, and
// DecodeBatch agrees with Decode on each element of a batch.
func FuzzDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON %q", data)
		}
		if json.Valid(data) && !IsBatch(data) {
			checkAgainstSDK(t, data)
		}
		msgs, batch, berr := DecodeBatch(data)
		if !batch && (berr == nil) != (err == nil) {
			t.Fatalf("%q: DecodeBatch %v, Decode %v", data, berr, err)
		}
		if !batch && err == nil && (len(msgs) != 1 || msgs[0].Method != m.Method || string(msgs[0].ID) != string(m.ID)) {
			t.Fatalf("%q: DecodeBatch %+v, Decode %+v", data, msgs, m)
		}
		// BatchLen counts what DecodeBatch decodes, and -1 exactly for what is no JSON array.
		if n := BatchLen(data); batch && berr == nil && n != len(msgs) {
			t.Fatalf("%q: BatchLen %d, DecodeBatch %d messages", data, n, len(msgs))
		} else if (n < 0) != (!IsBatch(data) || !json.Valid(data) || checkDepth(data) != nil) {
			t.Fatalf("%q: BatchLen %d", data, n)
		}
	})
}

// FuzzCutResult: whenever CutResult reads a response, Decode reads the same one (unless it is
// nested too deep for Decode).
func FuzzCutResult(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"p-1","result":{"content":[]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"p-12","result":"x"}  `))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"p-1","result":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, res, ok := CutResult(data, "p-")
		if !ok {
			return
		}
		m, err := Decode(data)
		if checkDepth(data) != nil {
			return // nested deeper than Decode reads
		}
		if err != nil || !m.IsResponse() || m.SDKID().Raw() != "p-"+strconv.FormatUint(n, 10) || string(m.Result) != string(res) || m.Error != nil {
			t.Fatalf("%q: CutResult %d %s; Decode %+v, %v", data, n, res, m, err)
		}
	})
}

// FuzzDecodeCallParams: DecodeCallParams reads every JSON value as json.Unmarshal does.
func FuzzDecodeCallParams(f *testing.F) {
	for _, c := range callParamsCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || checkDepth(data) != nil {
			return // a Message's params are valid JSON
		}
		checkCallParams(t, data)
	})
}
