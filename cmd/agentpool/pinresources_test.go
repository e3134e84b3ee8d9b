package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (c *pinClient) read(uri string) (string, error) {
	res, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

// Under block, a URI that only a new resource template matches cannot be read, by its own URI
// or as mcp://<server>/<uri>, and the error names `agentpool pins approve`; a URI of a pinned
// template reads; after the approval the URI reads.
func TestServePinsBlockTemplateRead(t *testing.T) {
	t.Parallel()
	r := newPinRig(t, "block")
	c := r.serve(t)
	defer c.close(t)
	if got := c.templates(t); !slices.Contains(got, "mailbox") {
		t.Fatalf("first templates listing: %v", got)
	}
	if got := c.call("mail__drift", map[string]any{"change": "template"}); got != "applied template" {
		t.Fatalf("drift template: %s", got)
	}
	testwait.For(t, "the new template reported", func() bool {
		c.templates(t)
		return strings.Contains(c.stderr.String(), "name=all")
	})
	for _, uri := range []string{"file:///hosts", "mcp://mail/file:///hosts"} {
		got, err := c.read(uri)
		if err == nil || !strings.Contains(err.Error(), "agentpool pins approve mail 'file:///{path}'") {
			t.Errorf("resources/read %s = %q, %v; want an error naming agentpool pins approve mail 'file:///{path}'", uri, got, err)
		}
	}
	if got, err := c.read("mail:///inbox"); err != nil || got != "mail:///inbox" {
		t.Errorf("resources/read of the pinned template's URI = %q, %v", got, err)
	}
	r.run(t, "--config", r.config, "pins", "approve", "mail", "file:///{path}") // templates are pinned by URI template
	testwait.For(t, "the approved template listed", func() bool { return slices.Contains(c.templates(t), "all") })
	if got, err := c.read("file:///hosts"); err != nil || got != "file:///hosts" {
		t.Errorf("resources/read after the approval = %q, %v", got, err)
	}
}
