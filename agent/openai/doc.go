// Package openai adapts package agent to github.com/openai/openai-go/v3 (issue 12, item 4):
// an agent.Request's tools, instructions and messages as chat-completions parameters
// (ChatParams, ChatTools, ChatMessages) and as responses-API parameters (ResponsesParams,
// ResponsesTools, ResponsesInput), and a Model — agent.Model and agent.StreamingModel — for
// any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, llama.cpp server, Ollama.
// A caller that drives the SDK itself, without agent.Run, takes a view's tools with
// agent.ToolDefs and a call's result (View.CallTool) with agent.ToolMessage. It imports the SDK, agent,
// view and ext; agent knows nothing of it.
//
// Decisions taken where the issue is silent:
//
//   - Tools are function tools whose parameters are the MCP input schema passed through
//     ($defs, $ref, enums, nested objects as the server wrote them; a tool without
//     arguments keeps {"type":"object"}). Strict mode is off: MCP schemas are not written
//     for it (it wants every property required and additionalProperties false).
//   - Instructions are one system prompt (the chat API's system message, the responses API's
//     instructions): Static, a blank line, Dynamic. Static first keeps the prompt's prefix
//     byte-stable, which is what OpenAI's automatic prefix caching (and vLLM's and llama.cpp's
//     prefix reuse) needs; one message rather than two because several chat templates of
//     local models reject a second system message.
//   - Tool results, per MCP content kind. What is lossy is said in the text the model sees,
//     so it knows something was there:
//   - text: text.
//   - image: the chat API's tool message takes text only, so the image is noted in it and
//     attached, as an image_url data URL, to one user message that follows the step's tool
//     messages ("Attachments of the tool results above", each naming its call). The
//     responses API takes it in the function_call_output itself (input_image). Only PNG,
//     JPEG, GIF and WebP, the types OpenAI takes (another fails the whole request, and every
//     later one with it in the history): another type is a note.
//   - audio: chat: wav and mp3 go as input_audio in that same user message; other formats
//     are a note only. Responses: a note only (a function output takes no audio).
//   - embedded resource: text is sent wrapped in <resource uri="…" mimeType="…">; an image
//     blob as an image; a PDF blob as input_file (responses only); any other blob is a note
//     of its URI, MIME type and size, and the model can read_resource it.
//   - resource link: a line with its URI (what read_resource takes), name, title,
//     description, MIME type and size.
//   - structured content: its JSON as text, only when the result has no text (MCP asks
//     tools to give it as text too; sending both would say it twice).
//   - isError: neither API has the flag, so the text starts with "Error: ".
//     Annotations, _meta and icons of content are dropped.
//   - The Model retries through the SDK: what it retries (a 429, a 5xx, a lost
//     connection, …) is retried up to MaxRetries times (default 2), waiting what
//     Retry-After-Ms or Retry-After says, or an exponential backoff; a Retry-After longer
//     than MaxRetryWait (default 30s) is not waited for: the 429 is returned, with the
//     endpoint's message. A 2xx answer that is not a
//     chat completion (not JSON, no choices, a tool call without a name) is
//     ErrMalformedResponse, naming the model and endpoint. Tool-call arguments that are not
//     JSON are passed on as a JSON string, so the agent tells the model they are not an
//     object instead of ending the run.
//   - A refusal (its own field, content null) is the answer's text, streamed or not.
//   - Stream reads the SSE chunks of the first choice: text pieces go to the callback as they
//     come; tool calls are assembled by their index (the id from the delta that has one, the
//     name and arguments concatenated), in index order. A delta that announces a new id at an
//     index already in use starts another call there (Ollama gives every call of a parallel
//     batch index 0).
//   - An empty APIKey leaves the SDK's default ($OPENAI_API_KEY, else no Authorization
//     header), which local servers ignore.
package openai
