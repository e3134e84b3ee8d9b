package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentpool/agentpool/decl"
)

// target is what a profile knows of the server it grants to.
type target struct {
	path string   // the command's absolute path ("" if not found)
	args []string // as exec.Cmd.Args: args[0] is the name
	cwd  string
	home string
	env  []string // the server's environment, KEY=value
}

// getenv returns the server's variable k.
func (t target) getenv(k string) string {
	for _, kv := range slices.Backward(t.env) {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}

// inHome joins elems under the home folder ("" without one).
func (t target) inHome(elems ...string) string {
	if t.home == "" {
		return ""
	}
	return filepath.Join(append([]string{t.home}, elems...)...)
}

// grants are the paths a profile adds to a policy.
type grants struct{ read, write, exec []string }

// systemRead is what every server may read: the system's programs and libraries, the /etc
// files a runtime needs, what a process reads of itself and of the machine's size.
var systemRead = []string{
	"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin",
	"/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/nsswitch.conf",
	"/etc/services", "/etc/protocols", "/etc/passwd", "/etc/group", "/etc/localtime",
	"/etc/timezone", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/crypto-policies", "/etc/alternatives",
	"/etc/os-release", "/etc/mime.types",
	"/proc/self", "/proc/thread-self", "/proc/meminfo", "/proc/stat", "/proc/cpuinfo",
	"/sys/fs/cgroup", "/sys/devices/system/cpu", "/sys/kernel/mm/transparent_hugepage",
	"/dev/urandom", "/dev/random", "/dev/zero",
}

// loaders are the dynamic loaders the kernel opens (and Landlock checks for execution) to
// start a dynamically linked program.
var loaders = []string{
	"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-armhf.so.3",
	"/lib/ld-linux.so.2", "/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-aarch64.so.1",
}

// base is what every policy gets (see the package doc).
func base(t target) grants {
	g := grants{
		read:  slices.Clone(systemRead),
		write: []string{"/dev/null"},
		exec:  append(slices.Clone(loaders), "/usr/bin/env"),
	}
	if t.path != "" {
		g.exec = append(g.exec, t.path)
	}
	return g
}

// profileOf returns the profile function named by name, or for auto the one the command's
// name (or its #! line) implies.
func profileOf(name string, t target) func(target) grants {
	switch name {
	case decl.ProfileNode:
		return nodeProfile
	case decl.ProfilePython:
		return pythonProfile
	case decl.ProfileStatic:
		return staticProfile
	}
	words := []string{filepath.Base(t.path)}
	if len(t.args) > 0 {
		words = append(words, filepath.Base(t.args[0]))
	}
	words = append(words, interpreter(t.path))
	for _, w := range words {
		switch {
		case w == "node" || w == "nodejs" || w == "npx" || w == "npm":
			return nodeProfile
		case strings.HasPrefix(w, "python") || w == "uv" || w == "uvx" || w == "pipx":
			return pythonProfile
		}
	}
	return staticProfile
}

// interpreter returns the base name of the program of path's #! line ("node" for
// "#!/usr/bin/env node"), or "".
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return ""
	}
	prog := filepath.Base(fields[0])
	if prog == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				return filepath.Base(f)
			}
		}
	}
	return prog
}

// systemPrefix reports whether dir holds the system's programs: executing beneath it would
// allow a shell, so only the runtime's own binary is made executable there.
func systemPrefix(dir string) bool {
	switch dir {
	case "/", "/usr", "/usr/local", "/bin", "/usr/bin", "/usr/local/bin", "/opt", "/snap", "/snap/bin":
		return true
	}
	return false
}

// runtime adds a runtime's binary bin (any name on the server's PATH or a path) and its install
// prefix (bin's folder's parent): readable, and executable unless a system prefix; a prefix
// that would cover the home folder (the root, the home folder or a parent of it) is not added,
// nor ~/.local, shared by every program installed for the user: its runtime's own folders
// there are the profile's to add (localLib).
func (g *grants) runtime(t target, bin string) {
	path := bin
	if !filepath.IsAbs(bin) {
		p, err := lookPath(bin, t.getenv("PATH"))
		if err != nil {
			return
		}
		path = p
	}
	for _, p := range []string{path, realPath(path)} {
		g.exec = append(g.exec, p)
		prefix := filepath.Dir(filepath.Dir(p))
		switch {
		case coversHome(prefix, t.home) || t.home != "" && (prefix == t.inHome(".local") || prefix == filepath.Join(realPath(t.home), ".local")): // /bin/node, ~/bin/node, ~/.local/bin/node: the binary alone
		case systemPrefix(prefix):
			g.read = append(g.read, prefix)
		default:
			g.exec = append(g.exec, prefix)
		}
	}
}

