package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/internal/testserver"
	"github.com/agentpool/agentpool/pin"
)

// Separate agentpool processes, run at once, share one pin store: listings that record drift,
// approvals and a reset. No file is left corrupt or half written, and no pin is lost: every
// tool of the servers not reset is pinned, and the changed one pinned anew or pending.
func TestPinStoreSharedByConcurrentProcesses(t *testing.T) {
	t.Parallel()
	dir, xdg := t.TempDir(), t.TempDir()
	drift := testserver.BuildDrift(t)
	servers := []string{"mail1", "mail2", "mail3"}
	var cfg strings.Builder
	cfg.WriteString("mcp_servers:\n")
	for _, s := range servers {
		fmt.Fprintf(&cfg, "  %s:\n    command: %s\n    args: [--state, %s, --pid, %s]\n    pins: block\n",
			s, drift, filepath.Join(dir, s+".state"), filepath.Join(dir, s+".pid"))
	}
	config := filepath.Join(dir, "agentpool.yaml")
	writeTestFile(t, config, cfg.String())
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+xdg)
	if out, stderr, code := runIn(t, dir, env[len(env)-2:], "--config", config, "tools", "list"); code != 0 {
		t.Fatalf("first listing: exit %d\n%s%s", code, out, stderr)
	}

	// Each server's send pinned as it was before, so that every listing finds it changed.
	store := pin.NewStore(filepath.Join(xdg, "agentpool", "pins"))
	before := pin.Tool(ext.ToolEntry{Name: "send", Description: "Send an email."})
	entries, err := store.List("")
	if err != nil || len(entries) != len(servers) {
		t.Fatalf("pin files after the first listing: %+v, %v", entries, err)
	}
	var tools []string
	for _, e := range entries {
		err := store.Update(e.Key, func(r *pin.Record) (*pin.Record, bool, error) {
			if _, ok := r.Pinned["tool/send"]; !ok {
				return nil, false, fmt.Errorf("%s pinned no send: %v", r.Server, r.Pinned)
			}
			tools = slices.Sorted(func(yield func(string) bool) {
				for id := range r.Pinned {
					if !yield(id) {
						return
					}
				}
			})
			r.Pinned["tool/send"] = before
			return r, true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	runs := [][]string{
		{"--config", config, "tools", "list"}, {"--config", config, "tools", "list"},
		{"--config", config, "pins", "approve", "mail1"}, {"--config", config, "tools", "list"},
		{"--config", config, "pins", "approve", "mail2"}, {"--config", config, "pins", "reset", "mail3"},
		{"--config", config, "tools", "list"}, {"--config", config, "pins", "approve", "mail1"},
	}
	cmds := make([]*exec.Cmd, len(runs))
	outs := make([]bytes.Buffer, len(runs))
	for i, args := range runs {
		cmds[i] = exec.Command("agentpool", args...)
		cmds[i].Dir, cmds[i].Env, cmds[i].Stdout, cmds[i].Stderr = dir, env, &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		_ = c.Wait() // tools list exits exitPartial for the tools kept out, approve 1 when nothing is pending yet
		if out := outs[i].String(); strings.Contains(out, "corrupt") || (runs[i][2] == "tools" && (c.ProcessState.ExitCode() != 0 && c.ProcessState.ExitCode() != exitPartial)) {
			t.Errorf("agentpool %s: exit %d\n%s", strings.Join(runs[i], " "), c.ProcessState.ExitCode(), out)
		}
	}

	names, err := filepath.Glob(filepath.Join(store.Dir(), "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".json") && filepath.Base(n) != ".lock" {
			t.Errorf("%s left in the pin folder", n)
		}
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), ".lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
	entries, err = store.List("")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Key, e.Err)
			continue
		}
		r := e.Record
		seen[r.Server] = true
		for _, id := range tools {
			if _, ok := r.Pinned[id]; !ok {
				t.Errorf("%s lost the pin of %s: %v", r.Server, id, r.Pinned)
			}
		}
		if r.Pinned["tool/send"].Digest == before.Digest && r.Pending["tool/send"].Digest == "" {
			t.Errorf("%s: send neither pinned anew nor pending: %+v", r.Server, r)
		}
	}
	if !seen["mail1"] || !seen["mail2"] {
		t.Errorf("pin files of %v; want mail1's and mail2's", seen)
	}
}
