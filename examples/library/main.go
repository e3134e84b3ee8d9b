// Command library runs one agent turn on agentpool as a library: a host over a folder with
// one skill and, with -server, one stdio MCP server; a session; an agent of that session; its
// events printed as they come. The model is an OpenAI-compatible endpoint with -base-url, else
// a scripted one in this file that calls one tool and answers with what it returned.
//
//	go run ./examples/library [-server /path/to/mcp-server] [-base-url URL -model NAME]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/host"
)

func main() {
	server := flag.String("server", "", "command of a stdio MCP server (its tools are server__<tool>)")
	baseURL := flag.String("base-url", "", "OpenAI-compatible endpoint; empty: the scripted model")
	modelName := flag.String("model", "", "the endpoint's model")
	prompt := flag.String("prompt", "Say hello through a tool.", "the turn's prompt")
	flag.Parse()
	if err := run(context.Background(), *server, *baseURL, *modelName, *prompt); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, server, baseURL, modelName, prompt string) error {
	dir, err := os.MkdirTemp("", "agentpool-library-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	skill := "---\nname: greeter\ndescription: Greets people warmly.\n---\nGreet the user by name.\n"
	if err := os.MkdirAll(filepath.Join(dir, "skills", "greeter"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "skills", "greeter", "SKILL.md"), []byte(skill), 0o644); err != nil {
		return err
	}
	yaml := "skills:\n  dirs: [skills]\n"
	if server != "" {
		yaml += fmt.Sprintf("mcp_servers:\n  server: {command: %q}\n", server)
	}
	cfg, err := config.Parse(filepath.Join(dir, "agentpool.yaml"), []byte(yaml))
	if err != nil {
		return err
	}

	h, err := host.Build(ctx, cfg, host.Options{})
	if err != nil {
		return err
	}
	defer h.Close(context.WithoutCancel(ctx))
	sess, err := h.OpenSession(ctx, "s1")
	if err != nil {
		return err
	}
	defer sess.Close(context.WithoutCancel(ctx))

	var model agent.Model = scripted{}
	if baseURL != "" {
		if model, err = openai.New(openai.Options{BaseURL: baseURL, Model: modelName}); err != nil {
			return err
		}
	}
	a, err := sess.NewAgent(model, agent.Options{})
	if err != nil {
		return err
	}
	for e, err := range a.Events(ctx, &agent.Input{Prompt: prompt}) {
		switch e.Kind {
		case agent.EventDelta:
			fmt.Print(e.Text)
		case agent.EventToolCall:
			fmt.Printf("[tool] %s %s (%s)\n", e.Call.Name, e.Call.Arguments, e.Origin)
		case agent.EventToolResult:
			fmt.Printf("[result] %s: %s\n", e.Call.Name, e.Result.Text())
		case agent.EventEnd:
			if err != nil {
				return err
			}
			fmt.Printf("[end] %s after %d steps: %s\n", e.End.Stop, e.End.Steps, e.End.Text)
		}
	}
	return nil
}

// scripted is the model without -base-url: it calls the server's echo tool (load_skill when
// there is no server), then answers with what the tool returned.
type scripted struct{}

func (scripted) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; last.Role == agent.RoleTool {
		return &agent.Response{Text: "The tool said: " + last.Text()}, nil
	}
	name, args := "load_skill", `{"name":"greeter"}`
	for _, t := range req.Tools {
		if strings.HasSuffix(t.Name, "__echo") {
			name, args = t.Name, `{"text":"hello from the library"}`
		}
	}
	return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "call_1", Name: name, Arguments: json.RawMessage(args)}}}, nil
}
