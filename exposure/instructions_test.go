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

// Two visible servers of one name (a pool server and an agent's own): neither's tools are
// indexed with the other's instructions.
func TestSearchKeepsInstructionsToTheirServer(t *testing.T) {
	reg := ext.NewRegistry(nil)
	t.Cleanup(func() { reg.Close(context.Background()) })
	pool := &server{name: "kv", tools: map[string]string{"get": "Read a value by key."}}
	agent := &instructed{server: server{name: "kv", tools: map[string]string{"put": "Write a value under a key."}}, ins: "A Redis cache: store and fetch strings."}
	remote := ext.WithOrigin(ext.Origin{Kind: ext.OriginRemote, Location: "mcp://kv"})
	if err := reg.Register(pool, ext.LevelPool, ext.Scope{}, remote); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(agent, ext.LevelAgent, ext.Scope{AgentName: "a"}, remote); err != nil {
		t.Fatal(err)
	}
	v, err := view.Compile(context.Background(), reg, ext.Scope{AgentName: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.Tool("kv__get"); !ok {
		t.Fatalf("view lists %v, want the pool server's kv__get", names(v.Tools))
	}
	s := exposure.NewSession(exposure.Config{Mode: exposure.ModeSearch}, exposure.NewCatalog(), false)
	f, _ := s.Search(v, exposure.SearchArgs{Query: "redis cache"})
	for _, m := range f.Tools {
		if m.Name == "kv__get" {
			t.Errorf("found %+v: the pool server's kv__get by the agent's server's instructions", f.Tools)
		}
	}
}
