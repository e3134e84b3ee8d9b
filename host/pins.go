package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
	"github.com/agentpool/agentpool/manifest"
	"github.com/agentpool/agentpool/mcpcap"
	"github.com/agentpool/agentpool/pin"
	"github.com/agentpool/agentpool/skill"
	"github.com/agentpool/agentpool/trust"
)

// PinsDir returns the pin store's folder: $XDG_CONFIG_HOME/agentpool/pins, beside the trust
// store (trust.ConfigDir).
func PinsDir() (string, error) {
	dir, err := trust.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "pins"), nil
}

// PinStore returns the user's pin store (PinsDir).
func PinStore() (*pin.Store, error) {
	dir, err := PinsDir()
	return pin.NewStore(dir), err
}

// NewPins returns the book of the user's pin store (PinsDir), its drift logged to log and
// handed to onDrift (nil: none); nil when there is no config folder.
func NewPins(log *slog.Logger, onDrift func(server string, d pin.Drift)) *pin.Book {
	dir, err := PinsDir()
	if err != nil {
		return nil
	}
	return pin.NewBook(pin.NewStore(dir), log, onDrift)
}

// NewManifests returns the manifest cache in its default folder (manifest.DefaultDir:
// $XDG_CACHE_HOME/agentpool/manifests), a corrupt file logged to log; nil when there is no
// cache folder.
func NewManifests(log *slog.Logger) *manifest.Store {
	dir, err := manifest.DefaultDir()
	if err != nil {
		return nil
	}
	return manifest.NewStore(dir, &manifest.Options{Logger: log})
}

// manifests returns the mcpcap option that caches the listings of the server name, declared
// by spec where ps says, under manifestKey: none without Options.Manifests.
func (h *Host) manifests(name string, spec decl.Server, ps pinSpec) []mcpcap.Option {
	if h.opts.Manifests == nil {
		return nil
	}
	return []mcpcap.Option{mcpcap.WithManifests(h.opts.Manifests.Entry(manifestKey(ps.Origin, name, spec), name))}
}

