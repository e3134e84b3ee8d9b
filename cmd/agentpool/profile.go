package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
)

// startCPUProfile writes a CPU profile of the whole run to the file $AGENTPOOL_CPUPROFILE names,
// when it names one, and returns the function that ends it (at exit, a signal's included, and
// before an exit that skips deferred calls). That function is idempotent and safe for
// concurrent use; it returns once the profile is written. It is how the process users run is
// profiled: `go tool pprof agentpool FILE`.
func startCPUProfile() (stop func()) {
	path := os.Getenv("AGENTPOOL_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentpool: AGENTPOOL_CPUPROFILE:", err)
		return func() {}
	}
	return sync.OnceFunc(func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	})
}
