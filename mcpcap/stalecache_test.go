package mcpcap

import (
	"context"
	"sync"
	"testing"

	"github.com/agentpool/agentpool/connpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A list_changed that arrives while a listing is in flight must not be lost: the listing
// answered before the change may be returned to its caller, but not cached, so the next
// access (the one the change event prompts) lists again.
func TestListChangedDuringListingIsNotLost(t *testing.T) {
	for _, tc := range []struct {
		method string
		kind   connpool.NotificationKind
		list   func(context.Context, *Cap) (string, error)
	}{
		{"resources/list", connpool.ResourcesListChanged, func(ctx context.Context, c *Cap) (string, error) {
			rs, err := c.ListResources(ctx)
			if err != nil || len(rs) != 1 {
				return "", err
			}
			return rs[0].Name, nil
		}},
		{"resources/list", connpool.ResourcesListChanged, func(ctx context.Context, c *Cap) (string, error) {
			ss, err := c.ListSkills(ctx)
			if err != nil || len(ss) != 1 {
				return "", err
			}
			return ss[0].Name, nil
		}},
		{"prompts/list", connpool.PromptsListChanged, func(ctx context.Context, c *Cap) (string, error) {
			cs, err := c.ListCommands(ctx)
			if err != nil || len(cs) != 1 {
				return "", err
			}
			return cs[0].Name, nil
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			var mu sync.Mutex
			calls := 0
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
				Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}, Prompts: &mcp.PromptCapabilities{}},
			})
			s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method != tc.method {
						return next(ctx, method, req)
					}
					mu.Lock()
					calls++
					first := calls == 1
					mu.Unlock()
					name := "new"
					if first {
						close(entered)
						<-release
						name = "old"
					}
					if method == "prompts/list" {
						return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: name}}}, nil
					}
					return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "skill://" + name + "/SKILL.md", Name: name}}}, nil
				}
			})
			c, _ := inMemCap(t, s, Config{Name: "s"})
			ctx := context.Background()
			if err := c.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := tc.list(ctx, c); done <- err }()
			<-entered
			c.HandleNotification(connpool.Notification{Kind: tc.kind}) // the server changed its list
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			got, err := tc.list(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if want := "new"; got != want && got != "s:"+want {
				t.Fatalf("listing after list_changed = %q, want %q (the stale listing was cached)", got, want)
			}
		})
	}
}
