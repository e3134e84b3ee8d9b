package skill

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentpool/agentpool/ext"
	"github.com/agentpool/agentpool/fswatch"
)

// startWatch watches every root (recursively, including roots that do not exist yet) and
// rescans on each debounced batch of changes. Symlinked folders are followed only where
// discovery follows them (watchSkip), so a link such as etcdir -> /etc inside a skill adds no
// watch outside it.
func (m *Manager) startWatch() error {
	var roots []string
	for _, r := range m.roots {
		// fswatch refuses a root that is a file; discovery already reported it.
		if info, err := os.Stat(r); err == nil && !info.IsDir() {
			continue
		}
		roots = append(roots, r)
	}
	depth := m.opts.MaxDepth
	if depth <= 0 {
		depth = DefaultMaxDepth
	}
	folders := m.opts.MaxFolders
	if folders <= 0 {
		folders = DefaultMaxFolders
	}
	// No more folders watched than discovery reads: MaxFolders per root.
	w, err := fswatch.New(roots, &fswatch.Options{Debounce: m.opts.Debounce, MaxDepth: depth, Logger: m.log,
		Skip: watchSkip(roots, m.opts.Confine), MaxDirs: folders}, m.onFiles)
	if err != nil {
		return fmt.Errorf("skill manager %q: watch: %w", m.name, err)
	}
	m.watcher = w
	return nil
}

// watchSkip returns the watcher's Skip rule for roots: the folders discovery never enters, and a
// symlinked folder that discovery does not follow (linkStaysInside, and with confine set, one
// leading outside confine). A skipped folder is not watched, nor anything below it.
func watchSkip(roots []string, confine string) func(string) bool {
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			abs = append(abs, a)
		}
	}
	if confine != "" {
		if real, err := realPath(confine); err == nil {
			confine = real
		} else {
			confine = filepath.Clean(confine)
		}
	}
	return func(p string) bool {
		if skipped[filepath.Base(p)] {
			return true
		}
		li, err := os.Lstat(p)
		if err != nil || li.Mode()&fs.ModeSymlink == 0 {
			return false
		}
		if confine != "" {
			if real, err := realPath(p); err != nil || !within(real, confine) {
				return true
			}
		}
		return !linkStaysInside(p, abs)
	}
}

// linkStaysInside applies discovery's rule (walker.descend) to link, a symlinked folder found
// under one of roots: inside a skill (a folder from link's parent up to the root holding a
// SKILL.md) it must lead inside that skill's folder; elsewhere inside the root, or to a skill
// folder.
func linkStaysInside(link string, roots []string) bool {
	root := ""
	for _, r := range roots {
		if within(link, r) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" || link == root {
		return link == root
	}
	real, err := realPath(link)
	if err != nil {
		return false
	}
	for d := filepath.Dir(link); within(d, root); d = filepath.Dir(d) {
		if holdsSkillFile(d) {
			skillReal, err := realPath(d)
			return err == nil && within(real, skillReal)
		}
		if d == root {
			break
		}
	}
	rootReal, err := realPath(root)
	return err == nil && (within(real, rootReal) || holdsSkillFile(real))
}

// onFiles runs on the watcher's goroutine after a burst of file events.
func (m *Manager) onFiles(changed []string) {
	if m.closed.Load() {
		return
	}
	m.scanMu.Lock()
	defer m.scanMu.Unlock()
	m.scanAll(changed)
}

// emitChanges compares two states and emits one event per kind affected:
//   - skills_changed when a skill appeared, went away or was read again (SourceURI its
//     SKILL.md when only one skill is concerned);
//   - resources_changed for the same reasons, for any file changed inside a skill folder and
//     for each skill under a changed folder holding skill folders (an overflow's rescan): one
//     event per URI touched (changedURIs), each a SourceURI; past maxURIEvents one per
//     skill touched naming its folder ("skill://<name>/", every URI under it), and past
//     maxURIEvents skills one naming "skill://" (every skill);
//   - commands_changed when the list of commands (names, descriptions, argument hints) changed;
//   - tools_changed when load_skill appeared or went away, or a skill's MCP servers changed.
func (m *Manager) emitChanges(old, cur *state, changed []string) {
	skillsHit := map[string]bool{}
	for name, s := range cur.byName {
		if o := old.byName[name]; o != s {
			skillsHit[name] = true
		}
	}
	for name := range old.byName {
		if cur.byName[name] == nil {
			skillsHit[name] = true
		}
	}
	// Files changed inside skill folders, by skill.
	filesHit := map[string][]string{}
	for _, p := range leaves(changed) {
		for _, st := range []*state{cur, old} {
			for _, s := range st.skills {
				if within(p, s.Dir) || within(p, s.realDir) {
					filesHit[s.Name] = appendOnce(filesHit[s.Name], p)
				}
			}
		}
	}
	// Skills under a changed folder that holds their folders: a root walked again after the
	// watcher's queue overflowed, where any file of theirs may have changed unseen.
	foldersHit := map[string]bool{}
	for _, p := range changed {
		p = filepath.Clean(p)
		for _, st := range []*state{cur, old} {
			for _, s := range st.skills {
				if p != s.Dir && within(s.Dir, p) {
					foldersHit[s.Name] = true
				}
			}
		}
	}
	resHit := map[string]bool{}
	for _, hit := range []map[string]bool{skillsHit, foldersHit} {
		for n := range hit {
			resHit[n] = true
		}
	}
	for n := range filesHit {
		resHit[n] = true
	}

	emit := func(kind ext.ChangeKind, uri string) {
		m.Emit(ext.ChangeEvent{Capability: m.name, Kind: kind, SourceURI: uri})
	}
	if len(skillsHit) > 0 {
		uri := ""
		if len(skillsHit) == 1 {
			for n := range skillsHit {
				uri = uriBase(n) + "/SKILL.md"
			}
		}
		emit(ext.SkillsChanged, uri)
	}
	if len(resHit) > 0 {
		uris := changedURIs(resHit, skillsHit, foldersHit, filesHit, cur, old)
		if len(uris) > maxURIEvents {
			uris = nil
			for n := range resHit {
				uris = append(uris, uriBase(n)+"/")
			}
			if len(uris) > maxURIEvents {
				uris = []string{"skill://"}
			}
			slices.Sort(uris)
		}
		for _, uri := range uris {
			emit(ext.ResourcesChanged, uri)
		}
	}
	if !sameCommands(commandEntries(old.skills), commandEntries(cur.skills)) {
		emit(ext.CommandsChanged, "")
	}
	toolsChanged := offersLoadSkill(old.skills) != offersLoadSkill(cur.skills)
	for n := range skillsHit {
		o, c := old.byName[n], cur.byName[n]
		if (o != nil && len(o.Servers) > 0 || c != nil && len(c.Servers) > 0) && (o == nil || c == nil || fingerprint(o) != fingerprint(c) || !sameAllowed(o, c)) {
			toolsChanged = true
		}
	}
	if m.kids.prune(cur) {
		toolsChanged = true
	}
	// A session's servers pruned here belong to skills counted above: their event is the
	// manager's tools_changed, which each Servers passes on.
	for _, k := range m.sessionSets() {
		k.prune(cur)
	}
	if toolsChanged {
		emit(ext.ToolsChanged, "")
	}
}

