package agent

import "github.com/agentpool/agentpool/ext"

// InterruptedNote is the text of the message MarkInterrupted adds.
const InterruptedNote = "[interrupted: the user stopped this turn before it was complete; what it was doing, and any answer being written, was cut off]"

// MarkInterrupted returns msgs, the Messages of a run that ended with StopInterrupted, with an
// assistant message holding InterruptedNote after them, so that the next turn's model knows
// its last answer was cut off rather than given. The result is still a valid history: the
// interrupted step is not in msgs, so no tool call is left unanswered. msgs is not modified.
func MarkInterrupted(msgs []Message) []Message {
	out := make([]Message, len(msgs), len(msgs)+1)
	copy(out, msgs)
	return append(out, Message{Role: RoleAssistant, Content: []ext.Content{{Type: ext.ContentText, Text: InterruptedNote}}})
}
