package gateway_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// The call benchmarks run the gateway as users do: `agentpool serve --http` in its own
// process, configured by a file naming the one upstream (pool-scoped, as by default) and
// serving its embedded example skills, as the baseline's server runs in its own process. The
// clients (this process) are the same go-sdk clients on both sides.

var (
	serveBuildOnce sync.Once
	serveBin       string
	serveBuildDir  string
	serveBuildErr  error
)

// benchServeBinary builds cmd/agentpool once per test process, in a folder that
// removeServeBinary (TestMain) removes when the process ends.
func benchServeBinary(b testing.TB) string {
	b.Helper()
	serveBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentpool-bench-")
		if err != nil {
			serveBuildErr = err
			return
		}
		serveBuildDir = dir
		serveBin = filepath.Join(dir, "agentpool")
		out, err := exec.Command("go", "build", "-o", serveBin, "github.com/agentpool/agentpool/cmd/agentpool").CombinedOutput()
		if err != nil {
			serveBuildErr = &buildError{err: err, out: string(out)}
		}
	})
	if serveBuildErr != nil {
		b.Fatal(serveBuildErr)
	}
	return serveBin
}

// removeServeBinary removes the folder benchServeBinary built into, if it did. Only TestMain
// calls it, after every test and benchmark has ended.
func removeServeBinary() {
	if serveBuildDir != "" {
		_ = os.RemoveAll(serveBuildDir)
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build cmd/agentpool: " + e.err.Error() + "\n" + e.out }

var servingLine = regexp.MustCompile(`serving MCP at (http://127\.0\.0\.1:[0-9]+/mcp)`)

// benchServeProcess starts `agentpool serve --http 127.0.0.1:0` with a config whose only MCP
// server is "fault" as spec gives it, in a home of its own, and returns its MCP endpoint URL.
// The process is stopped (SIGTERM, then waited for) when b ends.
func benchServeProcess(b testing.TB, spec string) string {
	b.Helper()
	return startServe(b, spec).url
}

// serveProc is a running `agentpool serve` (startServe).
type serveProc struct {
	url string
	pid int

	mu     sync.Mutex
	stderr []string // its lines so far
}

// lines returns the lines the process wrote to stderr so far.
func (p *serveProc) lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.stderr...)
}

// startServe is benchServeProcess with more arguments for serve, returning the process.
// $AGENTPOOL_BENCH_GOMAXPROCS, when set, is serve's GOMAXPROCS (the
// design notes' comparison of one processor and two).
func startServe(b testing.TB, spec string, args ...string) *serveProc {
	b.Helper()
	bin := benchServeBinary(b)
	dir := b.TempDir()
	cfg := filepath.Join(dir, "agentpool.yaml")
	if err := os.WriteFile(cfg, []byte("mcp_servers:\n  fault: "+spec+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--config", cfg}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	if v := os.Getenv("AGENTPOOL_BENCH_GOMAXPROCS"); v != "" {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	p := &serveProc{pid: cmd.Process.Pid}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			p.mu.Lock()
			p.stderr = append(p.stderr, sc.Text())
			p.mu.Unlock()
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil && !found {
				found = true
				url <- m[1]
			}
		}
	}()
	select {
	case p.url = <-url:
		return p
	case <-time.After(60 * time.Second):
		b.Fatal("agentpool serve printed no endpoint")
		return nil
	}
}
