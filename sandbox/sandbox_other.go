//go:build !linux

package sandbox

import "os/exec"

// Main does nothing elsewhere than on Linux: Command never rewrites a command there.
func Main() {}

func probeKernel() Support { return Support{} }

func newNamespaces(*exec.Cmd) {}

func makesNamespaces(string) bool { return false }

func startTime(int) string { return "" }

func pidNS() string { return "" }

func ownDir(string) bool { return false }

func onlyOursToChange(string) bool { return false }
