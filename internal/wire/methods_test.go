package wire

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkMethodNames returns every method name the go-sdk's mcp package declares (its method and
// notification constants, which it does not export), read from its source in the module
// cache: a method a new go-sdk adds is among them.
func sdkMethodNames(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk").Output()
	if err != nil {
		t.Fatalf("go list the go-sdk: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "mcp", "protocol.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:method|notification)[A-Za-z]+\s*=\s*"([^"]+)"`).FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) < 20 {
		t.Fatalf("found %d method names in the go-sdk's protocol.go: its constants moved", len(names))
	}
	return names
}

// TestMethodsAsTheSDK: the method table is the go-sdk's. Every request the go-sdk declares is
// sent to a real go-sdk server and to a real go-sdk client: the table names as requests to a
// side exactly those that side does not answer with method-not-found. Every notification it
// declares is in the table as one. A go-sdk that adds or drops a method fails here.
func TestMethodsAsTheSDK(t *testing.T) {
	names := sdkMethodNames(t)
	var requests []string
	for _, n := range names {
		if strings.HasPrefix(n, "notifications/") {
			if m, ok := Lookup(n); !ok || !m.Notification {
				t.Errorf("go-sdk notification %q: Lookup = %+v, %v", n, m, ok)
			}
			continue
		}
		requests = append(requests, n)
	}
	requests = append(requests, "no/such/method")
	server := serverAnswers(t, requests)
	client := clientAnswers(t, requests)
	for _, n := range requests {
		m, ok := Lookup(n)
		if got, want := ok && !m.Notification && m.To&Server != 0, server[n]; got != want {
			t.Errorf("%q: to the server in the table %v, answered by a go-sdk server %v", n, got, want)
		}
		if got, want := ok && !m.Notification && m.To&Client != 0, client[n]; got != want {
			t.Errorf("%q: to the client in the table %v, answered by a go-sdk client %v", n, got, want)
		}
		if ServerRequest(n) != server[n] {
			t.Errorf("ServerRequest(%q) = %v", n, !server[n])
		}
	}
	for n := range methods {
		if !slices.Contains(names, n) {
			t.Errorf("%q is in the table, not in the go-sdk", n)
		}
	}
}

// codeKnown answers, from a receiving middleware, every request that reaches it: a go-sdk peer
// runs its middleware only for the methods in its table, after it has checked them.
const codeKnown = 4242

// known is the middleware that answers codeKnown; initialize and notifications it passes on,
// so that the session comes up.
func known(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		return nil, &jsonrpc.Error{Code: codeKnown, Message: "known"}
	}
}

// serverAnswers sends each method as a request to an initialized go-sdk server and reports
// which it knows. server/discover, which a go-sdk server knows only for the protocol of
// SEP-2575, is sent as that protocol sends it.
func serverAnswers(t *testing.T, names []string) map[string]bool {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddReceivingMiddleware(known)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	discover := errorOf(exchange(t, conn, request(-2, "server/discover",
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)))
	if e := errorOf(exchange(t, conn, request(-1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`))); e != nil {
		t.Fatalf("initialize: %v", e)
	}
	write(t, conn, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	out := answers(t, conn, names)
	out["server/discover"] = discover != nil && discover.Code == codeKnown
	out["initialize"] = true // answered above, through the middleware
	return out
}

// clientAnswers does as serverAnswers to a go-sdk client.
func clientAnswers(t *testing.T, names []string) map[string]bool {
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cl.AddReceivingMiddleware(known)
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	done := make(chan error, 1)
	var cs *mcp.ClientSession
	go func() {
		var err error
		cs, err = cl.Connect(ctx, ct, nil)
		done <- err
	}()
	// Play the server: answer its initialize, take its notifications/initialized.
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if req.Method == "initialize" {
			write(t, conn, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)})
		} else if req.Method == "notifications/initialized" {
			break
		} else if req.ID.IsValid() {
			write(t, conn, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: CodeMethodNotFound, Message: "no"}})
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	return answers(t, conn, names)
}

// answers sends each of names as a request on conn (params {}) and reports which the peer
// knows: which reach its middleware.
func answers(t *testing.T, conn mcp.Connection, names []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for i, n := range names {
		e := errorOf(exchange(t, conn, request(int64(i), n, `{}`)))
		out[n] = e != nil && e.Code == codeKnown
	}
	return out
}

// errorOf returns r's error, nil for a result.
func errorOf(r *jsonrpc.Response) *jsonrpc.Error {
	if r.Error == nil {
		return nil
	}
	e, ok := r.Error.(*jsonrpc.Error)
	if !ok {
		return &jsonrpc.Error{Message: r.Error.Error()}
	}
	return e
}

func request(id int64, method, params string) *jsonrpc.Request {
	i, _ := jsonrpc.MakeID(float64(id))
	return &jsonrpc.Request{ID: i, Method: method, Params: json.RawMessage(params)}
}

func write(t *testing.T, conn mcp.Connection, msg jsonrpc.Message) {
	t.Helper()
	if err := conn.Write(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
}

// exchange writes req and returns the response to it, skipping the peer's other messages.
func exchange(t *testing.T, conn mcp.Connection, req *jsonrpc.Request) *jsonrpc.Response {
	t.Helper()
	write(t, conn, req)
	for {
		msg, err := conn.Read(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", req.Method, err)
		}
		if m, ok := msg.(*jsonrpc.Response); ok && m.ID == req.ID {
			return m
		}
	}
}

// TestErrRejectedIsTheSDKs: a go-sdk client whose request gets no HTTP response fails with
// the go-sdk's own "rejected by transport", which is ErrRejected, code and message.
func TestErrRejectedIsTheSDKs(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close() // nothing listens any more
	cl := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	_, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	var we *jsonrpc.Error
	if !errors.Is(err, ErrRejected) || !errors.As(err, &we) {
		t.Fatalf("Connect to a closed port: %v, want the go-sdk's rejected error", err)
	}
	if want := ErrRejected.(*jsonrpc.Error); we.Code != want.Code || we.Message != want.Message {
		t.Errorf("the go-sdk's rejected error is %d %q, ErrRejected %d %q", we.Code, we.Message, want.Code, want.Message)
	}
}
