package main

import (
	"testing"
)

// TestChatRetryLine: a model answering 429 is retried with a line on the terminal for each
// retry, naming what failed, the wait and the attempt; the error after the last attempt says
// it retried, in one level.
func TestChatRetryLine(t *testing.T) {
	noChatLeaks(t)
	f := newChatFixture(t)
	c := startChatTerm(t, f.env, f.args()...)
	c.expect("> ")
	c.send("rate me")
	c.expect("model: 429 Too Many Requests: scripted 429; retrying in 1ms (attempt 2 of 3)")
	c.expect("model: 429 Too Many Requests: scripted 429; retrying in 1ms (attempt 3 of 3)")
	// One level: the model and its endpoint, what it said, the attempts, what to do.
	c.expect(`error: model "local-model" at ` + f.model.URL + ": 429 Too Many Requests: scripted 429 (after 3 attempts); the endpoint is rate-limiting")
	c.expect("> ")
	c.send("hello")
	c.expect("ok: hello")
}
