package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeSlowBodyCut runs `agentpool serve` with server.read_timeout: 1s. A raw TCP client
// that sends a POST's headers and then trickles its body a byte at a time is cut off (the
// server answers or closes the connection) although it never stops sending, and a keep-alive
// connection left idle after a request is closed; while a GET SSE stream opened before lives
// past the bound and still delivers a list_changed sent after it, and a tool call that lasts
// three bounds returns its result.
func TestServeSlowBodyCut(t *testing.T) {
	t.Parallel()
	const bound = time.Second
	dir := t.TempDir()
	skills := filepath.Join(dir, "skills")
	writeFile(t, filepath.Join(skills, "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves.\n---\nWave.\n")
	writeFile(t, filepath.Join(dir, "agentpool.yaml"), "server:\n  read_timeout: "+bound.String()+
		"\nskills:\n  debounce: 50ms\nmcp_servers:\n  fault: {command: "+testserver.Build(t)+", scope: session}\n")
	cmd := exec.Command("agentpool", "--no-default-roots", "--skills-dir", skills, "--config", filepath.Join(dir, "agentpool.yaml"),
		"serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	endpoint := startServeCmd(t, cmd)
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}

	// A GET stream of a session, opened before anything else waits out the bound.
	sid := rawInitialize(t, endpoint)
	events := openStream(t, endpoint, sid)

	// A tool call longer than the bound.
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__sleep", Arguments: map[string]any{"ms": 3 * bound.Milliseconds()}})
	if err != nil || res.IsError {
		t.Fatalf("a call lasting three bounds: %v %+v", err, res)
	}

	// The slow body, trickled until the server gives up on it.
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(bound / 10)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}
	}()
	// The readiness bound: ten times the body bound; the client sends a byte every tenth of
	// it all along, so only the server's bound can end the connection before.
	_ = conn.SetReadDeadline(time.Now().Add(10 * bound))
	answer, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a body trickled for %s was not cut off (server.read_timeout %s); read so far: %q", 10*bound, bound, answer)
	}

	// An idle keep-alive connection, after one whole request.
	idle, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if _, err := io.WriteString(idle, "GET /nothing HTTP/1.1\r\nHost: "+u.Host+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = idle.SetReadDeadline(time.Now().Add(10 * bound))
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if _, err := br.ReadByte(); errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("an idle keep-alive connection was kept for %s (server.read_timeout %s)", 10*bound, bound)
	}

	// The stream opened before still delivers: a new skill makes the prompts change. What it
	// delivered before does not count.
	for drained := false; !drained; {
		select {
		case line, ok := <-events:
			if !ok {
				t.Fatal("the GET stream ended after the body bound")
			}
			t.Logf("before: %s", line)
		default:
			drained = true
		}
	}
	writeFile(t, filepath.Join(skills, "nod", "SKILL.md"), "---\nname: nod\ndescription: Nods.\n---\nNod.\n")
	select {
	case line, ok := <-events:
		if !ok {
			t.Fatal("the GET stream ended after the body bound")
		}
		if !strings.Contains(line, "list_changed") {
			t.Errorf("stream event %q, want a list_changed", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed on the GET stream opened before the bound")
	}
}

// rawInitialize opens a session at endpoint with plain HTTP and returns its id.
func rawInitialize(t *testing.T, endpoint string) string {
	t.Helper()
	post := func(sid string, msg map[string]any) *http.Response {
		body, _ := json.Marshal(msg)
		req, _ := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, sid)
	}
	if resp := post(sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", resp.Status)
	}
	return sid
}

// openStream opens the session's GET stream and returns its "data:" lines; the channel
// closes when the stream ends. The stream is closed when the test ends.
func openStream(t *testing.T, endpoint, sid string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET stream: %s", resp.Status)
	}
	lines := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				select {
				case lines <- data:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-done
	})
	return lines
}
