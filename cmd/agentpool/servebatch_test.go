package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// procKB returns a /proc/<pid>/status field in kB (VmRSS, VmHWM).
func procKB(t *testing.T, pid int, field string) int {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("/proc/%d/status %s: %v", pid, field, err)
			}
			return n
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

// rawPost posts body to url with the headers a streamable client sends (sid when not empty,
// no version header: a client of 2025-03-26 sends none) and returns the status, the session
// header and the body.
func rawPost(t *testing.T, url, sid, body string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), data
}

// TestServeBatchBounded: a batch [initialize] of protocol 2025-03-26 (which has batches) is
// answered with an array, and the session it opens posts one batch of 30,000 tools/call: serve refuses it with -32600 naming the cap of 64 messages,
// and the process's resident memory grows by less than 50 MB (peak, from /proc).
func TestServeBatchBounded(t *testing.T) {
	t.Parallel()
	url, cmd := startServeHTTP(t, t.TempDir(), serveFixture(t)...)
	status, sid, data := rawPost(t, url, "", `[{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`)
	var answers []map[string]any
	if status != http.StatusOK || sid == "" || json.Unmarshal(data, &answers) != nil || len(answers) != 1 || answers[0]["result"] == nil {
		t.Fatalf("[initialize]: %d, session %q: %s; want an array of its one answer", status, sid, data)
	}
	if status, _, data := rawPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", status, data)
	}
	calls := make([]string, 30000)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fault__echo","arguments":{"text":"x"}}}`, i+1)
	}
	pid := cmd.Process.Pid
	before := procKB(t, pid, "VmRSS")
	status, _, data = rawPost(t, url, sid, "["+strings.Join(calls, ",")+"]")
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "at most 64") {
		t.Errorf("a batch of 30,000 calls: %d %.300s, want -32600 naming the cap of 64", status, data)
	}
	peak := procKB(t, pid, "VmHWM")
	if grew := peak - before; grew > 50<<10 {
		t.Errorf("serve's resident memory grew by %d MB (VmRSS %d kB before, VmHWM %d kB after), want under 50 MB", grew>>10, before, peak)
	}
}
