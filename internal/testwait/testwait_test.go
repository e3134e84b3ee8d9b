package testwait

import (
	"os/exec"
	"sync/atomic"
	"testing"
)

func TestForReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	For(t, "the third check", func() bool { return n.Add(1) == 3 })
	if got := n.Load(); got != 3 {
		t.Errorf("cond called %d times, want 3", got)
	}
}

func TestGoneAndAlive(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatalf("Alive(%d) = false for a running process", pid)
	}
	stdin.Close()
	go cmd.Wait()
	Gone(t, pid, "cat")
	if Alive(pid) {
		t.Errorf("Alive(%d) = true after Gone", pid)
	}
}
