//go:build linux

package proctune

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cgroupLimit returns a reading of the process's CPU limit, in processors, as Go's runtime
// reads it for its default GOMAXPROCS: the quota over the period of the cgroup that
// /proc/self/cgroup names for the cpu controller (cpu.max in cgroup v2, cpu.cfs_quota_us and
// cpu.cfs_period_us in v1), where /proc/self/mountinfo mounts it. The cgroup is found once;
// each reading reads its files again, since a limit may change while the process runs.
// Where no cgroup is found, a reading has no limit.
func cgroupLimit() func() (float64, bool) {
	return cgroupLimitFrom("/proc/self/cgroup", "/proc/self/mountinfo")
}

// cgroupLimitFrom is cgroupLimit with the files of /proc/self/cgroup and /proc/self/mountinfo
// given.
func cgroupLimitFrom(cgroupFile, mountinfoFile string) func() (float64, bool) {
	dir, v2, ok := cpuCgroup(cgroupFile, mountinfoFile)
	switch {
	case !ok:
		return noLimit
	case v2:
		return func() (float64, bool) { return readCPUMax(filepath.Join(dir, "cpu.max")) }
	default:
		return func() (float64, bool) { return readCFS(dir) }
	}
}

// cpuCgroup is the directory of the process's cpu cgroup, from the files of /proc/self/cgroup
// and /proc/self/mountinfo, and whether it is of cgroup v2. A v1 hierarchy with the cpu
// controller wins over v2, as the kernel mounts a controller in one of them only.
func cpuCgroup(cgroupFile, mountinfoFile string) (dir string, v2, ok bool) {
	b, err := os.ReadFile(cgroupFile)
	if err != nil {
		return "", false, false
	}
	var cg string
	for line := range strings.Lines(string(b)) {
		// hierarchy-ID:controller-list:cgroup-path
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), ":", 3)
		if len(f) != 3 {
			continue
		}
		if slices.Contains(strings.Split(f[1], ","), "cpu") {
			cg, v2, ok = f[2], false, true
			break
		}
		if f[0] == "0" && f[1] == "" {
			cg, v2, ok = f[2], true, true
		}
	}
	if !ok {
		return "", false, false
	}
	if b, err = os.ReadFile(mountinfoFile); err != nil {
		return "", false, false
	}
	for line := range strings.Lines(string(b)) {
		// ID parent major:minor root mount-point options [optional...] - type source super-options
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if sep < 6 || len(f) < sep+4 {
			continue
		}
		root, mnt, fstype, opts := unescape(f[3]), unescape(f[4]), f[sep+1], f[sep+3]
		if v2 && fstype != "cgroup2" ||
			!v2 && (fstype != "cgroup" || !slices.Contains(strings.Split(opts, ","), "cpu")) {
			continue
		}
		if rel, in := within(cg, root); in {
			return mnt + rel, v2, true
		}
	}
	return "", false, false
}

// within is cgroup's path below a mount's root, and whether the mount reaches it: not when
// cgroup is outside the root, nor above the process's cgroup namespace ("/..").
func within(cgroup, root string) (rel string, ok bool) {
	switch {
	case root == "/":
		rel = strings.TrimSuffix(cgroup, "/")
	case cgroup == root || strings.HasPrefix(cgroup, root+"/"):
		rel = cgroup[len(root):]
	default:
		return "", false
	}
	if rel == "/.." || strings.HasPrefix(rel, "/../") {
		return "", false
	}
	return rel, true
}

// unescape undoes mountinfo's octal escapes (\040 for a space) in a path.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readCPUMax reads cgroup v2's cpu.max: "max period" for no limit, else "quota period".
func readCPUMax(file string) (float64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	quota, period, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if !ok || quota == "max" {
		return 0, false
	}
	return ratio(quota, period)
}

// readCFS reads cgroup v1's quota (-1 for no limit) and period in dir.
func readCFS(dir string) (float64, bool) {
	quota, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	if err != nil {
		return 0, false
	}
	period, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err != nil {
		return 0, false
	}
	return ratio(strings.TrimSpace(string(quota)), strings.TrimSpace(string(period)))
}

// ratio is quota over period, for a positive quota and period.
func ratio(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}
