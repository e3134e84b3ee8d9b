package mcpcap

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// slowManifest is a manifest whose first read waits for release.
type slowManifest struct {
	tools            []ext.ToolEntry
	entered, release chan struct{}
	reads            atomic.Int32
}

func (m *slowManifest) Tools() ([]ext.ToolEntry, time.Time, bool) {
	if m.reads.Add(1) == 1 {
		close(m.entered)
		<-m.release
	}
	return m.tools, time.Unix(1, 0), true
}
func (m *slowManifest) ListedTools([]ext.ToolEntry)                 {}
func (m *slowManifest) ListedPrompts([]ext.CommandEntry)            {}
func (m *slowManifest) ListedTemplates([]ext.ResourceTemplateEntry) {}

// Listings of a dormant Lazy Cap made while its manifest is being read wait for that read and
// serve the cached tools: none of them starts the server.
func TestConcurrentFirstListingsServeTheCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		var dials atomic.Int32
		gate := make(chan struct{})
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return nil, errors.New("refused")
		}
		quiet := slog.New(slog.DiscardHandler)
		p := connpool.New(&connpool.Options{DialContext: dial, IdleTimeout: -1, Logger: quiet})
		defer p.Close(ctx)
		m := &slowManifest{tools: []ext.ToolEntry{{Name: "cached"}}, entered: make(chan struct{}), release: make(chan struct{})}
		c, err := New(Config{Name: "lazy", Lazy: true, Server: connpool.ServerConfig{Server: decl.Server{URL: "http://lazy.test/mcp"}},
			Retry: decl.Retry{Attempts: 1, Backoff: time.Second}}, WithPool(p, ""), WithLogger(quiet), WithManifests(m))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		results := make(chan []string, 2)
		list := func() {
			tools, err := c.Tools(ctx)
			if err != nil {
				results <- []string{err.Error()}
				return
			}
			results <- toolNames(tools)
		}
		go list()
		<-m.entered
		go list()
		synctest.Wait()
		if n := dials.Load(); n != 0 {
			t.Errorf("a listing made while the manifest was read started the server (%d dials)", n)
		}
		close(m.release)
		close(gate)
		for range 2 {
			if got := <-results; !slices.Equal(got, []string{"cached"}) {
				t.Errorf("tools = %v, want the cached ones", got)
			}
		}
	})
}
