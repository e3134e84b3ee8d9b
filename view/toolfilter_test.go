package view_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
	"github.com/google/go-cmp/cmp"
)

// Options.Tools drops the tools whose final name it refuses: not listed, not routed, not
// callable; a Cache built with CacheOptions.Compile applies it to every view it compiles.
func TestToolsFilter(t *testing.T) {
	r := newRegistry(t)
	register(t, r, newFake("github", ext.OriginRemote, "github__search", "github__delete"), ext.LevelPool, ext.Scope{})
	register(t, r, newFake("skills", ext.OriginLocal, "load_skill"), ext.LevelPool, ext.Scope{})
	keep := func(names ...string) bool { return !slices.Contains(names, "github__delete") }
	ctx := context.Background()

	v, err := view.Compile(ctx, r, ext.Scope{}, &view.Options{Tools: keep})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"github__search", "load_skill"}, toolNames(v)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if _, err := v.CallTool(ctx, &ext.ToolCall{Name: "github__delete"}); !errors.Is(err, ext.ErrNotFound) {
		t.Errorf("a filtered tool is callable: %v", err)
	}
	if _, ok := v.Tool("github__delete"); ok {
		t.Error("a filtered tool is found by Tool")
	}

	c := view.NewCache(r, &view.CacheOptions{Compile: &view.Options{Tools: keep}})
	cv, err := c.Get(ctx, ext.Scope{SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(toolNames(cv), "github__delete") {
		t.Errorf("the cache's view lists %v", toolNames(cv))
	}
	unfiltered := compile(t, r, ext.Scope{})
	if !slices.Contains(toolNames(unfiltered), "github__delete") {
		t.Errorf("without a filter the view lists %v", toolNames(unfiltered))
	}
}
