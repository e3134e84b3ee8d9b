package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
)

// actionEnv makes the test binary a child that tries one thing (see try) instead of
// running the tests.
const actionEnv = "SANDBOX_TEST_ACTION"

func TestMain(m *testing.M) {
	Main()
	if a, ok := os.LookupEnv(actionEnv); ok {
		if err := try(a); err != nil {
			fmt.Printf("denied: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("ok")
		os.Exit(0)
	}
	testserver.UseSandboxLauncher() // sandboxed children start as an installed agentpool's do
	os.Exit(m.Run())
}

// try does what action says: read:PATH, write:PATH, tmp (write in TMPDIR), connect:ADDR,
// mptcp:ADDR (connect with multipath TCP), uring-mptcp:ADDR (the same, its socket made
// through io_uring),
// bind:ADDR, signal:PID (signal 0), exec:PATH, unix:PATH (connect to a unix socket),
// socketpair, fds (print what each open descriptor is), ns (print the user and network
// namespaces).
func try(action string) error {
	verb, arg, _ := strings.Cut(action, ":")
	switch verb {
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "write":
		return os.WriteFile(arg, []byte("x"), 0o600)
	case "tmp":
		return os.WriteFile(filepath.Join(os.TempDir(), "f"), []byte("x"), 0o600)
	case "connect":
		c, err := net.Dial("tcp", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "bind":
		l, err := net.Listen("tcp", arg)
		if err == nil {
			l.Close()
		}
		return err
	case "signal":
		pid, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		return syscall.Kill(pid, 0)
	case "mptcp": // connect as a multipath TCP socket
		d := net.Dialer{}
		d.SetMultipathTCP(true)
		c, err := d.Dial("tcp", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "unix":
		c, err := net.Dial("unix", arg)
		if err == nil {
			c.Close()
		}
		return err
	case "socketpair":
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
		return err
	case "uring-mptcp":
		return uringMPTCP(arg)
	case "tmpdir-in-pidns": // make a private TMPDIR, say where, and live until stdin closes
		return tmpDirInPidNS()
	case "exec":
		return exec.Command(arg, "-c", "true").Run()
	case "fds": // print the open descriptors but the one reading the list
		return printFDs()
	case "ns": // print the user and network namespaces
		for _, ns := range []string{"user", "net"} {
			l, err := os.Readlink("/proc/self/ns/" + ns)
			if err != nil {
				return err
			}
			fmt.Println(l)
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", action)
}

// printFDs prints each open descriptor of this process and what it is, one a line, leaving
// out the one that reads the list.
func printFDs() error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if n == strconv.Itoa(int(d.Fd())) {
			continue
		}
		target, _ := os.Readlink("/proc/self/fd/" + n)
		fmt.Printf("%s %s\n", n, target)
	}
	return nil
}
