package mcpcap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/ext/exttest"
	"github.com/agentpool/agentpool/internal/testserver"
)

// noLeases is exttest's Released check for a pooled Cap: once closed, it holds no lease.
func noLeases(p *connpool.Pool) func(ext.Capability) error {
	return func(ext.Capability) error {
		if n := p.Stats().Leases; n != 0 {
			return fmt.Errorf("%d pool leases outstanding", n)
		}
		return nil
	}
}

func TestCapConformance(t *testing.T) {
	t.Run("InMemory", func(t *testing.T) {
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			c, _ := inMemCap(t, richServer(t), Config{Name: "rich"})
			return c
		}, &exttest.Options{
			Tool:        &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
			Command:     &ext.CommandRequest{Name: "rich:greet", Args: []string{"ann"}},
			SkillURI:    "skill://remote-pdf/SKILL.md",
			ResourceURI: "test://static/hello",
			Complete:    &ext.CompleteRequest{Ref: ext.CompleteRef{Type: "ref/prompt", Name: "rich:greet"}, Argument: ext.CompleteArgument{Name: "name", Value: "a"}},
		})
	})

	bin := testserver.Build(t)
	server := connpool.ServerConfig{Command: bin, Args: []string{"--skills"}}
	t.Run("PooledStdio", func(t *testing.T) {
		p := newPool(t)
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			return newPoolCap(t, p, "", Config{Name: "fault", Server: server})
		}, &exttest.Options{
			Tool:        &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
			Command:     &ext.CommandRequest{Name: "fault:greet", Args: []string{"ann"}},
			SkillURI:    "skill://pdf/SKILL.md",
			ResourceURI: "test://static/hello",
			Released:    noLeases(p),
		})
	})
	t.Run("LazyStaticTools", func(t *testing.T) {
		p := newPool(t)
		static := []ext.ToolEntry{{Name: "echo", Description: "static echo", Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}}
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			return newPoolCap(t, p, "", Config{Name: "fault", Server: server, Lazy: true, Tools: static})
		}, &exttest.Options{
			Tool:     &ext.ToolCall{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
			Released: noLeases(p),
		})
	})
	t.Run("PooledHTTPToolsOnly", func(t *testing.T) {
		url := echoHTTPServer(t) // closed after the pool, which holds a connection to it
		p := newPool(t)
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			return newPoolCap(t, p, "", Config{Name: "echo", Server: connpool.ServerConfig{URL: url}})
		}, &exttest.Options{
			Tool:     &ext.ToolCall{Name: "echo"},
			Released: noLeases(p),
		})
	})
	t.Run("Unreachable", func(t *testing.T) {
		p := newPool(t)
		exttest.TestCapability(t, func(t *testing.T) ext.Capability {
			return newPoolCap(t, p, "", Config{Name: "gone", Server: connpool.ServerConfig{Command: bin, Args: []string{"--exit-at-start", "3"}},
				Retry: Retry{Attempts: 1, Backoff: time.Millisecond}})
		}, &exttest.Options{Offline: true, Released: noLeases(p)})
	})
}

// A Close that finds another at work returns once the Cap is closed (its lease given back) or
// its own context ends, then with that context's error; never before.
func TestCloseWaitsForTheCloseAtWork(t *testing.T) {
	bin := testserver.Build(t)
	p := newPool(t)
	c := newPoolCap(t, p, "", Config{Name: "fault", Server: connpool.ServerConfig{Command: bin}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	entered, proceed := make(chan struct{}), make(chan struct{})
	testHookClosing = func(hc *Cap) {
		if hc == c {
			close(entered)
			<-proceed
		}
	}
	defer func() { testHookClosing = nil }()
	first := make(chan error, 1)
	go func() { first <- c.Close(ctx) }()
	<-entered

	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if err := c.Close(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close while another Close is at work = %v with %d leases held, want the context's error", err, p.Stats().Leases)
	}
	close(proceed)
	if err := <-first; err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close after the first finished: %v", err)
	}
	if n := p.Stats().Leases; n != 0 {
		t.Fatalf("%d leases after Close", n)
	}
}
