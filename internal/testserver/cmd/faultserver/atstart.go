package main

import (
	"context"
	"flag"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// --roots-at-start: as many servers do (the reference filesystem server among them), ask the
// client for its roots as soon as it is initialized, before any call, and append
// "roots-at-start <uris>" (or "roots-at-start error: <err>") to the --log file.
var rootsAtStart = flag.Bool("roots-at-start", false, "ask the client for its roots (roots/list) once it is initialized, before any call, and log the answer")

func askAtStart(opts *mcp.ServerOptions) {
	if !*rootsAtStart {
		return
	}
	opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) {
		// Not on the handler's goroutine: the answer may come only once the client is ready.
		go func() {
			res, err := req.Session.ListRoots(context.Background(), nil)
			if err != nil {
				appendLog("roots-at-start error: " + err.Error())
				return
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			appendLog("roots-at-start " + strings.Join(uris, ","))
		}()
	}
}
