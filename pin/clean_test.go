package pin

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
)

// A pin file whose first line records the listing clean but whose rest was torn, extended or
// replaced is corrupt for the guard as it is for Load: block keeps every definition out with
// an error naming the file and the reset, warn serves and logs it.
func TestCleanListingOverCorruptTail(t *testing.T) {
	tools := []ext.ToolEntry{tool("a", "x", `{}`), tool("b", "y", `{"type":"object"}`)}
	for name, edit := range map[string]func(data []byte) []byte{
		"truncated": func(data []byte) []byte { return data[:len(data)-40] },
		"extended":  func(data []byte) []byte { return append(data, "garbage"...) },
		"newline":   func(data []byte) []byte { return append(data, '\n') },
		"garbage": func(data []byte) []byte {
			head, _, _ := bytes.Cut(data, []byte{'\n'})
			return append(head, "\n{garbage"...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			store := NewStore(t.TempDir())
			key := Key("user", "s", decl.Server{Command: "s"})
			p := filepath.Join(store.Dir(), key+".json")
			NewBook(store, nil, nil).Guard(key, "s", "user", Block).Tools(tools)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, cleanPrefix) {
				t.Fatalf("the pinning listing was not recorded clean:\n%.200s", data)
			}
			if err := os.WriteFile(p, edit(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Load(key); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load: %v; want ErrCorrupt", err)
			}

			var log bytes.Buffer
			book := NewBook(store, slog.New(slog.NewTextHandler(&log, nil)), nil)
			served, blocked := book.Guard(key, "s", "user", Block).Tools(tools)
			if len(served) != 0 || len(blocked) != len(tools) {
				t.Errorf("block: served %s, blocked %v; want everything kept out", names(served), blocked)
			}
			for n, err := range blocked {
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "agentpool pins reset "+key) {
					t.Errorf("block: %s kept out by %v; want ErrCorrupt naming %s and `agentpool pins reset %s`", n, err, p, key)
				}
			}

			log.Reset()
			book = NewBook(store, slog.New(slog.NewTextHandler(&log, nil)), nil)
			served, _ = book.Guard(key, "s", "user", Warn).Tools(tools)
			if names(served) != "a,b" {
				t.Errorf("warn: served %s; want a,b", names(served))
			}
			if !strings.Contains(log.String(), ErrCorrupt.Error()) || !strings.Contains(log.String(), p) {
				t.Errorf("warn: log %q does not report the corrupt file %s", log.String(), p)
			}
		})
	}
}

// A pin file whose index line does not record its size (written before it did) is served
// from its index, not its clean listings, and written again with its size by a guard.
func TestSizelessPinFileIsRewritten(t *testing.T) {
	store := NewStore(t.TempDir())
	key := Key("user", "s", decl.Server{Command: "s"})
	p := filepath.Join(store.Dir(), key+".json")
	tools := []ext.ToolEntry{tool("a", "x", `{}`)}
	NewBook(store, nil, nil).Guard(key, "s", "user", Block).Tools(tools)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	size, clean := cleanOf(data)
	listing, _, _ := strings.Cut(clean[KindTool], ":")
	if readClean(p, KindTool, listing) == nil {
		t.Fatalf("the pinning listing is not read as clean:\n%.200s", data)
	}
	old := bytes.Replace(data, fmt.Appendf(nil, `"size":%d,`, size), nil, 1)
	if err := os.WriteFile(p, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := readClean(p, KindTool, listing); r != nil {
		t.Fatalf("readClean of a file without its size: %+v; want nil", r)
	}
	if served, blocked := NewBook(store, nil, nil).Guard(key, "s", "user", Block).Tools(tools); names(served) != "a" || len(blocked) != 0 {
		t.Fatalf("served %s, blocked %v; want a", names(served), blocked)
	}
	if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, data) {
		t.Errorf("file after the listing (%v):\n%.200s\nwant it written again as:\n%.200s", err, now, data)
	}
}
