package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// Logging (--log-format, --log-level): the libraries' logs go to stderr as text (slog's
// key=value lines) or JSON (one object a line, for log shippers). The level is --log-level
// when given; else errors only, or debug with --verbose (every failure the CLI can report it
// reports once itself, see problems.go). `serve --log-level warn` shows an upstream server's
// lost connection, reconnect and degradation; debug adds one line per tool call (session,
// server, tool, duration, outcome; never arguments or results). Nothing logged carries a
// server's env or header values (package connpool redacts what its errors would show).

// logFormats and logLevels are the values the flags take.
var (
	logFormats = []string{"text", "json"}
	logLevels  = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
)

// checkLogFlags reports a --log-format or --log-level the CLI does not know.
func (o *options) checkLogFlags() error {
	switch o.logFormat {
	case "text", "json":
	default:
		return fmt.Errorf("--log-format %q: want %s", o.logFormat, strings.Join(logFormats, " or "))
	}
	if _, ok := logLevels[strings.ToLower(o.logLevel)]; o.logLevel != "" && !ok {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	return nil
}

// cliLogger is the logger the libraries get, on stderr in --log-format at the level the
// flags say (see above).
func cliLogger(opts *options) *slog.Logger {
	level := slog.LevelError
	if opts.verbose {
		level = slog.LevelDebug
	}
	if l, ok := logLevels[strings.ToLower(opts.logLevel)]; ok {
		level = l
	}
	ho := &slog.HandlerOptions{Level: level}
	if opts.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, ho))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, ho))
}

// userOut is where a command says things to the user on stderr ("agentpool: serving MCP at
// …", config warnings): w itself, or with --log-format json a writer that turns each line
// into a JSON log record (level INFO, msg the line without its "agentpool: " prefix), so
// that a log shipper reading serve's stderr sees nothing but JSON.
func userOut(opts *options, w io.Writer) io.Writer {
	if opts.logFormat != "json" {
		return w
	}
	return &jsonLines{log: slog.New(slog.NewJSONHandler(w, nil))}
}

// jsonLines writes each line written to it as one JSON log record.
type jsonLines struct {
	mu      sync.Mutex
	log     *slog.Logger
	partial []byte // a line not ended yet
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.partial = append(j.partial, p...)
	for {
		i := bytes.IndexByte(j.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimPrefix(string(j.partial[:i]), "agentpool: ")
		j.partial = j.partial[i+1:]
		if line != "" {
			j.log.Info(line)
		}
	}
}
