package acp_test

import (
	"encoding/json"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/acp"
	"github.com/agentpool/agentpool/ext"
)

// A card's title, kind and locations, from the tool's title, annotations, name and arguments.
func TestCard(t *testing.T) {
	yes := true
	ed := ext.RemoteOrigin("ed")
	for _, c := range []struct {
		tool                  agent.ToolDef
		args                  string
		title, kind, location string
	}{
		{agent.ToolDef{Name: "ed__exec", Origin: ed}, `{"cmd":"ls"}`, "exec (ed)", "execute", ""},
		{agent.ToolDef{Name: "ed__run_cmd", Origin: ed}, `{}`, "run cmd (ed)", "execute", ""},
		{agent.ToolDef{Name: "ed__read_file", Origin: ed, Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}, `{"path":"/a/b.go"}`, "read file (ed)", "read", "/a/b.go"},
		{agent.ToolDef{Name: "ed__search_files", Origin: ed, Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}, `{"path":"rel/dir"}`, "search files (ed)", "search", ""},
		{agent.ToolDef{Name: "ed__fetch", Origin: ed, Annotations: &ext.ToolAnnotations{Title: "Fetch URL", ReadOnlyHint: true}}, `{"url":"https://x"}`, "Fetch URL", "fetch", ""},
		{agent.ToolDef{Name: "ed__delete_file", Origin: ed, Annotations: &ext.ToolAnnotations{DestructiveHint: &yes}}, `{"file_uri":"file:///tmp/x"}`, "delete file (ed)", "delete", "/tmp/x"},
		{agent.ToolDef{Name: "ed__move_file", Origin: ed}, `{"source_path":"/a","destination":"/b"}`, "move file (ed)", "move", "/a"},
		{agent.ToolDef{Name: "ed__write_file", Origin: ed}, `{"paths":["/a","b"]}`, "write file (ed)", "edit", "/a"},
		{agent.ToolDef{Name: "ed__echo", Origin: ed, Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}, `{}`, "echo (ed)", "read", ""},
		{agent.ToolDef{Name: "ed__frobnicate", Origin: ed}, `{}`, "frobnicate (ed)", "other", ""},
		{agent.ToolDef{Name: "read_resource", Origin: ext.Origin{Kind: ext.OriginLocal, Location: "agent"}}, `{"uri":"skill://x"}`, "read resource", "read", ""},
	} {
		title, kind, locs := acp.Card(c.tool, json.RawMessage(c.args))
		loc := ""
		if len(locs) > 0 {
			loc = locs[0].Path
		}
		if title != c.title || string(kind) != c.kind || loc != c.location {
			t.Errorf("%s %s: %q, %q, %q; want %q, %q, %q", c.tool.Name, c.args, title, kind, loc, c.title, c.kind, c.location)
		}
	}
}
