package acp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentpool/agentpool/ext"
	sdk "github.com/coder/acp-go-sdk"
)

// planOrigin is where update_plan comes from: this package, for the editor's session.
var planOrigin = ext.Origin{Kind: ext.OriginLocal, Location: "acp"}

// planSchema is update_plan's input: the whole plan, each time.
const planSchema = `{"type":"object","required":["plan"],"properties":{"plan":{"type":"array","description":"Every step of the plan, in order, each time (the plan replaces the last one).","items":{"type":"object","required":["content","status"],"properties":{"content":{"type":"string","description":"What the step does."},"priority":{"type":"string","enum":["high","medium","low"]},"status":{"type":"string","enum":["pending","in_progress","completed"]}}}}}}`

// planCap is the turn capability that offers update_plan: each valid call is sent to the
// editor as a plan update.
type planCap struct{ s *session }

func (p planCap) Name() string                { return "acp" }
func (p planCap) Origin() ext.Origin          { return planOrigin }
func (p planCap) Close(context.Context) error { return nil }

func (p planCap) Tools(context.Context) ([]ext.ToolEntry, error) {
	return []ext.ToolEntry{{Name: planTool, Title: "Plan",
		Description: "Show the user your plan for a task of several steps, and update it as steps start and finish: " +
			"give every step with its status (pending, in_progress, completed) and optionally its priority (high, medium, low).",
		InputSchema: json.RawMessage(planSchema), Annotations: &ext.ToolAnnotations{ReadOnlyHint: true}}}, nil
}

func (p planCap) CallTool(ctx context.Context, c *ext.ToolCall) (*ext.ToolResult, error) {
	if c.Name != planTool {
		return nil, fmt.Errorf("acp: %s: %w", c.Name, ext.ErrNotFound)
	}
	var in struct {
		Plan []struct {
			Content  string `json:"content"`
			Priority string `json:"priority"`
			Status   string `json:"status"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(c.Arguments, &in); err != nil {
		return planError("update_plan: " + err.Error()), nil
	}
	entries := make([]sdk.PlanEntry, 0, len(in.Plan))
	for i, e := range in.Plan {
		if e.Priority == "" {
			e.Priority = string(sdk.PlanEntryPriorityMedium)
		}
		switch {
		case e.Content == "":
			return planError(fmt.Sprintf("update_plan: plan[%d]: no content", i)), nil
		case e.Priority != "high" && e.Priority != "medium" && e.Priority != "low":
			return planError(fmt.Sprintf("update_plan: plan[%d]: priority %q is not high, medium or low", i, e.Priority)), nil
		case e.Status != "pending" && e.Status != "in_progress" && e.Status != "completed":
			return planError(fmt.Sprintf("update_plan: plan[%d]: status %q is not pending, in_progress or completed", i, e.Status)), nil
		}
		entries = append(entries, sdk.PlanEntry{Content: e.Content, Priority: sdk.PlanEntryPriority(e.Priority), Status: sdk.PlanEntryStatus(e.Status)})
	}
	p.s.update(context.WithoutCancel(ctx), sdk.UpdatePlan(entries...))
	return ext.TextResult("Plan updated."), nil
}

// planError is an error result of update_plan, for the model to correct its call.
func planError(text string) *ext.ToolResult {
	r := ext.TextResult(text)
	r.IsError = true
	return r
}