// manifestKey is the manifest cache's key of the server name declared at origin by spec: a
// SHA-256 of its pins' key (pin.Key) with its working folder, environment and headers, since
// each of them can pick another program or another tool set (./server, TOOLSETS=…, a
// read-only header) as much as the command does. A declaration with none of them keeps the
// pins' key. Values are hashed, never written: the key names a file.
func manifestKey(origin, name string, spec decl.Server) string {
	key := pin.Key(origin, name, spec)
	if spec.Cwd == "" && len(spec.Env) == 0 && len(spec.Headers) == 0 {
		return key
	}
	h := sha256.New()
	io.WriteString(h, key+"\x00"+spec.Cwd)
	for _, m := range []map[string]string{spec.Env, spec.Headers} {
		io.WriteString(h, "\x01")
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(m[k]), m[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PinKeys returns the pin keys (pin.Key) the current state's servers called name are pinned
// under — what a serve in this folder uses for its config's, trusted project's or plugin's
// server of that name, for each agent's, and for a skill's own server ("<skill>.<server>") —
// without repeats; none when no server has that
// name.
func (h *Host) PinKeys(name string) []string {
	st := h.Current()
	var keys []string
	add := func(spec decl.Server, ps pinSpec) {
		if k := pin.Key(ps.Origin, name, spec); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if spec, ok := st.Config.MCPServers[name]; ok {
		add(spec, pinsOf(st, name, spec))
	}
	for _, agent := range st.Config.Agents.Names() {
		if spec, ok := st.Config.Agents[agent].MCPServers[name]; ok {
			add(spec, agentPinsOf(st, spec))
		}
	}
	if st.Skills != nil {
		for _, s := range st.Skills.Skills() {
			for _, d := range s.Servers {
				if s.Name+"."+d.Name == name {
					add(expandSkillServer(d, d.Server, skillVars(st.plugins.all, st.Skills, s.Name)), skillPinsOf(st, d, false))
				}
			}
		}
	}
	return keys
}

// pinsDebounce is how long the pin store's folder is quiet before its changes are acted on.
const pinsDebounce = 100 * time.Millisecond

// watchPins follows the pin store's folder (unless Options.NoWatch), so that an approval or a
// reset made by another process reaches the guards (pin.Book.Changed), until reg closes.
func (h *Host) watchPins(reg *ext.Registry) {
	book := h.opts.Pins
	if book == nil || !h.opts.watching() {
		return
	}
	dir := book.Store().Dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.logger.Warn("pin approvals are not followed", "dir", dir, "err", err)
		return
	}
	w, err := fswatch.New([]string{dir}, &fswatch.Options{Debounce: pinsDebounce, Logger: h.logger},
		func(changed []string) { book.Changed(changed...) })
	if err != nil {
		h.logger.Warn("pin approvals are not followed", "dir", dir, "err", err)
		return
	}
	reg.OnClose(func(context.Context) error { return w.Close() })
}

// pinSpec is how a server's definitions are pinned: where it is declared (pin.Key's origin:
// "user", "plugin <name>" or the project's folder) and its policy. The zero pinSpec pins
// nothing.
type pinSpec struct {
	Origin string
	Mode   pin.Mode
}

// pinsOf returns the pin spec of the server name that st's config declares with spec: its
// own pins key, else the config's, else block for a trusted project's server and warn for
// the user's own and a plugin's.
func pinsOf(st *State, name string, spec decl.Server) pinSpec {
	origin, mode := "user", decl.PinsWarn
	if st.projectServers[name] && st.Project != nil {
		origin, mode = st.Project.Dir, decl.PinsBlock
	} else if p := st.plugins.servers[name]; p != "" {
		origin = "plugin " + p
	}
	return policyOf(st, spec, origin, mode)
}

// agentPinsOf returns the pin spec of a server an agent declares with spec: agents are the
// user's config, so it is the user's, whatever name a project's or a plugin's server shares.
func agentPinsOf(st *State, spec decl.Server) pinSpec {
	return policyOf(st, spec, "user", decl.PinsWarn)
}

// skillPinsOf returns the pin spec of a skill's own server d: pinned under the config's pins
// key, else block when project says the server is a trusted project's (as the project's
// declared servers are), else warn. The policy is the user's: a pins key in the skill's
// declaration, which a project's or a plugin's skill could write, is not read. The origin is
// the declaring file, so that two skills' servers of one name are pinned apart.
func skillPinsOf(st *State, d skill.ServerDecl, project bool) pinSpec {
	mode := decl.PinsWarn
	if project {
		mode = decl.PinsBlock
	}
	if st != nil && st.Config != nil && st.Config.Pins != "" {
		mode = string(st.Config.Pins)
	}
	return pinSpec{Origin: "skill " + d.Source, Mode: pin.Mode(mode)}
}

// policyOf returns the pin spec of a server declared at origin with spec: its own pins key,
// else the config's, else mode.
func policyOf(st *State, spec decl.Server, origin, mode string) pinSpec {
	if st.Config.Pins != "" {
		mode = string(st.Config.Pins)
	}
	if spec.Pins != "" {
		mode = spec.Pins
	}
	return pinSpec{Origin: origin, Mode: pin.Mode(mode)}
}

// pinGuard returns the mcpcap options that guard the server name, declared by spec, with
// ps: none without Options.Pins or with policy off. done, once the Cap is made (nil on
// error), has the guard re-list it on every approval.
func (h *Host) pinGuard(name string, spec decl.Server, ps pinSpec) (opts []mcpcap.Option, done func(*mcpcap.Cap)) {
	book := h.opts.Pins
	if book == nil || ps.Mode == "" || ps.Mode == pin.Off {
		return nil, func(*mcpcap.Cap) {}
	}
	g := book.Guard(pin.Key(ps.Origin, name, spec), name, ps.Origin, ps.Mode)
	return []mcpcap.Option{mcpcap.WithGuard(g)}, func(c *mcpcap.Cap) {
		if c == nil {
			_ = g.Close()
			return
		}
		g.OnChange(c.Recheck)
	}
}

// PinDrift returns what the servers' pin guards last saw that differs from their pins, by
// server (pin.Book.Drift); nil without Options.Pins.
func (h *Host) PinDrift() []pin.ServerDrift {
	if h.opts.Pins == nil {
		return nil
	}
	return h.opts.Pins.Drift()
}

// PinDriftLines says each drift of PinDrift in one line, as serve's warning does
// ("mail: tool \"send\" changed since it was pinned; review it with agentpool pins list
// mail"), drift recorded by an earlier process and not approved included; never nil.
func (h *Host) PinDriftLines() []string {
	lines := []string{}
	for _, sd := range h.PinDrift() {
		for _, d := range sd.Drift {
			lines = append(lines, sd.Server+": "+d.Line(sd.Server))
		}
	}
	return lines
}

// PinsDrifted returns how many definitions differ from their pins across the servers
// (PinDrift), as a float for a metric.
func (h *Host) PinsDrifted() float64 {
	n := 0
	for _, sd := range h.PinDrift() {
		n += len(sd.Drift)
	}
	return float64(n)
}
