package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The replica tests run the deployment examples/haproxy/ documents, on this machine: two
// `agentpool serve` processes, each with its own fault server as a pool-scoped upstream (its
// fault__pid tool tells which replica answered), behind a real HAProxy started with the
// example's config as-is, its addresses given in the environment.

// haproxyBin returns the haproxy executable; without it the test fails: `make deps` installs
// the Debian package, and a missing fixture must not pass quietly.
func haproxyBin(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	t.Fatal("haproxy is not installed: run make deps, which installs the Debian package haproxy")
	return ""
}

// replica is one `agentpool serve` behind the proxy.
type replica struct {
	name string
	addr string // host:port
	cmd  *exec.Cmd
	pid  string // its fault server's pid, as fault__pid answers
}

// startReplica runs `agentpool serve` with the fault server as a pool-scoped upstream and
// server.stateless as given, and asks it directly for its fault server's pid.
func startReplica(t *testing.T, name string, stateless bool) *replica {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	writeFile(t, cfg, fmt.Sprintf("server:\n  stateless: %t\nmcp_servers:\n  fault: {command: %s}\n", stateless, testserver.Build(t)))
	url, cmd := startServeHTTP(t, dir, "--no-default-roots", "--config", cfg)
	r := &replica{name: name, addr: strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"), cmd: cmd}
	cs := connect(t, url)
	defer cs.Close()
	r.pid = callPid(t, cs)
	return r
}

// connect opens a go-sdk client session over streamable HTTP at url.
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	return cs
}

