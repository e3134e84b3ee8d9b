package acp

import (
	"encoding/json"

	"github.com/agentpool/agentpool/agent"
	sdk "github.com/coder/acp-go-sdk"
)

// SetTestHookEnding makes f run as a session's end begins, until restore is called.
func SetTestHookEnding(f func()) (restore func()) {
	testHookEnding = f
	return func() { testHookEnding = nil }
}

// Card returns the title, kind and locations an editor is shown for a call of t with args.
func Card(t agent.ToolDef, args json.RawMessage) (string, sdk.ToolKind, []sdk.ToolCallLocation) {
	return toolTitle(t), toolKind(t), locations(args)
}
