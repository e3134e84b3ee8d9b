package chat

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/termtext"
)

// Widths of the one-line summaries of a tool call's arguments and result.
const (
	chatArgsWidth   = 80
	chatResultWidth = 100
)

// Printer writes a chat: the conversation (streamed text, tool calls and their results,
// the prompt) on out, notices (errors, problems, changes, hints) on errOut. Model and tool
// text is printed with its control characters escaped but newlines and tabs: what a server
// or a model says cannot drive the terminal. It is safe for concurrent use: the agent's
// Observer is called from the goroutines of a step's tool calls.
type Printer struct {
	out, errOut io.Writer
	tty         bool

	mu sync.Mutex
	// open is set while out's cursor is not at the start of a line (streamed text without its
	// newline, or a prompt not yet answered), so the next line starts on its own.
	open bool
	// deltaStep is the step of the turn whose text was streamed last (-1: none), so an answer
	// that was not streamed is printed whole, and one that was is not printed twice.
	deltaStep int
	// lastChange is the last change notice, until a line is read.
	lastChange string
}

// NewPrinter returns a printer of the conversation on out and of notices on errOut; tty says
// whether the input is a terminal (the prompt is printed only then, so piped output is the
// conversation alone).
func NewPrinter(out, errOut io.Writer, tty bool) *Printer {
	return &Printer{out: out, errOut: errOut, tty: tty, deltaStep: -1}
}

// Event prints an agent event; it is the agent's Observer.
func (p *Printer) Event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventDelta:
		s := printable(e.Text)
		if s == "" {
			return
		}
		io.WriteString(p.out, s)
		p.open = !strings.HasSuffix(s, "\n")
		p.deltaStep = e.Step
	case agent.EventToolCall:
		p.endLineLocked()
		origin := e.Origin.String()
		if e.Origin == (ext.Origin{}) {
			origin = "no such tool" // the run answers the model so
		}
		fmt.Fprintf(p.out, "[tool] %s %s (%s)\n", cell(e.Call.Name), cell(oneLine(string(e.Call.Arguments), chatArgsWidth)), cell(origin))
	case agent.EventToolResult:
		p.endLineLocked()
		mark := ""
		if e.Result.IsError {
			mark = " (error)"
		}
		text := strings.Join(strings.Fields(e.Result.Text()), " ")
		fmt.Fprintf(p.out, "[result] %s%s: %s\n", cell(e.Call.Name), mark, cell(oneLine(text, chatResultWidth)))
	case agent.EventRetry:
		p.endLineLocked()
		fmt.Fprintln(p.errOut, "model: "+cell(e.Text))
	}
}

// typed is called for each line read: on a terminal, its newline ended the prompt's line.
func (p *Printer) typed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open = false
	p.lastChange = ""
}

// startTurn is called as a turn starts.
func (p *Printer) startTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deltaStep = -1
}

// answer ends a turn that ended with the model's answer text: printed unless it was streamed.
func (p *Printer) answer(text string, step int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deltaStep != step && text != "" {
		io.WriteString(p.out, printable(text))
		p.open = !strings.HasSuffix(text, "\n")
	}
	p.endLineLocked()
}

// prompt prints the prompt, on a terminal only.
func (p *Printer) prompt() {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
	io.WriteString(p.out, "> ")
	p.open = true
}

// line prints one line of the conversation's output (help).
func (p *Printer) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
	fmt.Fprintln(p.out, s)
}

// Notice prints a line on errOut, on a line of its own.
func (p *Printer) Notice(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
	fmt.Fprintln(p.errOut, printable(fmt.Sprintf(format, args...)))
}

// changed prints one notice for ev and the events already waiting behind it in more, unless
// the last thing printed was the same notice (a watcher's events come in bursts). It reports
// whether it printed.
func (p *Printer) changed(ev ext.ChangeEvent, more <-chan ext.ChangeEvent) bool {
	caps := []string{ev.Capability}
	for drained := false; !drained; {
		select {
		case ev, ok := <-more:
			if !ok {
				drained = true
			} else if !slices.Contains(caps, ev.Capability) {
				caps = append(caps, ev.Capability)
			}
		default:
			drained = true
		}
	}
	slices.Sort(caps)
	msg := fmt.Sprintf("[changed] %s: the next message sees it", strings.Join(caps, ", "))
	p.mu.Lock()
	same := p.lastChange == msg
	p.lastChange = msg
	p.mu.Unlock()
	if !same {
		p.Notice("%s", msg)
	}
	return !same
}

// endLine ends out's current line, if one is open.
func (p *Printer) endLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLineLocked()
}

func (p *Printer) endLineLocked() {
	if p.open {
		io.WriteString(p.out, "\n")
		p.open = false
	}
}

// printable is s with its control characters escaped (cell), newlines and tabs kept.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && termtext.IsControl(r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
		} else {
			b.WriteString(cell(string(r)))
		}
	}
	return b.String()
}
