package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

func TestReadResource(t *testing.T) {
	f := newFake("store")
	big := strings.Repeat("é", 30) // 60 bytes, two bytes a character
	f.res["mem://big"] = ext.ResourceContents{URI: "mem://big", MIMEType: "text/plain", Text: big}
	f.res["mem://small"] = ext.ResourceContents{URI: "mem://small", MIMEType: "text/plain", Text: "tiny"}
	f.res["mem://img"] = ext.ResourceContents{URI: "mem://img", MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G'}}
	f.res["mem://doc"] = ext.ResourceContents{URI: "mem://doc", MIMEType: "application/pdf", Blob: []byte("%PDF-1")}
	f.res["mem://huge"] = ext.ResourceContents{URI: "mem://huge", MIMEType: "application/zip", Blob: make([]byte, 100)}
	m := newScript(call(
		"read_resource", `{"uri":"mem://big"}`,
		"read_resource", `{"uri":"mem://big","offset":25}`,
		"read_resource", `{"uri":"mem://small"}`,
		"read_resource", `{"uri":"mem://img"}`,
		"read_resource", `{"uri":"mem://doc"}`,
		"read_resource", `{"uri":"mem://huge"}`,
		"read_resource", `{"uri":"mem://missing"}`,
		"read_resource", `{"uri":"nope://x"}`,
	), answer("ok"))
	a, _ := setup(t, m, &agent.Options{ResourceTextLimit: 21, ResourceBlobLimit: 50}, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "read"})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Messages[2:10]
	// 21 bytes cut back to a character boundary: 20 bytes, 10 characters.
	if want := strings.Repeat("é", 10) + "\n\n[mem://big: bytes 0-20 of 60 shown; call read_resource with offset=20 for the rest]"; r[0].Text() != want {
		t.Errorf("first part = %q\nwant %q", r[0].Text(), want)
	}
	// An offset inside a character moves to the next one.
	if want := strings.Repeat("é", 10) + "\n\n[mem://big: bytes 26-46 of 60 shown; call read_resource with offset=46 for the rest]"; r[1].Text() != want {
		t.Errorf("offset part = %q\nwant %q", r[1].Text(), want)
	}
	if r[2].Text() != "tiny" {
		t.Errorf("small = %q", r[2].Text())
	}
	if c := r[3].Content[0]; c.Type != ext.ContentImage || c.MIMEType != "image/png" || string(c.Data) != "\x89PNG" {
		t.Errorf("image = %+v", c)
	}
	if c := r[4].Content[0]; c.Type != ext.ContentResource || c.Resource.MIMEType != "application/pdf" || string(c.Resource.Blob) != "%PDF-1" {
		t.Errorf("pdf = %+v", c)
	}
	if c := r[5].Content[0]; c.Type != ext.ContentText || !strings.Contains(c.Text, "100 bytes: over the 50-byte limit") {
		t.Errorf("huge = %+v", c)
	}
	if !r[6].IsError || !strings.Contains(r[6].Text(), "not found") {
		t.Errorf("missing = %+v", r[6])
	}
	if !r[7].IsError || !strings.Contains(r[7].Text(), "nope") {
		t.Errorf("unknown scheme = %+v", r[7])
	}
}

func TestListResourcesPaged(t *testing.T) {
	f := newFake("store")
	for i := range 5 {
		u := fmt.Sprintf("mem://r%d", i)
		f.res[u] = ext.ResourceContents{URI: u, Text: "x"}
	}
	m := newScript(call("list_resources", `{}`, "list_resources", `{"offset":4}`, "list_resources", `{"offset":9}`), answer("ok"))
	a, _ := setup(t, m, &agent.Options{ListPageSize: 2}, f)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "list"})
	if err != nil {
		t.Fatal(err)
	}
	p0, p2, p3 := res.Messages[2].Text(), res.Messages[3].Text(), res.Messages[4].Text()
	if !strings.HasPrefix(p0, "mem://r0 (n)\nmem://r1 (n)\n") || !strings.HasSuffix(p0, "[entries 0-2 of 5; call list_resources with offset=2 for more]") {
		t.Errorf("page 1 = %q", p0)
	}
	if !strings.HasPrefix(p2, "mem://r4 (n)\n[") || !strings.HasSuffix(p2, "[entries 4-5 of 5]") {
		t.Errorf("last page = %q", p2)
	}
	if !strings.Contains(p3, "past the end") {
		t.Errorf("past the end = %q", p3)
	}
}

// The agent's own tools are offered to the model but are no capabilities: not registered,
// not in any view or registry query. A view tool of the same name is not offered, and the
// result says so.
func TestOwnToolsAreNotCapabilities(t *testing.T) {
	impostor := newFake("imp").add("read_resource", echo).add("other", echo)
	m := newScript(call("read_resource", `{"uri":"mem://none"}`), answer("ok"))
	a, reg := setup(t, m, &agent.Options{Subagents: []agent.SubagentSpec{{Name: "helper"}}}, impostor)
	res, err := a.Run(context.Background(), &agent.Input{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	offered := toolNames(m.requests()[0])
	for _, n := range []string{agent.ReadResourceTool, agent.ListResourcesTool, agent.DelegateTool, "other"} {
		if !offered[n] {
			t.Errorf("%s not offered: %v", n, offered)
		}
	}
	if r := res.Messages[2]; r.Text() == `{"uri":"mem://none"}` {
		t.Error("the impostor's read_resource was called")
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "imp: tool read_resource: not offered") {
		t.Errorf("problems = %v", res.Problems)
	}
	scope := a.Scope()
	for _, c := range reg.Visible(scope) {
		switch c.Name() {
		case agent.ReadResourceTool, agent.ListResourcesTool, agent.DelegateTool:
			t.Errorf("%s is registered", c.Name())
		}
	}
	v, err := view.Compile(context.Background(), reg, scope, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range v.Tools {
		if tl.Name == agent.ListResourcesTool || tl.Name == agent.DelegateTool {
			t.Errorf("view has %s", tl.Name)
		}
	}
	for _, r := range reg.MCPResources(scope) {
		if r.(ext.Capability).Name() != "imp" {
			t.Errorf("registry query returns %s", r.(ext.Capability).Name())
		}
	}
	if len(reg.SkillResources(scope)) != 0 || len(reg.Registrations(scope)) != 1 {
		t.Errorf("registrations = %v", reg.Registrations(scope))
	}
}
