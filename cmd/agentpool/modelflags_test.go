package main

import (
	"strings"
	"testing"
)

// TestModelFlagsClearErrors: chat and acp name what is missing — the model, or (chat) the
// endpoint — and take the endpoint from $OPENAI_BASE_URL when no flag gives one.
func TestModelFlagsClearErrors(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	if _, _, err := (&modelFlags{}).open("acp", false); err == nil || !strings.Contains(err.Error(), "acp: --model is required") {
		t.Errorf("no model: %v", err)
	}
	if _, _, err := (&modelFlags{model: "m"}).open("chat", true); err == nil || !strings.Contains(err.Error(), "--base-url") {
		t.Errorf("no endpoint for chat: %v", err)
	}
	if _, u, err := (&modelFlags{model: "m"}).open("acp", false); err != nil || u != "" {
		t.Errorf("acp without an endpoint: %q, %v; want the SDK's default", u, err)
	}
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	if _, u, err := (&modelFlags{model: "m"}).open("chat", true); err != nil || u != "http://127.0.0.1:9/v1" {
		t.Errorf("endpoint from the environment: %q, %v", u, err)
	}
}

// An anthropic:<name> model whose --base-url does not parse is refused for that, without
// showing the URL's credentials.
func TestModelFlagsAnthropicBadURL(t *testing.T) {
	_, _, err := (&modelFlags{model: "anthropic:claude-test", baseURL: "http://user:sk-password@host:notaport/"}).open("chat", true)
	if err == nil || strings.Contains(err.Error(), "sk-password") || !strings.Contains(err.Error(), "chat: anthropic: base URL") {
		t.Errorf("err = %v, want chat: anthropic: base URL …, without the password", err)
	}
}
