package proctune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cgroup is found as Go's runtime finds it, in the layouts a server meets: cgroup v2 seen
// from the host (a service's path under the mount's root) and from inside a container (the
// namespace's root), v1 with the cpu controller beside others, and a cgroup outside the
// namespace, which no mount reaches.
func TestCgroupLimit(t *testing.T) {
	for _, c := range []struct {
		name      string
		cgroup    string
		mountinfo string
		files     map[string]string // below the test's directory, written as "MNT"
		limit     float64           // 0: none
	}{
		{
			name:      "v2 service",
			cgroup:    "0::/system.slice/agentpool.service\n",
			mountinfo: "30 25 0:26 / MNT/v2 rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
			files:     map[string]string{"v2/system.slice/agentpool.service/cpu.max": "150000 100000\n"},
			limit:     1.5,
		},
		{
			name:      "v2 container",
			cgroup:    "0::/\n",
			mountinfo: "22 21 0:20 / /proc rw - proc proc rw\n735 734 0:31 / MNT/v2 ro,nosuid - cgroup2 cgroup rw\n",
			files:     map[string]string{"v2/cpu.max": "100000 100000\n"},
			limit:     1,
		},
		{
			name:      "v2 without a limit",
			cgroup:    "0::/\n",
			mountinfo: "735 734 0:31 / MNT/v2 ro,nosuid - cgroup2 cgroup rw\n",
			files:     map[string]string{"v2/cpu.max": "max 100000\n"},
		},
		{
			name:      "v1",
			cgroup:    "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n",
			mountinfo: "40 30 0:37 / MNT/unified rw - cgroup2 cgroup2 rw\n31 30 0:28 /docker/abc MNT/cpu\\040acct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n",
			files:     map[string]string{"cpu acct/cpu.cfs_quota_us": "50000\n", "cpu acct/cpu.cfs_period_us": "100000\n"},
			limit:     0.5,
		},
		{
			name:      "v1 without a limit",
			cgroup:    "2:cpu:/\n",
			mountinfo: "31 30 0:28 / MNT/cpu rw,relatime - cgroup cgroup rw,cpu\n",
			files:     map[string]string{"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"},
		},
		{
			name:      "outside the namespace",
			cgroup:    "0::/../init\n",
			mountinfo: "735 734 0:31 / MNT/v2 ro,nosuid - cgroup2 cgroup rw\n",
			files:     map[string]string{"v2/cpu.max": "100000 100000\n"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				write(t, filepath.Join(dir, name), text)
			}
			write(t, filepath.Join(dir, "cgroup"), c.cgroup)
			write(t, filepath.Join(dir, "mountinfo"), strings.ReplaceAll(c.mountinfo, "MNT", dir))
			limit, ok := cgroupLimitFrom(filepath.Join(dir, "cgroup"), filepath.Join(dir, "mountinfo"))()
			if ok != (c.limit > 0) || limit != c.limit {
				t.Errorf("limit %v (%v), want %v", limit, ok, c.limit)
			}
		})
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
