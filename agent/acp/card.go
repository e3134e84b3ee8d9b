package acp

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
)

// toolDef is the tool e calls, as the agent offered it: the agent's own tools by their
// origin, the others from the view of the calling agent's scope; a tool the view no longer
// has is known by its name and origin only.
func (s *session) toolDef(e agent.Event) agent.ToolDef {
	def := agent.ToolDef{Name: e.Call.Name, Origin: e.Origin}
	if isAgentOwn(e.Origin) {
		return def
	}
	scope := ext.Scope{SessionID: s.id, AgentName: e.Agent}
	if v, err := s.c.srv.cache.Get(context.Background(), scope); err == nil {
		if t, ok := v.Tool(e.Call.Name); ok {
			def = agent.ToolDefOf(t)
			if def.Annotations == nil && t.Entry.Title != "" {
				def.Annotations = &ext.ToolAnnotations{}
			}
			if t.Entry.Title != "" {
				a := *def.Annotations
				a.Title = t.Entry.Title // the tool's own title wins over the annotations'
				def.Annotations = &a
			}
		}
	}
	return def
}

func isAgentOwn(o ext.Origin) bool { return o.Kind == ext.OriginLocal && o.Location == "agent" }

// toolTitle is the title an editor shows for a call of t: the tool's title, else its name
// made readable: the server's prefix moved after it, underscores as spaces ("ed__run_cmd"
// from server ed is "run cmd (ed)").
func toolTitle(t agent.ToolDef) string {
	if a := t.Annotations; a != nil && strings.TrimSpace(a.Title) != "" {
		return strings.TrimSpace(a.Title)
	}
	name, server := t.Name, ""
	if srv, ok := strings.CutPrefix(t.Origin.Location, "mcp://"); ok {
		if bare, ok := strings.CutPrefix(name, srv+"__"); ok && bare != "" {
			name, server = bare, srv
		}
	}
	name = strings.TrimSpace(strings.ReplaceAll(name, "_", " "))
	if server != "" {
		return name + " (" + server + ")"
	}
	return name
}

// kindWords are the words of a tool's name that give its ACP kind, in the order they are
// looked for.
var kindWords = []struct {
	kind  sdk.ToolKind
	words []string
}{
	{sdk.ToolKindDelete, []string{"delete", "remove", "rm", "unlink", "destroy", "drop"}},
	{sdk.ToolKindExecute, []string{"exec", "execute", "run", "shell", "bash", "command", "terminal", "spawn", "eval"}},
	{sdk.ToolKindMove, []string{"move", "rename", "mv"}},
	{sdk.ToolKindEdit, []string{"write", "edit", "create", "update", "patch", "replace", "insert", "save", "append", "mkdir", "set"}},
	{sdk.ToolKindFetch, []string{"fetch", "http", "download", "url", "browse", "navigate", "curl", "web"}},
	{sdk.ToolKindSearch, []string{"search", "find", "grep", "query", "lookup"}},
	{sdk.ToolKindRead, []string{"read", "get", "list", "cat", "view", "show", "open", "stat", "tree", "ls"}},
}

// toolKind is the ACP kind of t, for the editor's icon: a read-only tool is read, or search
// or fetch when its name says so; any other is what its name's words say first (delete,
// execute, move, edit, fetch, search, read), else other. The agent's resource tools are read,
// update_plan is think.
func toolKind(t agent.ToolDef) sdk.ToolKind {
	if isAgentOwn(t.Origin) {
		switch t.Name {
		case "read_resource", "list_resources":
			return sdk.ToolKindRead
		case planTool:
			return sdk.ToolKindThink
		}
		return sdk.ToolKindOther
	}
	name := t.Name
	if srv, ok := strings.CutPrefix(t.Origin.Location, "mcp://"); ok {
		name = strings.TrimPrefix(name, srv+"__")
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		words[w] = true
	}
	found := sdk.ToolKindOther
	for _, kw := range kindWords {
		for _, w := range kw.words {
			if words[w] {
				found = kw.kind
				break
			}
		}
		if found != sdk.ToolKindOther {
			break
		}
	}
	if readOnly(t) {
		switch found {
		case sdk.ToolKindSearch, sdk.ToolKindFetch:
			return found
		}
		return sdk.ToolKindRead
	}
	return found
}

// planTool is the name of the tool that states the model's plan.
const planTool = "update_plan"

// locations are the files a call's arguments name: the values of its top-level keys whose
// name holds "path", "file" or "uri" that are absolute paths or file:// URIs (a string or a
// list of them).
func locations(args json.RawMessage) []sdk.ToolCallLocation {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var out []sdk.ToolCallLocation
	add := func(v any) {
		p, ok := v.(string)
		if !ok {
			return
		}
		if u, err := url.Parse(p); err == nil && u.Scheme == "file" && u.Path != "" {
			p = u.Path
		}
		if filepath.IsAbs(p) {
			out = append(out, sdk.ToolCallLocation{Path: p})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		lk := strings.ToLower(k)
		if !strings.Contains(lk, "path") && !strings.Contains(lk, "file") && !strings.Contains(lk, "uri") {
			continue
		}
		if list, ok := m[k].([]any); ok {
			for _, v := range list {
				add(v)
			}
			continue
		}
		add(m[k])
	}
	return out
}
