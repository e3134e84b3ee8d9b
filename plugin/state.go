package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentpool/agentpool/internal/regfile"
	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"
)

// ErrCorruptState is returned, wrapped with the file's path, when the state file does not parse.
var ErrCorruptState = errors.New("plugin state is corrupt")

// State is the user's choices made with `agentpool plugins enable|disable NAME`; it overrides
// the config (see Load).
type State struct {
	// Enabled maps a plugin name to on (true) or off (false); a name not in it is as the
	// config says.
	Enabled map[string]bool `json:"enabled"`
}

// stateFile is the state's JSON document.
type stateFile struct {
	Version int             `json:"version"`
	Enabled map[string]bool `json:"enabled"`
}

// maxStateSize bounds the state file: a name and a boolean a plugin, far below it.
const maxStateSize = 1 << 20

// StatePath returns the state file in agentpool's config folder (configDir,
// $XDG_CONFIG_HOME/agentpool): <configDir>/plugins.json.
func StatePath(configDir string) string {
	return filepath.Join(configDir, "plugins.json")
}

// LoadState reads the state file at path. A missing file is the zero State, no error; a file
// that does not parse is an error naming it that wraps ErrCorruptState.
func LoadState(path string) (State, error) {
	data, err := regfile.ReadFile(path, maxStateSize)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("plugin: read state %s: %w", path, err)
	}
	var f stateFile
	if err := json.Unmarshal(data, &f); err != nil {
		return State{}, fmt.Errorf("plugin: %s: %w: %v (remove or fix it, then enable or disable your plugins again)", path, ErrCorruptState, err)
	}
	return State{Enabled: f.Enabled}, nil
}

// SetEnabled records name as on or off in the state file at path: a read-modify-write under
// an exclusive lock on path+".lock", so that two processes changing two plugins at once keep
// both, written atomically (a temporary file, 0600, renamed over it) in a folder made 0700.
func SetEnabled(path, name string, on bool) error {
	if why := nameProblem(name); why != "" {
		return fmt.Errorf("plugin: %s", why)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	unlock, err := lockedfile.MutexAt(path + ".lock").Lock()
	if err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	defer unlock()
	st, err := LoadState(path)
	if err != nil {
		return err
	}
	if st.Enabled == nil {
		st.Enabled = map[string]bool{}
	}
	st.Enabled[name] = on
	data, err := json.MarshalIndent(stateFile{Version: 1, Enabled: st.Enabled}, "", "  ")
	if err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	if err := renameio.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	return nil
}
