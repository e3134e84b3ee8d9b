package mcpconv

import (
	"runtime"
	"testing"
	"unique"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Items with the same wire form are one item, however many sessions hold it; one no session
// holds any more is forgotten.
func TestSharedOneItemPerWireForm(t *testing.T) {
	var forms Shared[mcp.Tool]
	fp := unique.Make(`{"name":"echo"}`)
	first := &mcp.Tool{Name: "echo"}
	if got := forms.Share(fp, first); got != first {
		t.Fatalf("first Share = %p, want the item given %p", got, first)
	}
	if got := forms.Share(fp, &mcp.Tool{Name: "echo"}); got != first {
		t.Errorf("second Share of the same form = %p, want the first item %p", got, first)
	}
	other := &mcp.Tool{Name: "other"}
	if got := forms.Share(unique.Make(`{"name":"other"}`), other); got != other {
		t.Errorf("Share of another form = %p, want its own item %p", got, other)
	}
	runtime.KeepAlive(first)
	runtime.KeepAlive(other)
	first, other = nil, nil
	testwait.For(t, "forms no session holds forgotten", func() bool {
		runtime.GC()
		return forms.Len() == 0
	})
}