// callPid calls fault__pid and returns the answer; an error fails the test.
func callPid(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	pid, err := faultPID(cs)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// faultPID calls the faultserver's pid tool (fault__pid) and returns its answer: which
// replica's upstream answered.
func faultPID(cs *mcp.ClientSession) (string, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault__pid", Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("fault__pid: %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// startHAProxy runs haproxy in the foreground on examples/haproxy/<file>, unchanged, with the
// front and replica addresses in its environment, and returns the front's /mcp URL once it
// accepts connections. It is killed when the test ends.
func startHAProxy(t *testing.T, file string, r1, r2 *replica) string {
	t.Helper()
	cfg, err := filepath.Abs(filepath.Join("..", "..", "examples", "haproxy", file))
	if err != nil {
		t.Fatal(err)
	}
	front := freeAddr(t)
	cmd := exec.Command(haproxyBin(t), "-f", cfg, "-db")
	cmd.Env = append(os.Environ(), "AGENTPOOL_FRONT="+front, "AGENTPOOL_REPLICA1="+r1.addr, "AGENTPOOL_REPLICA2="+r2.addr)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("haproxy said:\n%s", out.String())
		}
	})
	// A liveness bound on a loaded machine, not a timing claim.
	testwait.Within(t, 60*time.Second, "haproxy to listen on "+front, func() bool {
		select {
		case <-exited:
			t.Fatalf("haproxy exited at start:\n%s", out.String())
		default:
		}
		c, err := net.Dial("tcp", front)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + front + "/mcp"
}

// TestReplicasStickyBehindHAProxy: 20 go-sdk clients through HAProxy (examples/haproxy/
// haproxy.cfg) make 100 calls each, and every answer of a client's session comes from one
// replica, both replicas having sessions. Then one replica is killed (SIGKILL): each of its
// clients' next request fails with the session missing (HAProxy sends it to the other
// replica, which answers 404 for a session it does not know), and a new session of each,
// opened through HAProxy, is served by the surviving replica; the other replica's clients
// go on in their sessions undisturbed.
func TestReplicasStickyBehindHAProxy(t *testing.T) {
	t.Parallel()
	r1, r2 := startReplica(t, "replica1", false), startReplica(t, "replica2", false)
	if r1.pid == r2.pid {
		t.Fatalf("both replicas answer with fault server pid %s", r1.pid)
	}
	byPid := map[string]*replica{r1.pid: r1, r2.pid: r2}
	url := startHAProxy(t, "haproxy.cfg", r1, r2)

	const clients, calls = 20, 100
	sessions := make([]*mcp.ClientSession, clients)
	served := make([]*replica, clients)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("client%d", i), Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				errs <- fmt.Errorf("client %d: connect: %w", i, err)
				return
			}
			sessions[i] = cs
			for n := range calls {
				pid, err := faultPID(cs)
				if err != nil {
					errs <- fmt.Errorf("client %d call %d: %w", i, n, err)
					return
				}
				r := byPid[pid]
				if r == nil {
					errs <- fmt.Errorf("client %d call %d: pid %s is no replica's", i, n, pid)
					return
				}
				if served[i] == nil {
					served[i] = r
				} else if served[i] != r {
					errs <- fmt.Errorf("client %d (session %s): call %d answered by %s, earlier ones by %s", i, cs.ID(), n, r.name, served[i].name)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	t.Cleanup(func() {
		for _, cs := range sessions {
			if cs != nil {
				_ = cs.Close()
			}
		}
	})
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	count := map[*replica]int{}
	for _, r := range served {
		count[r]++
	}
	t.Logf("sessions: %s %d, %s %d (%d calls each)", r1.name, count[r1], r2.name, count[r2], calls)
	if count[r1] == 0 || count[r2] == 0 {
		t.Fatalf("sessions per replica: %s %d, %s %d; want both to serve sessions", r1.name, count[r1], r2.name, count[r2])
	}
	// Each replica's own metrics agree: it served exactly the calls of its sessions (and the
	// one direct call of startReplica), none of the other replica's.
	for _, r := range []*replica{r1, r2} {
		if got, want := replicaCalls(t, r), float64(calls*count[r]+1); got != want {
			t.Errorf("%s /metrics: agentpool_tool_calls_total{tool=fault__pid} = %v, want %v (%d sessions × %d calls + 1)", r.name, got, want, count[r], calls)
		}
	}

	dead, alive := served[0], r1
	if dead == r1 {
		alive = r2
	}
	if err := dead.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExit(t, dead.cmd, dead.name+" after SIGKILL")
	for i, cs := range sessions {
		if served[i] != dead {
			// The other replica's sessions are untouched.
			if pid := callPid(t, cs); byPid[pid] != alive {
				t.Errorf("client %d of %s: answered by %s after %s died", i, alive.name, byPid[pid].name, dead.name)
			}
			continue
		}
		old := cs.ID()
		if status := postCall(t, url, old); status != http.StatusNotFound {
			t.Errorf("client %d of the dead %s: a request of session %s through HAProxy got HTTP %d, want 404", i, dead.name, old, status)
		}
		// The go-sdk client learns it from its call's 404 (ErrSessionMissing) or, when its
		// GET stream reconnected first and got the 404, from the closed connection, whose
		// message carries it (v1.8.0 formats that cause into the text).
		_, err := faultPID(cs)
		if !errors.Is(err, mcp.ErrSessionMissing) && !(errors.Is(err, mcp.ErrConnectionClosed) && strings.Contains(err.Error(), mcp.ErrSessionMissing.Error())) {
			t.Errorf("client %d of the dead %s: next call gave %v, want the session missing (404)", i, dead.name, err)
		}
		_ = cs.Close()
		cs = connect(t, url) // re-initialize, as the transport spec prescribes after a 404
		sessions[i] = cs
		if cs.ID() == "" || cs.ID() == old {
			t.Errorf("client %d: new session id %q (old %q)", i, cs.ID(), old)
		}
		for range 10 {
			if pid := callPid(t, cs); byPid[pid] != alive {
				t.Fatalf("client %d: re-initialized session answered by pid %s, want %s's", i, pid, alive.name)
			}
		}
	}
}

// TestReplicasStatelessRoundRobin: two stateless replicas behind HAProxy (examples/haproxy/
// haproxy-stateless.cfg): a go-sdk client gets no session id, and its tool calls are served
// by both replicas in turn.
func TestReplicasStatelessRoundRobin(t *testing.T) {
	t.Parallel()
	r1, r2 := startReplica(t, "replica1", true), startReplica(t, "replica2", true)
	byPid := map[string]*replica{r1.pid: r1, r2.pid: r2}
	url := startHAProxy(t, "haproxy-stateless.cfg", r1, r2)
	cs := connect(t, url)
	defer cs.Close()
	if cs.ID() != "" {
		t.Errorf("stateless: session id %q, want none", cs.ID())
	}
	const calls = 40
	count := map[*replica]int{}
	for range calls {
		pid := callPid(t, cs)
		r := byPid[pid]
		if r == nil {
			t.Fatalf("pid %s is no replica's", pid)
		}
		count[r]++
	}
	t.Logf("stateless calls: %s %d, %s %d", r1.name, count[r1], r2.name, count[r2])
	for _, r := range []*replica{r1, r2} {
		if got, want := replicaCalls(t, r), float64(count[r]+1); got != want {
			t.Errorf("%s /metrics: agentpool_tool_calls_total{tool=fault__pid} = %v, want %v (its share of the calls + 1)", r.name, got, want)
		}
	}
	// Round robin alternates; a quarter each leaves room for a health check's effect.
	if count[r1] < calls/4 || count[r2] < calls/4 {
		t.Errorf("calls per replica: %s %d, %s %d of %d; want them split across both", r1.name, count[r1], r2.name, count[r2], calls)
	}
}

// replicaCalls scrapes r's own /metrics (not through HAProxy) and returns how many fault__pid
// calls it counted.
func replicaCalls(t *testing.T, r *replica) float64 {
	t.Helper()
	m := series(scrape(t, "http://"+r.addr+"/mcp", ""), "agentpool_tool_calls_total", map[string]string{"server": "fault", "tool": "fault__pid"})
	if m == nil {
		return 0
	}
	return m.GetCounter().GetValue()
}

// postCall posts a tools/call of session sid to url as a streamable HTTP client would, and
// returns the HTTP status.
func postCall(t *testing.T, url, sid string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault__pid","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	// A connection of its own: one kept alive from the previous request may be one HAProxy
	// is closing as it is reused (after a replica died), which fails a POST with EOF (net/http
	// retries only idempotent requests), though HAProxy and the replicas did nothing wrong.
	req.Close = true
	// A request that reaches HAProxy while its health check is marking the dead replica down
	// can be cut off with no answer at all (EOF). That is the balancer's, not an answer of
	// agentpool's: it is sent again (the body is a bytes reader, so GetBody replays it), and
	// only an HTTP status counts.
	var resp *http.Response
	for try := 1; ; try++ {
		resp, err = http.DefaultClient.Do(req)
		if err == nil || try == 3 {
			break
		}
		t.Logf("POST through HAProxy, try %d: %v; sending it again", try, err)
		if req.Body, err = req.GetBody(); err != nil {
			t.Fatal(err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// rawClient is a client process of its own, as sh and curl: it sends what mcp-go's client
// sends over streamable HTTP, a server/discover before initialize (both without a session),
// then initializes, holds its session's GET stream open and calls fault__pid, writing the
// answer to the file $2. It runs until killed.
const rawClient = `#!/bin/sh
url=$1
post() { curl -s -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H 'Mcp-Protocol-Version: 2025-06-18' "$@" "$url"; }
post -o /dev/null -d '{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}'
sid=$(post -D - -o /dev/null -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}' | tr -d '\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii][Dd]: //p')
post -o /dev/null -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -s -N -o /dev/null -H 'Accept: text/event-stream' -H 'Mcp-Protocol-Version: 2025-06-18' -H "Mcp-Session-Id: $sid" "$url" &
post -H "Mcp-Session-Id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault__pid","arguments":{}}}' > "$2.tmp"
mv "$2.tmp" "$2"
wait
`

// TestReplicasSeparateClientProcesses: eight separate client processes, started one after
// another and each keeping its session open, reach two replicas through
// examples/haproxy/haproxy.cfg; each sends a request without a session before its initialize
// (as mcp-go's client does), so a balancer that alternates requests puts every session on
// one replica. Their sessions must land on both.
func TestReplicasSeparateClientProcesses(t *testing.T) {
	t.Parallel()
	r1, r2 := startReplica(t, "replica1", false), startReplica(t, "replica2", false)
	byPid := map[string]*replica{r1.pid: r1, r2.pid: r2}
	url := startHAProxy(t, "haproxy.cfg", r1, r2)
	dir := t.TempDir()
	client := writeExec(t, dir, "client.sh", rawClient, 0o755)
	pidText := regexp.MustCompile(`"text":"([0-9]+)"`)
	count := map[*replica]int{}
	for i := range 8 {
		out := filepath.Join(dir, fmt.Sprintf("answer%d", i))
		cmd := exec.Command(client, url, out)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the client and its curls, ended together
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited })
		var answer []byte
		testwait.Within(t, time.Minute, fmt.Sprintf("client process %d's answer", i), func() bool {
			answer, _ = os.ReadFile(out)
			return answer != nil
		})
		m := pidText.FindSubmatch(answer)
		if m == nil || byPid[string(m[1])] == nil {
			t.Fatalf("client process %d: answer %q names no replica's fault server", i, answer)
		}
		count[byPid[string(m[1])]]++
	}
	t.Logf("sessions of 8 client processes: %s %d, %s %d", r1.name, count[r1], r2.name, count[r2])
	if count[r1] == 0 || count[r2] == 0 {
		t.Fatalf("sessions of 8 separate client processes: %s %d, %s %d; want both replicas to serve some", r1.name, count[r1], r2.name, count[r2])
	}
}
