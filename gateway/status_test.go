package gateway_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentpool/agentpool/gateway"
	"github.com/agentpool/agentpool/internal/testwait"
	"github.com/agentpool/agentpool/status"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statusServer serves f's gateway behind status.Handler with o (Pool set to f's gateway) over
// real HTTP; it is closed when the test ends.
func statusServer(t *testing.T, f *fixture, o status.Options) string {
	t.Helper()
	o.Pool = f.g
	srv := httptest.NewServer(status.Handler(gateway.Mux(f.g, nil), o))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// get GETs url with header and returns the status, the headers and the body.
func get(t *testing.T, url string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// TestStatusPageEscapes: server errors, skill diagnostics, reload messages and server names
// are untrusted text: a <script> in any of them is shown as text, never markup, and the page
// forbids scripts anyway (CSP). The page lists the pool view's skill and tools with origin.
func TestStatusPageEscapes(t *testing.T) {
	f := newFixture(t, nil)
	evil := `<script>alert("pwned")</script>`
	url := statusServer(t, f, status.Options{
		Version: "v-test",
		Report: func(context.Context) status.Report {
			return status.Report{
				Servers: []status.Server{
					{Name: "dead" + evil, State: "degraded", LastError: "connect: " + evil, NextAttempt: time.Now().Add(time.Minute)},
					{Name: "alive", State: "connected", PID: 4242, ConnectedAt: time.Now(), Tools: 3, Calls: 7, Errors: 1, Counted: true},
				},
				SkillDiagnostics: []status.SkillDiagnostic{{Skill: "greet", Severity: "warning", Text: "SKILL.md:2: " + evil}},
				Reload:           &status.Reload{At: time.Now(), OK: false, Message: "refused: " + evil},
				Plugins: []status.Plugin{
					{Name: "deploy", Version: "1.2.0", State: "enabled", Source: "marketplace:team", Skills: 2, Commands: 1, Servers: []string{"deploy.api"}},
					{Name: "odd", State: "disabled", Source: "config", Problems: []string{"plugin.json:3: " + evil}},
				},
			}
		},
	})
	status, hdr, body := get(t, url+"/", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", status, body)
	}
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q, want text/html", ct)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q, want default-src 'none'", csp)
	}
	if strings.Contains(body, "<script") {
		t.Errorf("the page holds a <script> element:\n%s", body)
	}
	escaped := `&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;`
	for _, want := range []string{"connect: " + escaped, "dead" + escaped, "SKILL.md:2: " + escaped, "refused: " + escaped, "plugin.json:3: " + escaped} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, want := range []string{"v-test", ">greet<", "load_skill", "4242", ">7<", "refused", ">deploy<", "marketplace:team", "deploy.api", ">odd<"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestStatusPageNoReload: without a reload the page says so; a POST is refused (read-only).
func TestStatusPageNoReload(t *testing.T) {
	f := newFixture(t, nil)
	url := statusServer(t, f, status.Options{})
	if _, _, body := get(t, url+"/", nil); !strings.Contains(body, "No reload yet") {
		t.Errorf("page without a reload lacks %q", "No reload yet")
	}
	resp, err := http.Post(url+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", resp.StatusCode)
	}
}

// TestStatusPageToken: with a bearer token, the status page requires it (it names servers,
// errors and sessions) and a foreign Origin is refused; /healthz and /readyz never ask for
// it. /mcp still requires it.
func TestStatusPageToken(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Token = "s3cret" })
	url := statusServer(t, f, status.Options{})
	for path, want := range map[string]int{"/": http.StatusUnauthorized, "/healthz": http.StatusOK, "/readyz": http.StatusOK} {
		if status, _, body := get(t, url+path, nil); status != want {
			t.Errorf("GET %s without the token: %d, want %d\n%s", path, status, want, body)
		}
	}
	if status, _, _ := get(t, url+"/", map[string]string{"Authorization": "Bearer wrong"}); status != http.StatusUnauthorized {
		t.Errorf("GET / with a wrong token: %d, want 401", status)
	}
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	if status, _, body := get(t, url+"/", auth); status != http.StatusOK || !strings.Contains(body, "greet") {
		t.Errorf("GET / with the token: %d, want 200 with the skill\n%s", status, body)
	}
	auth["Origin"] = "http://evil.example"
	if status, _, _ := get(t, url+"/", auth); status != http.StatusForbidden {
		t.Errorf("GET / from a foreign origin: %d, want 403", status)
	}
	if status, _, _ := post(t, url+gateway.PoolPath, "", initBody, nil); status != http.StatusUnauthorized {
		t.Errorf("POST /mcp without the token behind status.Handler: %d, want 401", status)
	}
}

// TestReadyz: /readyz is 503 with Ready's reason while Ready returns one, 200 once it returns
// nil; /healthz is 200 throughout.
func TestReadyz(t *testing.T) {
	f := newFixture(t, nil)
	var ready atomic.Bool
	url := statusServer(t, f, status.Options{Ready: func() error {
		if !ready.Load() {
			return errors.New("eager servers still being tried")
		}
		return nil
	}})
	if status, _, body := get(t, url+"/readyz", nil); status != http.StatusServiceUnavailable || !strings.Contains(body, "eager servers still being tried") {
		t.Errorf("/readyz before ready: %d %q, want 503 with the reason", status, body)
	}
	if status, _, body := get(t, url+"/healthz", nil); status != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q, want 200 ok", status, body)
	}
	if _, _, body := get(t, url+"/", nil); !strings.Contains(body, "not ready: eager servers still being tried") {
		t.Errorf("the page before ready does not say why it is not ready")
	}
	ready.Store(true)
	if status, _, body := get(t, url+"/readyz", nil); status != http.StatusOK {
		t.Errorf("/readyz once ready: %d %q, want 200", status, body)
	}
}

