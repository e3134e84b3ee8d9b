package stdioframe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// goSDKLines are messages as the go-sdk writes them, and some it never writes.
var goSDKLines = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":-7,"result":{"content":[{"type":"text","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":{}}`,
	`{"jsonrpc":"2.0","id":"a\"b","result":{}}`,
	`{"jsonrpc":"2.0","id":"\u003c","result":{}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":null}`,
	`{"jsonrpc":"2.0","id":1.5,"result":1}`,
	`{"jsonrpc":"2.0","id":"x","method":"sampling/createMessage","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":2}`,
	`{"id":2,"jsonrpc":"2.0","result":{}}`,
	`not json`,
}

// responseID names the response id Decode reads, for every line the go-sdk writes.
func TestResponseIDAgreesWithDecode(t *testing.T) {
	for _, line := range goSDKLines {
		id, ok := responseID([]byte(line))
		m, err := wire.Decode([]byte(line))
		wantOK := err == nil && m.IsResponse()
		if ok != wantOK {
			t.Errorf("%s: response %v, want %v", line, ok, wantOK)
			continue
		}
		if ok && id != m.SDKID() {
			t.Errorf("%s: id %v, want %v", line, id, m.SDKID())
		}
	}
}

// decodeID is the reading of a response id that responseID replaces.
func decodeID(msg []byte) (jsonrpc.ID, bool) {
	m, err := wire.Decode(msg)
	if err != nil || !m.IsResponse() {
		return jsonrpc.ID{}, false
	}
	return m.SDKID(), true
}

func BenchmarkResponseID(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("lorem ipsum ", 10<<10)) // a 120 KB tool result
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`)
	for _, c := range []struct {
		name string
		read func([]byte) (jsonrpc.ID, bool)
	}{{"decode", decodeID}, {"scan", responseID}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if _, ok := c.read(msg); !ok {
					b.Fatal("not a response")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/msg")
		})
	}
}

// FuzzResponseID: for every message wire.Decode reads, responseID names the same response id
// (a message it cannot read, which the go-sdk never writes, may be read by either).
func FuzzResponseID(f *testing.F) {
	for _, line := range goSDKLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		want, wantOK := decodeID(msg)
		if _, err := wire.Decode(msg); err != nil {
			return
		}
		if id, ok := responseID(msg); ok != wantOK || id != want {
			t.Errorf("%q: responseID %v %v, Decode %v %v", msg, id, ok, want, wantOK)
		}
	})
}
