package mcpcap

import (
	"strings"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HandleNotification maps a server notification to change events:
// tools list_changed → tools_changed; resources list_changed → resources_changed (and
// skills_changed when the server serves skills); prompts list_changed → prompts_changed and
// commands_changed; resource updated → resources_changed with SourceURI (and skills_changed
// for a skill file). Pooled connections are wired to it by the Cap; the owner of an injected
// client forwards its ClientOptions handlers here. It never blocks on I/O.
func (c *Cap) HandleNotification(n connpool.Notification) { c.onNotification(n) }

func (c *Cap) onNotification(n connpool.Notification) {
	if c.isClosed() {
		return
	}
	switch n.Kind {
	case connpool.ToolsListChanged:
		c.staleTools.Store(true)
		c.emit(ext.ToolsChanged, "")
	case connpool.ResourcesListChanged:
		c.mu.Lock()
		skills := c.servesSkillsLocked()
		c.resList.drop()
		c.skillList.drop()
		c.mu.Unlock()
		c.emit(ext.ResourcesChanged, "")
		if skills {
			c.emit(ext.SkillsChanged, "")
		}
	case connpool.PromptsListChanged:
		c.mu.Lock()
		c.promptList.drop()
		c.mu.Unlock()
		c.emit(ext.PromptsChanged, "")
		c.emit(ext.CommandsChanged, "")
	case connpool.Progress:
		if params, ok := n.Params.(*mcp.ProgressNotificationParams); ok {
			c.progress.deliver(params)
		}
	case connpool.LoggingMessage:
		if params, ok := n.Params.(*mcp.LoggingMessageParams); ok {
			c.deliverLog(params)
		}
	case connpool.ResourceUpdated:
		c.emit(ext.ResourcesChanged, n.URI)
		c.mu.Lock()
		sc, _ := c.skillList.get()
		skill := sc != nil && sc.has(n.URI)
		c.mu.Unlock()
		if skill || strings.HasPrefix(n.URI, "skill://") {
			c.emit(ext.SkillsChanged, n.URI)
		}
	}
}

// servesSkillsLocked reports whether the server is known to serve skills (listed ones, or the
// SEP-2640 extension declared).
func (c *Cap) servesSkillsLocked() bool {
	if sc, _ := c.skillList.get(); sc != nil && len(sc.entries) > 0 {
		return true
	}
	if rc, _ := c.resList.get(); rc != nil {
		for _, r := range rc.entries {
			if strings.HasPrefix(r.URI, "skill://") {
				return true
			}
		}
	}
	if cn := c.cur.Load(); cn != nil && declaresSkills(cn) {
		return true
	}
	return false
}
