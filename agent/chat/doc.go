// Package chat is a terminal conversation with an agent (`agentpool chat`): it reads lines,
// runs a turn per prompt or /command, prints the streamed answer, each tool call with its
// origin and its result, and notices (errors, problems, view changes, retries), and keeps the
// history. It knows nothing of hosts or configs: the command builds the agent and hands it
// over, with the view cache it runs on and the registry's change stream.
//
//	p := chat.NewPrinter(os.Stdout, os.Stderr, tty)
//	a, err := agent.New(agent.Options{…, Observer: p.Event})
//	c := chat.New(chat.Options{Agent: a, Cache: cache, Scope: scope, Printer: p})
//	err = c.Run(ctx, chat.ReadLines(os.Stdin, stop), interrupts, changes)
//
// Printed model and tool text has its control characters escaped (newlines and tabs kept), so
// what a server or a model says cannot drive the terminal. Notices go to the error writer, on
// lines of their own, so piped output is the conversation alone.
//
// Rationale: docs/design/chat.md.
package chat
