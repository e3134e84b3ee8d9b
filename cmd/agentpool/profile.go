package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
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

// memProfiler returns the function that writes a heap profile to the file $AGENTPOOL_MEMPROFILE
// names, when it names one: run calls it at the first signal, before the shutdown releases the
// sessions (what a server holds is the point), and at exit. Only its first call writes; it is
// safe for concurrent use. `go tool pprof -sample_index=inuse_space agentpool FILE`.
func memProfiler() (write func()) {
	path := os.Getenv("AGENTPOOL_MEMPROFILE")
	if path == "" {
		return func() {}
	}
	runtime.MemProfileRate = 4096 // fine enough to see what one idle session holds
	return sync.OnceFunc(func() {
		f, err := os.Create(path)
		if err == nil {
			runtime.GC() // the profile's in-use figures are as of the last collection
			err = pprof.Lookup("heap").WriteTo(f, 0)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentpool: AGENTPOOL_MEMPROFILE:", err)
		}
	})
}