// TestSessionInfos: a live session is listed with the client's name and version, its scope,
// an 8-character prefix of its id (never the whole id, on the page either) and its calls,
// counted on the pass-through path and on the go-sdk path alike.
func TestSessionInfos(t *testing.T) {
	f := newFixture(t, nil)
	url := statusServer(t, f, status.Options{})
	client := mcp.NewClient(&mcp.Implementation{Name: "status-probe", Version: "9.9.9"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + gateway.PoolPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	calls := func() int64 {
		infos := f.g.SessionInfos()
		if len(infos) != 1 {
			t.Fatalf("SessionInfos: %+v, want one session", infos)
		}
		return infos[0].Calls
	}
	if n := calls(); n != 0 {
		t.Errorf("calls before any: %d", n)
	}
	// Passed through (a JSON answer; once the session is initialized), each call counted.
	raw := `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`
	testwait.For(t, "a call passed through", func() bool {
		before := calls()
		status, hdr, _ := post(t, url+gateway.PoolPath, cs.ID(), raw, nil)
		if status != http.StatusOK {
			t.Fatalf("raw call: %d", status)
		}
		if n := calls(); n != before+1 {
			t.Fatalf("calls %d after one more (passed through: %v), want %d", n, isJSON(hdr), before+1)
		}
		return isJSON(hdr)
	})
	// Through the go-sdk (a progress token is not passed through).
	before := calls()
	p := &mcp.CallToolParams{Name: "fault__echo", Arguments: map[string]any{"text": "y"}}
	p.SetProgressToken("tok")
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if n := calls(); n != before+1 {
		t.Errorf("calls after a go-sdk call: %d, want %d", n, before+1)
	}
	si := f.g.SessionInfos()[0]
	if si.Client != "status-probe" || si.ClientVersion != "9.9.9" || si.Scope != "session" || si.Started.IsZero() {
		t.Errorf("session info %+v", si)
	}
	if len(si.ID) != gateway.SessionIDPrefix || !strings.HasPrefix(cs.ID(), si.ID) {
		t.Errorf("session id %q, want the first %d characters of %q", si.ID, gateway.SessionIDPrefix, cs.ID())
	}
	_, _, body := get(t, url+"/", nil)
	if !strings.Contains(body, "status-probe") || !strings.Contains(body, si.ID) {
		t.Errorf("page lacks the session (client status-probe, id %s)", si.ID)
	}
	if strings.Contains(body, cs.ID()) {
		t.Errorf("page shows the whole session id %s", cs.ID())
	}
}

// TestStatusAndMetricsRefuseForeignHost: the status page and /metrics refuse a request that
// reaches a loopback listener with a Host that is not loopback, as /mcp does (the go-sdk's
// check). That is a DNS rebinding attack: a page of evil.example whose name now resolves to
// 127.0.0.1 reads http://evil.example:PORT/ as its own origin, and a browser sends no Origin
// header with a same-origin GET, so the Origin check alone lets it read what the page shows.
// /healthz and /readyz, which show nothing, still answer.
func TestStatusAndMetricsRefuseForeignHost(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Metrics = gateway.NewMetrics(nil) })
	mux := http.NewServeMux()
	mux.Handle(gateway.MetricsPath, f.g.MetricsHandler())
	mux.Handle("/", gateway.Mux(f.g, nil))
	srv := httptest.NewServer(status.Handler(mux, status.Options{Pool: f.g}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path, host string
		want       int
	}{
		{"/", "evil.example:80", http.StatusForbidden},
		{gateway.MetricsPath, "evil.example", http.StatusForbidden},
		{gateway.PoolPath, "evil.example", http.StatusForbidden}, // the go-sdk's check
		{"/", "localhost:1234", http.StatusOK},
		{gateway.MetricsPath, "[::1]:1234", http.StatusOK},
		{"/", "", http.StatusOK}, // the listener's address
		{"/healthz", "evil.example", http.StatusOK},
		{"/readyz", "evil.example", http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s with Host %q: %d, want %d\n%.300s", tc.path, tc.host, resp.StatusCode, tc.want, body)
		}
	}
}

// failingWriter is a ResponseWriter whose body writes fail, as a client gone mid-page.
type failingWriter struct{ h http.Header }

func (w *failingWriter) Header() http.Header       { return w.h }
func (w *failingWriter) WriteHeader(int)           {}
func (w *failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }

// TestStatusPageErrorLoggedByGateway: without Options.Log, an error writing the page goes to the
// pool Gateway's logger (serve's, with its level and format), not to the process's default one.
func TestStatusPageErrorLoggedByGateway(t *testing.T) {
	logs := &lockedBuffer{}
	f := newFixture(t, func(o *gateway.Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	h := status.Handler(gateway.Mux(f.g, nil), status.Options{Pool: f.g})
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	h.ServeHTTP(&failingWriter{h: http.Header{}}, req)
	if !strings.Contains(logs.String(), "client gone") {
		t.Fatalf("the page's write error is not in the Gateway's log: %q", logs.String())
	}
}
