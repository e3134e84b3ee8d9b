// Package openai adapts package agent to github.com/openai/openai-go/v3: a Model (agent.Model,
// agent.StreamingModel and agent.ReasoningStreamer) for any OpenAI-compatible chat-completions
// endpoint — OpenAI, vLLM, llama.cpp server, Ollama — and an agent.Request as chat-completions
// parameters (ChatParams, ChatTools, ChatMessages) or responses-API parameters (ResponsesParams,
// ResponsesTools, ResponsesInput) for callers that drive the SDK themselves (a view's tools from
// agent.ToolDefs, a call's result from agent.ToolMessage).
//
//	m, err := openai.New(openai.Options{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen3"})
//	if err != nil {
//		return err
//	}
//	a, err := agent.New(agent.Options{Model: m, Registry: reg, Scope: scope})
//
// The translation:
//
//   - Tools are function tools whose parameters are the MCP input schema as the server wrote
//     it; strict mode is off. Their names are the view's, which match ^[a-zA-Z0-9_-]{1,64}$
//     (view.ValidToolName), and a call the model makes under one reaches its tool through
//     View.CallTool.
//   - Instructions are one system prompt: Static, a blank line, Dynamic.
//   - The Model retries (429, 5xx, a lost connection) up to Options.MaxRetries times (default
//     2), waiting Retry-After unless it exceeds Options.MaxRetryWait (default 30 s); each retry
//     is reported to the run (agent.RetryingOf: an EventRetry), and an error after retries
//     says how many attempts were made. Errors read in one level: the model and its endpoint,
//     the status and the endpoint's message (or why it could not be reached), the attempts,
//     and what to do; the SDK's error stays reachable with errors.As. A stream is retried only before its first chunk. A 2xx
//     answer that is no chat completion is ErrMalformedResponse; a refusal is the answer's text.
//   - Reasoning a server streams beside the content (reasoning_content, or reasoning) goes to
//     StreamReasoning's thought (agent.ReasoningStreamer); it is never sent back.
//
// Tool results, per MCP content kind; what is lossy is said in the text the model sees:
//
//   - text: text. isError: the text starts with "Error: ".
//   - image (PNG, JPEG, GIF, WebP): chat, noted in the tool message and attached to one user
//     message after the step's tool messages; responses, in the function output. Other types:
//     a note.
//   - audio: chat, wav and mp3 in that user message; otherwise, and in responses, a note.
//   - embedded resource: text wrapped in <resource uri="…" mimeType="…">; an image blob as an
//     image; a PDF blob as input_file (responses only); any other blob a note of its URI, MIME
//     type and size.
//   - resource link: a line with its URI, name, title, description, MIME type and size.
//   - structured content: its JSON as text, only when the result has no text.
//   - annotations, _meta and icons of content are dropped.
//
// Rationale: docs/design/agent.md.
package openai
