package launch

import (
	"encoding/json"
	"fmt"
	"os"
)

// EntryArg is os.Args[1] of a process started to apply a launch; os.Args[2] is the server's
// program and os.Args[3:] its argv. Env is the environment variable that carries the launch.
const (
	EntryArg = "__agentpool-sandbox"
	Env      = "AGENTPOOL_SANDBOX_POLICY"
)

// version is Rules' format; a launch of another version is refused, so that a launcher left
// from another build of agentpool says so instead of applying rules it reads differently.
const version = 1

// Rules is what the entry point applies: paths are absolute, and one that does not exist is
// skipped.
type Rules struct {
	// V is the format's version, set by Encode.
	V int `json:"v"`
	// ABI is the Landlock ABI to apply the rules at; below 1 nothing is applied.
	ABI int `json:"abi"`
	// Read, Write and Exec list what the server may read; read and write; read and execute.
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	Exec  []string `json:"exec,omitempty"`
	// Connect confines TCP connections to Ports (ABI 4 on); binding is never allowed.
	Connect bool     `json:"connect,omitempty"`
	Ports   []uint16 `json:"ports,omitempty"`
}

// Encode returns r as Env's value.
func Encode(r Rules) (string, error) {
	r.V = version
	b, err := json.Marshal(r)
	return string(b), err
}

// decode reads Env's value.
func decode(s string) (*Rules, error) {
	var r Rules
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("bad launch: %v", err)
	}
	if r.V != version {
		return nil, fmt.Errorf("launch of format %d, this launcher reads %d: agentpool and agentpool-sandbox come from different builds", r.V, version)
	}
	return &r, nil
}

// Main applies the launch and executes the server when this process was started to (os.Args
// [1] is EntryArg, with a program after it, and Env is set), and never returns then: a failure
// exits with status 126 after one line on stderr, which the server's stderr shows. Otherwise
// it returns at once.
func Main() {
	if len(os.Args) < 4 || os.Args[1] != EntryArg {
		return
	}
	payload, ok := os.LookupEnv(Env)
	if !ok {
		return
	}
	run(payload, os.Args[2], os.Args[3:])
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "agentpool sandbox: %v\n", err)
	os.Exit(126)
}
