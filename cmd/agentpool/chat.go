package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/chat"
	"github.com/agentpool/agentpool/view"
	"github.com/spf13/cobra"
)

// poolAgent is the agent name of a chat without --agent. An agent runs at a scope with a name
// (package agent); this one cannot be a config agent's (those are letters, digits, '.', '_'
// and '-'), so no agent's capabilities join the pool's view: the chat sees what `compile`
// shows.
const poolAgent = "(pool)"

// chatOptions are the flags of `agentpool chat`.
type chatOptions struct {
	modelFlags
	agent string
}

func newChatCmd(opts *options) *cobra.Command {
	co := &chatOptions{}
	cmd := &cobra.Command{
		Use:   "chat --base-url URL --model NAME [--agent NAME]",
		Short: "Chat in the terminal with a model of an OpenAI-compatible endpoint, its tools run through the view",
		Long: `chat runs an agent turn per line read from stdin (a terminal or a pipe), with a model of an
OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server, Ollama). The
model is offered the view's tools — what ` + "`compile`" + ` shows, or with --agent what
` + "`compile --agent NAME`" + ` shows — and each turn compiles the view afresh, so a skill edited
on disk is seen by the next message. The conversation is kept across turns.

  /name args   expands the command (skill, command file, MCP prompt) through the view and
               sends the expansion; args are split shell-style. An unknown command is an
               error line, and nothing is sent.
  /help        lists chat's own commands and the view's commands.
  /exit        quits (so does /quit, and end of input: Ctrl-D).
  //text       sends "/text" as a prompt.

Streamed text is printed as it arrives; each tool call is a line naming the tool and its
origin, and its result one line, shortened. Notices (view changes, problems, errors) go to
stderr. Ctrl-C during a turn interrupts that turn (its tool calls are cancelled upstream);
what completed stays in the conversation, marked interrupted. Ctrl-C at the prompt prints a
hint, and a second one in a row quits; one that interrupted a turn counts as the first. SIGTERM quits. Each retry of the model's request is a line; a model
error (a 429 after retries, a malformed answer) is printed and the chat goes on.

The chat is one session ("chat-<pid>"): session-scoped servers start with it and stop when
it ends. The API key is --api-key, else $OPENAI_API_KEY (none for local servers), or
$ANTHROPIC_API_KEY for --model anthropic:<name>, whose endpoint is Anthropic's unless given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return chatRun(cmd, opts, co) },
	}
	f := cmd.Flags()
	co.add(cmd)
	f.StringVar(&co.agent, "agent", "", "chat as this agent (config agents:), with its view")
	_ = cmd.MarkFlagRequired("model")
	return cmd
}

// chatRun builds the model and the host, takes Ctrl-C over from run's handler, and runs the
// chat until /exit, end of input, a second Ctrl-C at the prompt or SIGTERM.
func chatRun(cmd *cobra.Command, opts *options, co *chatOptions) error {
	model, baseURL, err := co.open("chat", true)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	session := fmt.Sprintf("chat-%d", os.Getpid())
	h, sess, err := openHost(ctx, opts, hostOpts{watch: true, session: session, agent: co.agent})
	if err != nil {
		return err
	}
	defer closeHost(h)
	shown := sess.Scope() // as compile shows it
	scope := shown
	scope.AgentName = cmp.Or(scope.AgentName, poolAgent)
	cache := view.NewCache(h.Registry, &view.CacheOptions{Compile: viewOptions(h, shown)})

	p := chat.NewPrinter(cmd.OutOrStdout(), cmd.ErrOrStderr(), isTerminal(cmd.InOrStdin()))
	a, err := sess.NewAgent(model, agent.Options{Cache: cache, Scope: scope, Observer: p.Event, Tools: toolsConfig(h, shown.AgentName)})
	if err != nil {
		return err
	}
	c := chat.New(chat.Options{Agent: a, Cache: cache, Scope: scope, Printer: p})
	// Compiled once before the first prompt, as a client's first listing would: the servers
	// connect now, their problems are reported now, and a server's notifications reach the
	// change stream from the start.
	v, err := cache.Get(ctx, scope)
	if err != nil {
		return err
	}
	reportProblems(cmd, opts, v)
	for _, pr := range v.Problems {
		c.Reported([]string{pr.String()})
	}
	if err := c.Greet(ctx, fmt.Sprintf("%s at %s, scope %s", co.model, redactURL(baseURL), shown)); err != nil {
		return err
	}
	// Ctrl-C is the chat's from now on: it ends a turn, not the program (until here, while
	// servers start, it ends the program as in any command). run's handler would cancel the
	// command's context at the first SIGINT, so it hands SIGINT to the chat instead; SIGTERM
	// stays run's. Given back when the chat ends (deferred after closeHost, so it runs before
	// it): a Ctrl-C while the host closes is run's again, as in any command.
	ints := make(chan os.Signal, 4)
	defer takeInterrupts(ints)()
	changes := h.Registry.Changes(ctx, scope)
	stop := make(chan struct{})
	defer close(stop)
	err = c.Run(ctx, chat.ReadLines(cmd.InOrStdin(), stop), ints, changes)
	if errors.Is(err, chat.ErrEveryTurnFailed) {
		return &exitError{code: exitFailure, msg: err.Error()}
	}
	return err
}

// isTerminal reports whether r is a terminal: the prompt is printed only then, so piped
// output is the conversation alone.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
