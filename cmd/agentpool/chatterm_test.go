package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/agentpool/agentpool/internal/testwait"
)

// chatReady bounds every wait for the chat to print something: readiness only, never a
// measure of speed.
const chatReady = 30 * time.Second

// noChatLeaks fails t if a goroutine started during it (the terminal's reader, the model
// server's, a process's waiter) outlives its cleanups. Called first, so it checks last; the
// package has no goleak.VerifyTestMain (testscript owns TestMain), so the chat tests check
// their own.
func noChatLeaks(t *testing.T) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}

// chatTerm is `agentpool chat` running in a pseudo-terminal, as a person runs it: its stdin,
// stdout and stderr are the terminal, and Ctrl-C is the terminal's (the line discipline
// sends SIGINT to the foreground process group).
type chatTerm struct {
	t   *testing.T
	cmd *exec.Cmd
	tty *os.File // the terminal's master side

	mu   sync.Mutex
	seen []byte // everything the terminal showed
	from int    // how much of seen expect has consumed
	done chan struct{}
}

// startChatTerm runs `agentpool args…` in a new terminal with env as its environment. At
// cleanup a chat still running gets SIGTERM, and the terminal is closed.
func startChatTerm(t *testing.T, env []string, args ...string) *chatTerm {
	t.Helper()
	cmd := exec.Command("agentpool", args...)
	cmd.Env = env
	cmd.Dir = t.TempDir() // no project around
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	c := &chatTerm{t: t, cmd: cmd, tty: f, done: make(chan struct{})}
	go func() { // ends when the terminal is closed, or its last user exits (EIO)
		defer close(c.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			c.mu.Lock()
			c.seen = append(c.seen, buf[:n]...)
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			waitExit(t, cmd, "chat after SIGTERM")
		}
		f.Close()
		<-c.done
		if t.Failed() {
			t.Logf("the terminal showed:\n%s", c.all())
		}
	})
	return c
}

func (c *chatTerm) all() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.seen)
}

// expect waits until the terminal shows want after what earlier expects consumed, and
// consumes up to its end; it returns what was shown in between, want included.
func (c *chatTerm) expect(want string) string {
	c.t.Helper()
	var rest, shown string
	defer func() {
		if shown == "" {
			c.t.Logf("since the last match the chat showed:\n%s", rest)
		}
	}()
	testwait.Within(c.t, chatReady, fmt.Sprintf("the chat to show %q", want), func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		rest = string(c.seen[c.from:])
		if i := strings.Index(rest, want); i >= 0 {
			c.from += i + len(want)
			shown = rest[:i+len(want)]
			return true
		}
		return false
	})
	return shown
}

// send types line and Enter.
func (c *chatTerm) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.tty, line+"\r"); err != nil {
		c.t.Fatal(err)
	}
}

// interrupt presses Ctrl-C.
func (c *chatTerm) interrupt() {
	c.t.Helper()
	if _, err := c.tty.Write([]byte{0x03}); err != nil {
		c.t.Fatal(err)
	}
}

// exitCode waits for the chat to end and returns its exit code.
func (c *chatTerm) exitCode() int {
	c.t.Helper()
	waitExit(c.t, c.cmd, "chat")
	return c.cmd.ProcessState.ExitCode()
}

// chatRequest is a chat-completions request as the model server received it.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// requests decodes the bodies srv received.
func requests(t *testing.T, srv *modelServer) []chatRequest {
	t.Helper()
	var out []chatRequest
	for _, b := range srv.Requests() {
		var r chatRequest
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("a request is not JSON: %v\n%s", err, b)
		}
		out = append(out, r)
	}
	return out
}

// system returns the request's system message.
func (r chatRequest) system() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return contentText(m.Content)
		}
	}
	return ""
}

// last returns the request's last message of role.
func (r chatRequest) last(role string) (text, callID string) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == role {
			return contentText(m.Content), m.ToolCallID
		}
	}
	return "", ""
}

// waitLog waits until the file at path has a line starting with prefix, and returns it.
func waitLog(t *testing.T, path, prefix string) string {
	t.Helper()
	var b []byte
	var line string
	defer func() {
		if line == "" {
			t.Logf("%s has:\n%s", path, b)
		}
	}()
	testwait.Within(t, chatReady, fmt.Sprintf("a line %q… in %s", prefix, path), func() bool {
		b, _ = os.ReadFile(path)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, prefix) {
				line = l
				return true
			}
		}
		return false
	})
	return line
}
