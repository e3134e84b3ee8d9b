package main

import (
	"cmp"
	"errors"
	"os"
	"strings"

	"github.com/agentpool/agentpool/agent"
	"github.com/agentpool/agentpool/agent/anthropic"
	"github.com/agentpool/agentpool/agent/openai"
	"github.com/spf13/cobra"
)

// modelFlags are the flags of the commands that run an agent on an OpenAI-compatible
// chat-completions endpoint or Anthropic's Messages API (chat, acp).
type modelFlags struct{ baseURL, model, apiKey string }

// add registers --base-url, --model and --api-key on cmd.
func (m *modelFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&m.baseURL, "base-url", "", "the endpoint, up to and without /chat/completions (default $OPENAI_BASE_URL; for anthropic:<name>, $ANTHROPIC_BASE_URL, else Anthropic's)")
	f.StringVar(&m.model, "model", "", "the model's name at the endpoint (required); anthropic:<name> for Anthropic's Messages API")
	// No default shown: the key must never be printed, help included.
	f.StringVar(&m.apiKey, "api-key", "", "the endpoint's API key (default $OPENAI_API_KEY; for anthropic:<name>, $ANTHROPIC_API_KEY)")
}

// open returns the model and its endpoint: --base-url, else $OPENAI_BASE_URL, else (when
// needURL is false) "" for the OpenAI SDK's own default; the key is --api-key, else
// $OPENAI_API_KEY. A --model of anthropic:<name> is Anthropic's Messages API instead:
// --base-url, else $ANTHROPIC_BASE_URL, else Anthropic's; --api-key, else the SDK's
// ($ANTHROPIC_API_KEY). what names the command in errors.
func (m *modelFlags) open(what string, needURL bool) (agent.Model, string, error) {
	if m.model == "" {
		return nil, "", errors.New(what + ": --model is required")
	}
	if name, ok := strings.CutPrefix(m.model, "anthropic:"); ok {
		baseURL := cmp.Or(m.baseURL, os.Getenv("ANTHROPIC_BASE_URL"), "https://api.anthropic.com")
		model, err := anthropic.New(anthropic.Options{BaseURL: baseURL, Model: name, APIKey: m.apiKey})
		switch {
		case err != nil && name == "":
			return nil, "", errors.New(what + ": --model anthropic: needs a model name after the colon")
		case err != nil:
			return nil, "", errors.New(what + ": " + err.Error())
		}
		return model, baseURL, nil
	}
	baseURL := cmp.Or(m.baseURL, os.Getenv("OPENAI_BASE_URL"))
	if baseURL == "" && needURL {
		return nil, "", errors.New(what + ": no endpoint: give --base-url or set $OPENAI_BASE_URL")
	}
	model, err := openai.New(openai.Options{BaseURL: baseURL, Model: m.model, APIKey: cmp.Or(m.apiKey, os.Getenv("OPENAI_API_KEY"))})
	return model, baseURL, err
}
