package gateway

import (
	"encoding/json"
	"fmt"
	"github.com/agentpool/agentpool/gateway/internal/mcpconv"
	"unique"

	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skillFiles is the resource template through which every file of a listed skill can be
// read (the view lists each skill's SKILL.md only; its other files are reached by URI, as
// SEP-2640 expects clients to follow a SKILL.md's relative links).
var skillFiles = &mcp.ResourceTemplate{
	URITemplate: "skill://{+path}",
	Name:        "skill-files",
	Description: "Any file of a listed skill, as skill://<skill>/<path> (relative links in a SKILL.md resolve to these).",
}

// apply makes the server hold v: it removes what v no longer has and adds what is new or
// changed, comparing each item's wire form with what the server holds. Unchanged items are
// left alone, and once all is done one list_changed of each kind it touched is sent
// (listchanged.go; templates count as resources), none for kinds it did not touch. A nil v
// applies the current view again (the session's listed tools changed).
func (s *session) apply(v *view.View) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if v == nil {
		v = s.view.Load()
	}
	s.view.Store(v) // first: a tool added below must route through the view that has it
	// The server keeps the handlers given: one of each for every item, not one per item.
	call, read := s.callTool, s.readResource

	listed := s.exp.Tools(v)
	tools := make(map[string]*mcp.Tool, len(listed))
	for i := range listed {
		t := mcpconv.Tool(&listed[i])
		tools[t.Name] = t
	}
	var changedTools, changedPrompts, changedResources, changedTemplates bool
	s.held.tools, changedTools = reconcile(s, "tool", s.held.tools, tools, &toolForms, s.server.RemoveTools, func(t *mcp.Tool) {
		s.server.AddTool(t, call)
	})

	prompts := make(map[string]*mcp.Prompt, len(v.Commands))
	for i := range v.Commands {
		p := mcpconv.Prompt(&v.Commands[i])
		prompts[p.Name] = p
	}
	s.held.prompts, changedPrompts = reconcile(s, "prompt", s.held.prompts, prompts, &promptForms, s.server.RemovePrompts, func(p *mcp.Prompt) {
		s.server.AddPrompt(p, s.getPrompt)
	})

	resources := make(map[string]*mcp.Resource, len(v.Resources))
	for i := range v.Resources {
		r := mcpconv.Resource(&v.Resources[i])
		resources[r.URI] = r
	}
	s.held.resources, changedResources = reconcile(s, "resource", s.held.resources, resources, &resourceForms, s.server.RemoveResources, func(r *mcp.Resource) {
		s.server.AddResource(r, read)
	})

	templates := make(map[string]*mcp.ResourceTemplate, len(v.Templates)+1)
	for i := range v.Templates {
		t := mcpconv.Template(&v.Templates[i])
		templates[t.URITemplate] = t
	}
	if _, taken := templates[skillFiles.URITemplate]; len(v.Skills) > 0 && !taken {
		templates[skillFiles.URITemplate] = skillFiles
	}
	s.held.templates, changedTemplates = reconcile(s, "resource template", s.held.templates, templates, &templateForms, s.server.RemoveResourceTemplates, func(t *mcp.ResourceTemplate) {
		s.server.AddResourceTemplate(t, read)
	})
	var notify []string
	if changedTools {
		notify = append(notify, toolsListChanged)
	}
	if changedPrompts {
		notify = append(notify, promptsListChanged)
	}
	if changedResources || changedTemplates {
		notify = append(notify, resourcesListChanged)
	}
	s.sendListChanged(notify...)
}

// reconcile brings one kind of the server from held to want: one remove call for everything gone,
// one add for each item new or changed. It returns what the server holds afterwards and
// whether it changed anything. An item
// the go-sdk refuses (it panics on an input schema that is not an object, an invalid URI or
// template) is logged and left out; it is tried again only when it changes.
//
// The fingerprints are interned (unique.Make), and so are the items added (forms) and the
// sets of fingerprints held (heldSets): sessions that hold the same items share one copy of
// each wire form, of each item and of the set, so an idle session costs its server's index,
// not its whole view.
func reconcile[T any](s *session, kind string, was *mcpconv.Set, want map[string]*T, forms *mcpconv.Shared[T], remove func(...string), add func(*T)) (*mcpconv.Set, bool) {
	var held mcpconv.Set
	if was != nil {
		held = *was
	}
	next := make(mcpconv.Set, len(want))
	changed := false
	var gone []string
	for k := range held {
		if _, ok := want[k]; !ok {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		changed = true
		remove(gone...)
		if testHookChange != nil {
			testHookChange()
		}
	}
	for k, item := range want {
		b, err := json.Marshal(item)
		if err != nil {
			s.g.log.Warn("not served", "session", s.id, kind, k, "err", err)
			continue
		}
		fp := unique.Make(string(b))
		next[k] = fp
		if old, ok := held[k]; ok && old == fp {
			continue
		}
		changed = true
		item = forms.Share(fp, item)
		err = guard(func() { add(item) })
		if testHookChange != nil {
			testHookChange()
		}
		if err != nil {
			s.g.log.Warn("not served", "session", s.id, kind, k, "err", err)
			remove(k) // a changed item that is now refused must not stay as it was
		}
	}
	return heldSets.Share(next), changed
}

// The items sessions hold, shared (reconcile).
var (
	toolForms     mcpconv.Shared[mcp.Tool]
	promptForms   mcpconv.Shared[mcp.Prompt]
	resourceForms mcpconv.Shared[mcp.Resource]
	templateForms mcpconv.Shared[mcp.ResourceTemplate]
	heldSets      mcpconv.Sets
)

// testHookChange, when set by a test, runs after each add or remove of an apply.
var testHookChange func()

// guard runs f, turning a panic into an error.
func guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}
