package chat

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/view"
)

// ErrEveryTurnFailed is what Run returns when it ran turns and every one failed: a piped chat
// whose model was never reached must not look like a conversation held.
var ErrEveryTurnFailed = errors.New("every turn failed")

// Options are what a Chat runs on. All are required.
type Options struct {
	// Agent runs the turns; its Observer must be Printer.Event.
	Agent *agent.Agent
	// Cache is the agent's view cache and Scope its scope: /help lists that view's commands.
	Cache *view.Cache
	Scope ext.Scope
	// Printer writes the conversation and the notices.
	Printer *Printer
}

// Chat is one terminal conversation: the agent, the view cache it runs on, and the history.
type Chat struct {
	agent   *agent.Agent
	cache   *view.Cache
	scope   ext.Scope
	p       *Printer
	history []agent.Message
	// reported are the problems printed already, so each is said once.
	reported map[string]bool
	// turns and failed count the turns run and those that ended in an error.
	turns, failed int
}

// New returns a chat on o.
func New(o Options) *Chat {
	return &Chat{agent: o.Agent, cache: o.Cache, scope: o.Scope, p: o.Printer, reported: map[string]bool{}}
}

// Reported marks problems as said already (those printed before the chat began), so a run
// that meets them again does not repeat them.
func (c *Chat) Reported(problems []string) {
	for _, p := range problems {
		c.reported[p] = true
	}
}

// result is how the chat ends: ErrEveryTurnFailed when it ran turns and every one failed.
func (c *Chat) result() error {
	if c.turns > 0 && c.failed == c.turns {
		return fmt.Errorf("chat: %w (%d)", ErrEveryTurnFailed, c.turns)
	}
	return nil
}

// Run reads lines until /exit, the end of lines, a second Ctrl-C (ints) in a row at the
// prompt, or the end of ctx (SIGTERM); it returns nil, or ErrEveryTurnFailed wrapped. Lines
// typed during a turn wait for it. Change events are printed at the prompt, never in the
// middle of a turn's output.
func (c *Chat) Run(ctx context.Context, lines <-chan string, ints <-chan os.Signal, changes <-chan ext.ChangeEvent) error {
	armed := false // a Ctrl-C at the prompt: the next one quits
	c.p.prompt()
	for {
		select {
		case <-ctx.Done():
			c.p.endLine()
			return nil
		case line, ok := <-lines:
			if !ok {
				c.p.endLine()
				return c.result()
			}
			c.p.typed()
			quit, interrupted := c.handle(ctx, line, ints)
			if quit {
				c.p.endLine()
				return c.result()
			}
			armed = interrupted // a Ctrl-C that cut a turn short counts as the first
		case <-ints:
			if armed {
				c.p.endLine()
				return c.result()
			}
			armed = true
			c.p.Notice("(Ctrl-C again to quit; or /exit, or Ctrl-D)")
		case ev, ok := <-changes:
			if !ok {
				changes = nil // the registry closed it; the host is going away
				continue
			}
			if !c.p.changed(ev, changes) {
				continue // said already, and nothing since: no new prompt either
			}
		}
		c.p.prompt()
	}
}

// handle runs one line: a chat command, a command expansion or a prompt. It reports whether
// the chat ends.
func (c *Chat) handle(ctx context.Context, line string, ints <-chan os.Signal) (quit, interrupted bool) {
	text := strings.TrimSpace(line)
	switch {
	case text == "":
		return false, false
	case strings.HasPrefix(text, "//"):
		return c.turn(ctx, ints, func(context.Context) (*agent.Input, error) { return &agent.Input{Prompt: text[1:]}, nil })
	case !strings.HasPrefix(text, "/"):
		return c.turn(ctx, ints, func(context.Context) (*agent.Input, error) { return &agent.Input{Prompt: line}, nil })
	}
	name, args, _, err := cmdline.ParseLine(text)
	if err != nil {
		where := "" // the offset counts from the arguments' start, when there is a name
		if len(text) > 1 && !strings.ContainsRune(" \t\n\r\v\f", rune(text[1])) {
			where = " of the arguments " + argsOf(text)
		}
		c.p.Notice("error: %v%s (nothing sent)", err, where)
		return false, false
	}
	switch name {
	case "exit", "quit": // chatOwn
		return true, false
	case "help":
		c.help(ctx)
		return false, false
	}
	return c.turn(ctx, ints, func(ctx context.Context) (*agent.Input, error) {
		in, err := c.agent.CommandInput(ctx, &ext.CommandRequest{Name: name, Args: args})
		if errors.Is(err, ext.ErrNotFound) {
			return nil, errUnknownCommand{name}
		}
		return in, err
	})
}

// errUnknownCommand is a /name the view has no command for.
type errUnknownCommand struct{ name string }

func (e errUnknownCommand) Error() string {
	return "unknown command /" + e.name + " (nothing sent; /help lists the commands)"
}