// coversHome reports whether granting dir would grant the home folder: dir is the root, the
// home folder or one of its parents, the home folder's path as given or with its symbolic
// links followed.
func coversHome(dir, home string) bool {
	if dir == "/" {
		return true
	}
	if home == "" {
		return false
	}
	for _, h := range []string{home, realPath(home)} {
		if dir == h || strings.HasPrefix(h, dir+"/") {
			return true
		}
	}
	return false
}

// script adds the code the server runs: the command itself when it is a script (a #! line),
// else the runtime's first argument that is a file. The code of a file is the folder above its
// outermost node_modules, or else the folder of its nearest package.json or pyproject.toml,
// or else its own folder; never a folder that covers the home folder (see coversHome): the
// search stops below it, and a file whose own folder covers it is its code alone.
func (g *grants) script(t target) {
	if interpreter(t.path) != "" {
		for _, f := range []string{t.path, realPath(t.path)} {
			g.read = append(g.read, codeRoot(f, t.home))
		}
		return
	}
	if len(t.args) == 0 {
		return
	}
	for _, a := range t.args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		p := absPath(a, t.home, t.cwd)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return
		}
		for _, f := range []string{p, realPath(p)} {
			g.read = append(g.read, codeRoot(f, t.home))
		}
		return
	}
}

func codeRoot(file, home string) string {
	dir := filepath.Dir(file)
	if coversHome(dir, home) {
		return file
	}
	if i := strings.Index(dir+"/", "/node_modules/"); i >= 0 && !coversHome(dir[:i], home) {
		return dir[:i]
	}
	for d := dir; d != "/" && d != "." && !coversHome(d, home); d = filepath.Dir(d) {
		for _, marker := range []string{"package.json", "pyproject.toml"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d
			}
		}
	}
	return dir
}

// localLib returns the folders of ~/.local/lib that match pattern and exist: a runtime's
// packages installed for the user (node's global node_modules, python's pythonX.Y).
func (t target) localLib(pattern string) []string {
	if t.home == "" {
		return nil
	}
	dirs, _ := filepath.Glob(filepath.Join(t.home, ".local", "lib", pattern))
	return dirs
}

// nodeProfile: node (the command, or node on the server's PATH) and its install, the npm
// cache (written by npx), ~/.npmrc, the user's global packages (~/.local/lib/node_modules)
// when present, and the script run. npm and npx run a package's bin through sh, so for them
// sh may be executed too.
func nodeProfile(t target) grants {
	var g grants
	g.runtime(t, "node")
	if t.path != "" {
		g.runtime(t, t.path)
	}
	for _, c := range []string{t.getenv("npm_config_cache"), t.inHome(".npm")} {
		if c != "" {
			g.write = append(g.write, c)
			g.exec = append(g.exec, c)
		}
	}
	g.read = append(g.read, t.inHome(".npmrc"))
	g.exec = append(g.exec, t.localLib("node_modules")...)
	if name := filepath.Base(t.path); name == "npx" || name == "npm" {
		g.exec = append(g.exec, "/bin/sh", "/usr/bin/sh")
	}
	g.script(t)
	return g
}

// pythonProfile: the interpreter (the command, or python3 on the server's PATH) and its prefix,
// a virtual environment's base interpreter, the user's site-packages (~/.local/lib/pythonX.Y,
// when present), uv's cache (written) and its interpreters and tools, and the script run.
func pythonProfile(t target) grants {
	var g grants
	g.runtime(t, "python3")
	if t.path != "" {
		g.runtime(t, t.path)
		if home := venvHome(filepath.Dir(filepath.Dir(t.path))); home != "" {
			g.runtime(t, filepath.Join(home, "python3"))
		}
	}
	g.read = append(g.read, t.localLib("python3*")...)
	for _, c := range []string{t.getenv("UV_CACHE_DIR"), t.inHome(".cache", "uv")} {
		if c != "" {
			g.write = append(g.write, c)
			g.exec = append(g.exec, c)
		}
	}
	g.exec = append(g.exec, t.inHome(".local", "share", "uv"))
	g.script(t)
	return g
}

// venvHome returns the home key of dir/pyvenv.cfg (the base interpreter's folder), or "".
func venvHome(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "pyvenv.cfg"))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "home" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// staticProfile: the command's binary alone (base already grants it).
func staticProfile(target) grants { return grants{} }

// realPath is path with its symbolic links resolved, or path.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// lookPath finds name in the PATH list path (this process's when empty).
func lookPath(name, path string) (string, error) {
	if path == "" {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