// maxURIEvents bounds the resources_changed events of one batch: past it (a checkout touching
// many files) the events name prefixes, each standing for every URI under it, so that a
// subscriber of any URI touched still hears of it (ext.ChangeEvent).
const maxURIEvents = 16

// changedURIs lists, sorted, the skill:// URIs a batch touched: the SKILL.md of each skill read
// again, appeared or gone, the folder ("skill://<name>/") of each skill appeared (it may shadow
// another source's), gone or now served from another folder, the folder of each skill under a changed folder (foldersHit:
// "skill://<name>/", every URI under it), and each file changed in a skill folder (a folder,
// or a path gone, also as a prefix: folderURI).
func changedURIs(resHit, skillsHit, foldersHit map[string]bool, filesHit map[string][]string, cur, old *state) []string {
	set := map[string]bool{}
	for n := range resHit {
		if skillsHit[n] {
			set[uriBase(n)+"/SKILL.md"] = true
		}
		if o, c := old.byName[n], cur.byName[n]; (o == nil) != (c == nil) || o != nil && c != nil && (c.Dir != o.Dir || c.realDir != o.realDir) {
			set[uriBase(n)+"/"] = true // appeared, gone or moved: every file of it reads otherwise now
		}
		if foldersHit[n] {
			set[uriBase(n)+"/"] = true
		}
		for _, f := range filesHit[n] {
			set[fileURI(n, f, cur, old)] = true
			if u := folderURI(n, f, cur, old); u != "" {
				set[u] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// folderURI names a changed path p of skill n that is not a regular file now (a folder, or a
// path gone, which may have been one) as a prefix standing for every URI under it:
// skill://n/<path>/, or skill://n/ for the skill's folder itself. It is "" for a regular file.
// A folder moved or removed is reported by its own path alone, without the files it held.
func folderURI(n, p string, states ...*state) string {
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return ""
	}
	for _, st := range states {
		if s := st.byName[n]; s != nil && (p == s.Dir || p == s.realDir) {
			return uriBase(n) + "/"
		}
	}
	return fileURI(n, p, states...) + "/"
}

// fileURI names a changed file of skill n as skill://n/<path> (uriBase).
func fileURI(n, p string, states ...*state) string {
	for _, st := range states {
		if s := st.byName[n]; s != nil {
			for _, dir := range []string{s.Dir, s.realDir} {
				if rel, err := filepath.Rel(dir, p); err == nil && within(p, dir) && rel != "." {
					return uriBase(n) + "/" + filepath.ToSlash(rel)
				}
			}
		}
	}
	return uriBase(n) + "/SKILL.md"
}

// leaves returns the clean changed paths that are not a folder holding another changed path (a
// new folder is reported along with the files found in it; the files say more).
func leaves(changed []string) []string {
	clean := make([]string, len(changed))
	for i, p := range changed {
		clean[i] = filepath.Clean(p)
	}
	var out []string
	for _, p := range clean {
		inner := false
		for _, q := range clean {
			if q != p && within(q, p) {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, p)
		}
	}
	return out
}

func appendOnce(list []string, p string) []string {
	for _, x := range list {
		if x == p {
			return list
		}
	}
	return append(list, p)
}

// sameCommands compares command lists by what a client shows.
func sameCommands(a, b []ext.CommandEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || a[i].ArgumentHint != b[i].ArgumentHint || a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

// sameAllowed compares the allowed-tools of two versions of a skill.
func sameAllowed(a, b *Skill) bool {
	if a.AllowedToolsSet != b.AllowedToolsSet || len(a.AllowedTools) != len(b.AllowedTools) {
		return false
	}
	for i := range a.AllowedTools {
		if a.AllowedTools[i] != b.AllowedTools[i] {
			return false
		}
	}
	return true
}
