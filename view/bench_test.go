package view_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/view"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchScope builds a registry in which a session sees 10 MCP servers of 20 tools each (go-sdk
// servers over in-memory transports, through mcpcap) and a skill manager with 100 skills.
func benchScope(b *testing.B) (*ext.Registry, ext.Scope) {
	b.Helper()
	ctx := context.Background()
	r := ext.NewRegistry(nil)
	b.Cleanup(func() { _ = r.Close(ctx) })
	for s := range 10 {
		srv := mcp.NewServer(&mcp.Implementation{Name: fmt.Sprintf("srv%d", s), Version: "1"}, nil)
		for i := range 20 {
			mcp.AddTool(srv, &mcp.Tool{Name: fmt.Sprintf("tool%02d", i), Description: "A benchmark tool."},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{}, nil, nil
				})
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
		name := fmt.Sprintf("srv%d", s)
		prefix := name + ext.ToolSep
		c, err := mcpcap.New(mcpcap.Config{Name: name, Prefix: &prefix}, mcpcap.WithClient(cs))
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Register(c, ext.LevelPool, ext.Scope{}); err != nil {
			b.Fatal(err)
		}
	}
	root := b.TempDir()
	for i := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("skill-%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: skill-%03d\ndescription: Benchmark skill number %d.\n---\nBody.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	m, err := skill.NewManager(&skill.Options{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Register(m, ext.LevelPool, ext.Scope{}); err != nil {
		b.Fatal(err)
	}
	scope := ext.Scope{SessionID: "bench"}
	v, err := view.Compile(ctx, r, scope, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(v.Tools) != 201 || len(v.Skills) != 100 || len(v.Problems) != 0 {
		b.Fatalf("scope sees %d tools, %d skills, problems %v; want 201 (200 + load_skill), 100, none", len(v.Tools), len(v.Skills), v.Problems)
	}
	return r, scope
}

// BenchmarkCompile measures a cached Get of a scope seeing 200 tools from 10 servers and 100
// skills, and, in the same run, the uncached Compile of the same scope as the baseline. It
// reports uncached-ns/op and the ratio uncached/cached (target: cached ≤ 5 µs and ≥ 100×).
func BenchmarkCompile(b *testing.B) {
	r, scope := benchScope(b)
	ctx := context.Background()

	const baselineRuns = 200
	start := time.Now()
	for range baselineRuns {
		if _, err := view.Compile(ctx, r, scope, nil); err != nil {
			b.Fatal(err)
		}
	}
	uncached := float64(time.Since(start).Nanoseconds()) / baselineRuns

	cache := view.NewCache(r, nil)
	if _, err := cache.Get(ctx, scope); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cache.Get(ctx, scope); err != nil {
			b.Fatal(err)
		}
	}
	cached := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(uncached, "uncached-ns/op")
	b.ReportMetric(uncached/cached, "speedup")
}
