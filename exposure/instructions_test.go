package exposure_test

import (
	"context"
	"testing"

	"github.com/agentpool/agentpool/exposure"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// instructed is a server that answered initialize with instructions.
type instructed struct {
	server
	ins string
}

func (s *instructed) Instructions(context.Context) (ext.Instructions, error) {
	return ext.Instructions{Static: s.ins}, nil
}

// A tool whose only match for a request is in its server's instructions is found, and the
// index follows instructions that change while the tools stay the same.
func TestSearchReadsServerInstructions(t *testing.T) {
	kv := &instructed{server: server{name: "kv", tools: map[string]string{"get": "Read a value by key.", "put": "Write a value under a key."}}}
	compileRemote := func() *view.View {
		t.Helper()
		reg := ext.NewRegistry(nil)
		t.Cleanup(func() { reg.Close(context.Background()) })
		for _, c := range []ext.Capability{weather, git, kv} {
			if err := reg.Register(c, ext.LevelPool, ext.Scope{}, ext.WithOrigin(ext.Origin{Kind: ext.OriginRemote, Location: "mcp://" + c.Name()})); err != nil {
				t.Fatal(err)
			}
		}
		v, err := view.Compile(context.Background(), reg, ext.Scope{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cat := exposure.NewCatalog()
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch}, cat, false)
	if f, _ := s.Search(compileRemote(), exposure.SearchArgs{Query: "redis cache"}); len(f.Tools) != 0 {
		t.Errorf("found %+v before the server said it is a cache", f.Tools)
	}
	kv.ins = "A Redis cache: store and fetch strings."
	f, _ := s.Search(compileRemote(), exposure.SearchArgs{Query: "redis cache"})
	if len(f.Tools) == 0 || (f.Tools[0].Name != "kv__get" && f.Tools[0].Name != "kv__put") {
		t.Errorf("search of the server's instructions found %+v, want a kv tool first", f.Tools)
	}
}
