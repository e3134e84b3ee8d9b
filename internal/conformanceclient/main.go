// Command conformanceclient is the client the MCP conformance suite
// (@modelcontextprotocol/conformance, `conformance client --command …`) runs for its client
// scenarios: it connects to the suite's server through agentpool's own upstream code path —
// an mcp_servers entry (decl.Server, validated as the config file's are) turned into a
// pooled mcpcap.Cap over connpool — lists the tools and calls the one the scenario wants.
//
// The suite passes the server's URL as the only argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and its context (credentials, a private key) as JSON in
// MCP_CONFORMANCE_CONTEXT, as for the go-sdk's own conformance client. The auth: settings are
// those a user would write for such a server:
//
//   - auth/client-credentials-basic: type client_credentials, client_secret_basic, the
//     context's client_id and client_secret.
//   - auth/client-credentials-jwt: type client_credentials, private_key_jwt, the context's
//     private key written to a 0600 file as private_key_file.
//   - any other auth/ scenario: type authorization_code with a client_metadata_url (used where
//     the authorization server supports client ID metadata documents), the context's
//     client_id and client_secret when it gives them (a pre-registered client), else dynamic
//     registration, redirect_port 3000. The user's part (a browser following the
//     authorization URL) is played by following it without a browser: the suite's
//     authorization server redirects at once to the redirect URL with the code.
//   - the other scenarios: no auth.
//
// It exits non-zero when the scenario's calls fail. It logs to stderr at debug level: the
// test that runs the suite reads those logs for tokens (there must be none).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/authredirect"
	"github.com/agentpool/agentpool/mcpcap"
)

// calls names the tool each scenario calls after listing, and its arguments; a scenario
// not named here only lists.
var calls = map[string]toolCall{
	"tools_call":                          {"add_numbers", `{"a":5,"b":3}`},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
	"sse-retry":                           {"test_reconnection", `{}`},
}

// authCall is the call of every auth/ scenario: its server's one tool.
var authCall = toolCall{"test-tool", `{}`}

type toolCall struct {
	tool string
	args string // a JSON object
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return errors.New("usage: conformanceclient SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
	}
	serverURL, scenario := os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if scenario == "" {
		return errors.New("MCP_CONFORMANCE_SCENARIO is not set")
	}
	var sc map[string]any
	if s := os.Getenv("MCP_CONFORMANCE_CONTEXT"); s != "" {
		if err := json.Unmarshal([]byte(s), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	str := func(k string) string { s, _ := sc[k].(string); return s }

	spec := decl.Server{URL: serverURL, Prefix: new(string)}
	switch {
	case scenario == "auth/client-credentials-basic":
		spec.Auth = &decl.Auth{Type: connpool.GrantClientCredentials, ClientID: str("client_id"), ClientSecret: str("client_secret"),
			TokenEndpointAuth: connpool.AuthClientSecretBasic}
	case scenario == "auth/client-credentials-jwt":
		dir, err := os.MkdirTemp("", "conformanceclient-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		keyFile := filepath.Join(dir, "key.pem")
		if err := os.WriteFile(keyFile, []byte(str("private_key_pem")), 0o600); err != nil {
			return err
		}
		spec.Auth = &decl.Auth{Type: connpool.GrantClientCredentials, ClientID: str("client_id"),
			TokenEndpointAuth: connpool.AuthPrivateKeyJWT, PrivateKeyFile: keyFile}
	case strings.HasPrefix(scenario, "auth/"):
		spec.Auth = &decl.Auth{Type: connpool.GrantAuthorizationCode, RedirectPort: 3000,
			ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
			ClientID:          str("client_id"), ClientSecret: str("client_secret")}
		if spec.Auth.ClientID == "" {
			spec.Auth.ClientSecret = ""
		}
	}
	const name = "conformance"
	if err := spec.Validate("mcp_servers." + name); err != nil {
		return err
	}
	cfg, err := mcpcap.ConfigOf(name, spec)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pool := connpool.New(&connpool.Options{Logger: logger, AuthorizeUser: authredirect.Follow})
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	defer pool.Close(context.Background())
	c, err := mcpcap.New(cfg, mcpcap.WithPool(pool, ""))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())

	tools, err := c.Tools(ctx)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	call, ok := calls[scenario]
	if strings.HasPrefix(scenario, "auth/") {
		call, ok = authCall, true
	}
	if !ok {
		return nil
	}
	if !slices.ContainsFunc(tools, func(t ext.ToolEntry) bool { return t.Name == call.tool }) {
		return fmt.Errorf("tool %q not listed", call.tool)
	}
	res, err := c.CallTool(ext.WithClient(ctx, acceptingClient{}), &ext.ToolCall{Name: call.tool, Arguments: json.RawMessage(call.args)})
	if err != nil {
		return fmt.Errorf("call %s: %w", call.tool, err)
	}
	if res.IsError {
		return fmt.Errorf("call %s: the tool answered with an error", call.tool)
	}
	return nil
}

// acceptingClient is the client of the calls, as a user's MCP client behind agentpool would
// be: it accepts every elicitation with the form's defaults (SEP-1034: a client pre-fills a
// field with its schema's default, and the user accepts them here), has no roots and cannot
// sample. agentpool passes the server's request to it as it came (connpool's Peer).
type acceptingClient struct{}

func (acceptingClient) SessionID() string { return "conformance" }

func (acceptingClient) CreateMessage(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("sampling is not supported by the conformance client")
}

func (acceptingClient) Elicit(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("elicitation/create params: %w", err)
	}
	content := map[string]json.RawMessage{}
	for name, prop := range p.RequestedSchema.Properties {
		if len(prop.Default) > 0 {
			content[name] = prop.Default
		}
	}
	return json.Marshal(map[string]any{"action": "accept", "content": content})
}

func (acceptingClient) ListRoots(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"roots":[]}`), nil
}