// turn runs one agent turn on the input input makes (a command's expansion may ask an MCP
// server, so it is part of the turn). Ctrl-C cancels the turn's context: the run returns with
// StopInterrupted once its calls have been cancelled, and the chat goes on; a second Ctrl-C
// before the turn has ended quits (once it has). It reports whether the chat quits and whether
// a Ctrl-C cut the turn short. The turn's messages join the history whatever the ending: an
// interrupted or failed step is not in them (package agent), so they are always a valid
// history; an interrupted turn's are marked so (agent.MarkInterrupted).
func (c *Chat) turn(ctx context.Context, ints <-chan os.Signal, input func(context.Context) (*agent.Input, error)) (quit, interrupted bool) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.turns++
	var res *agent.Result
	var err error
	done := make(chan struct{})
	c.p.startTurn()
	go func() {
		defer close(done)
		var in *agent.Input
		if in, err = input(tctx); err != nil {
			return
		}
		in.History = c.history
		res, err = c.agent.Run(tctx, in)
	}()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-ints:
			quit = interrupted
			interrupted = true
			cancel()
		}
	}
	if res != nil {
		msgs := res.Messages
		if res.Stop == agent.StopInterrupted {
			msgs = agent.MarkInterrupted(msgs)
		}
		c.history = append(c.history, msgs...)
		c.problems(res.Problems)
	}
	switch {
	case ctx.Err() != nil: // SIGTERM: the loop ends
		c.p.endLine()
	case res != nil && res.Stop == agent.StopDone: // a Ctrl-C too late to stop it changes nothing
		c.p.answer(res.Text, res.Steps-1)
	case quit:
		c.p.Notice("[interrupted]")
	case interrupted || (res != nil && res.Stop == agent.StopInterrupted):
		interrupted = true
		c.p.Notice("[interrupted] (Ctrl-C again to quit)")
	default:
		c.failed++
		var me *agent.ModelError
		if errors.As(err, &me) {
			err = me.Err // says the model and its endpoint: the chat has one agent
		}
		c.p.Notice("error: %v", err)
	}
	return quit, interrupted
}

// problems prints the problems of a run not printed before.
func (c *Chat) problems(ps []string) {
	for _, p := range ps {
		if !c.reported[p] {
			c.reported[p] = true
			c.p.Notice("warning: %s", oneLine(p, 200))
		}
	}
}

// help lists chat's own commands and the view's; a view command named like one of chat's is
// reached, and listed, by its qualified name (skill:help, file:exit).
func (c *Chat) help(ctx context.Context) {
	c.p.line("chat commands: /help, /exit (or /quit, Ctrl-D), //text sends /text; Ctrl-C interrupts a turn")
	v, err := c.cache.Get(ctx, c.scope)
	if err != nil {
		c.p.Notice("error: %v", err)
		return
	}
	if defs, err := c.agent.Offered(ctx); err == nil {
		c.p.line(toolsLine(defs))
	}
	if len(v.Commands) == 0 {
		c.p.line("  (the view has no commands)")
		return
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, cm := range v.Commands { // sorted by name
		reach := reachedAs(v, cm)
		if reach == "" {
			continue
		}
		name := "/" + reach
		if cm.ArgumentHint != "" {
			name += " " + cm.ArgumentHint
		}
		fmt.Fprintf(w, "  %s\t%s\n", cell(name), cell(oneLine(cmp.Or(cm.Description, cm.Title), 70)))
	}
	w.Flush()
	c.p.line(strings.TrimSuffix(b.String(), "\n"))
}

// chatOwn are the names of chat's own commands, which no view command is reached by.
var chatOwn = []string{"help", "exit", "quit"}

// reachedAs returns the name a line reaches cm by: its name, unless chat's own command has it;
// then its qualified name (as view assigns them: "skill:exit"), if that reaches it ("" if none
// does).
func reachedAs(v *view.View, cm view.Command) string {
	if !slices.Contains(chatOwn, cm.Name) {
		return cm.Name
	}
	q := cm.QualifiedName
	switch {
	case q != "":
	case cm.Source != "":
		q = cm.Source + ":" + cm.Name
	default:
		q = cm.Capability + ":" + cm.Name
	}
	for _, n := range []string{q, cm.Capability + ":" + q} {
		if got, ok := v.Command(n); ok && got.Capability == cm.Capability && got.Name == cm.Name {
			return n
		}
	}
	return ""
}

// ReadLines sends each line of r, without its line ending, until r ends (the channel is then
// closed) or stop is closed. A read blocked on a terminal is not interruptible: that goroutine
// ends with the input or the process.
func ReadLines(r io.Reader, stop <-chan struct{}) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				select {
				case out <- strings.TrimRight(line, "\r\n"):
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// argsOf is the argument text of a command line, as cmdline.ParseLine counts its offsets.
func argsOf(line string) string {
	s := strings.TrimSpace(line)
	if i := strings.IndexAny(s, " \t\n\r\v\f"); i >= 0 {
		return strings.TrimSpace(s[i:])
	}
	return ""
}
