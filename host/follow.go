package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/fswatch"
)

// FollowOptions say which config file Follow follows and whom it tells.
type FollowOptions struct {
	// Path is the config file the host was built from. Required; a relative path is taken from
	// the working directory when Follow is called.
	Path string
	// Optional says the file is the user's own config, found rather than named: its absence
	// means an empty config rather than an error.
	Optional bool
	// Debounce is the quiet time after the last write to a followed file before the config is
	// read (an editor's save is several events); 0 means fswatch.DefaultDebounce.
	Debounce time.Duration
	// OnReload, when not nil, is called after each reload tried (applied or refused), with its
	// report, one call at a time.
	OnReload func(FollowReport)
	// Logger receives what Follow says (a refused file, each problem on its own line, at error
	// level); nil means the host's (Options.Logger).
	Logger *slog.Logger
}

// FollowReport is the outcome of one reload a Follower tried.
type FollowReport struct {
	// At is when it was tried; zero when none was.
	At time.Time
	// Trigger is what asked for it: "file" (a followed file changed) or what was passed to
	// Follower.Reload ("SIGHUP").
	Trigger string
	// File is the config file read.
	File string
	// OK is false when the file was refused (Errors say why) and the running configuration
	// kept as it was.
	OK bool
	// Errors are the file's problems, one "file:line:col: key: what" each.
	Errors []string
	// Result is what the reload changed (zero when refused).
	Result ReloadResult
}

// Follower follows a host's config file (see Host.Follow). Its methods are safe for
// concurrent use.
type Follower struct {
	h    *Host
	opts FollowOptions
	log  *slog.Logger

	mu       sync.Mutex // one reload at a time
	lastMu   sync.Mutex // guards last
	filesMu  sync.Mutex
	imports  map[string]bool // the other files followed: imports, plugin files, the plugin state
	last     FollowReport
	watcher  *fswatch.Watcher
	stopOnce sync.Once
	stopped  chan struct{}
	done     chan struct{}
	err      error
}

// Follow follows the config file opts.Path while ctx lasts: an edit of it (its folder is
// watched, so an editor's write-by-rename is seen), of a file it imports, of a plugin's files
// (marketplaces, manifests, .mcp.json files, plugin folders) or of the plugin state file
// (Options.PluginState) reads the file whole with config.Load; a file with any problem is
// refused, every problem logged at error level and reported, and nothing changes; a valid one
// is applied by Reload. What else should trigger a reload (SIGHUP) is the caller's to wire, by
// calling Follower.Reload. Follow returns once the files are watched; following ends when ctx
// ends or Close is called.
func (h *Host) Follow(ctx context.Context, opts FollowOptions) (*Follower, error) {
	if opts.Path == "" {
		return nil, errors.New("follow: no config file")
	}
	// Absolute: the watcher reports absolute paths, which a relative one would never equal.
	path, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	opts.Path = path
	if opts.Debounce == 0 {
		opts.Debounce = fswatch.DefaultDebounce
	}
	f := &Follower{h: h, opts: opts, log: opts.Logger, stopped: make(chan struct{}), done: make(chan struct{})}
	if f.log == nil {
		f.log = h.logger
	}
	w, err := fswatch.New([]string{filepath.Dir(opts.Path)}, &fswatch.Options{Debounce: opts.Debounce, MaxDepth: -1, Logger: f.log},
		func(changed []string) {
			if f.follows(changed) {
				f.Reload("file")
			}
		})
	if err != nil {
		return nil, err
	}
	f.watcher = w
	f.follow(f.withPluginFiles(h.Current().Config.Import))
	go func() {
		defer close(f.done)
		select {
		case <-ctx.Done():
			f.stopOnce.Do(func() { close(f.stopped) })
		case <-f.stopped:
		}
		f.err = f.watcher.Close()
	}()
	return f, nil
}

// Close stops following and is idempotent. It waits for a reload that a file change started;
// a reload the caller started with Reload runs to its end on the caller's goroutine, so a
// caller that stops its own triggers (its SIGHUP loop) before Close has no reload left behind.
func (f *Follower) Close() error {
	f.stopOnce.Do(func() { close(f.stopped) })
	<-f.done
	return f.err
}

// Last returns the outcome of the last reload tried (At zero when none was).
func (f *Follower) Last() FollowReport {
	f.lastMu.Lock()
	defer f.lastMu.Unlock()
	return f.last
}

// follow makes files (absolute paths, as the loader resolved them) reloads' triggers too, as
// the config file is: an edit of an imported .mcp.json changes the servers as much as one of
// the YAML. Their folders are watched from now on (a folder already watched is not watched
// twice); a file no longer followed stays watched, harmlessly.
func (f *Follower) follow(files []string) {
	f.filesMu.Lock()
	defer f.filesMu.Unlock()
	f.imports = map[string]bool{}
	for _, p := range files {
		f.imports[filepath.Clean(p)] = true
		if err := f.watcher.Add(filepath.Dir(p)); err != nil {
			f.log.Warn("config reload: cannot follow an imported file", "file", p, "err", err)
		}
	}
}

// withPluginFiles returns imports with the files the host's plugins are read from (Plugins.Files)
// and the plugins' enable state (Options.PluginState): a change of any reloads as one of the
// config does, so a plugin disabled while serving leaves every session's view and its servers
// stop.
func (f *Follower) withPluginFiles(imports []string) []string {
	files := slices.Concat(imports, f.h.Plugins().Files())
	if state := f.h.opts.PluginState; state != "" {
		files = append(files, state)
	}
	return files
}

// follows reports whether changed (paths the watcher reported) holds the config file, a
// followed file, or a folder of either (a folder is reported when an entry of it is replaced).
func (f *Follower) follows(changed []string) bool {
	f.filesMu.Lock()
	defer f.filesMu.Unlock()
	for _, p := range changed {
		if p == f.opts.Path || p == filepath.Dir(f.opts.Path) || f.imports[p] {
			return true
		}
		for im := range f.imports {
			if p == filepath.Dir(im) {
				return true
			}
		}
	}
	return false
}

// Reload reads the config file now and applies it, or refuses it (see Follow), and returns
// the report; trigger says why ("SIGHUP"). After Close it does nothing and returns the last
// report.
func (f *Follower) Reload(trigger string) FollowReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.stopped:
		return f.Last()
	default:
	}
	rep := FollowReport{At: time.Now(), Trigger: trigger, File: f.opts.Path}
	path := f.opts.Path
	next, err := config.Load(path)
	if err != nil && f.opts.Optional && removed(path) {
		next, err = &config.Config{}, nil // the user's own config removed: no config
	}
	if next != nil {
		f.follow(f.withPluginFiles(next.Import))
	} else if imports := config.ImportsOf(err); imports != nil {
		f.follow(imports) // a file it imports may be what is wrong: its fix is the next reload
	}
	if err == nil {
		for _, w := range next.Warnings {
			f.log.Warn("config: "+w, "file", path)
		}
	}
	var res ReloadResult
	if err == nil {
		res, err = f.h.Reload(context.Background(), next)
	}
	if err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		f.report(rep) // recorded before it is said, so one who reads the log finds it
		for _, line := range rep.Errors {
			f.log.Error("config reload refused: the running configuration is kept", "file", path, "trigger", trigger, "err", line)
		}
		return rep
	}
	rep.OK, rep.Result = true, res
	f.follow(f.withPluginFiles(next.Import)) // the plugins now read may have files of their own
	f.report(rep)
	for _, note := range res.AtRestart {
		f.log.Warn(note, "file", path)
	}
	f.log.Info("config reloaded", "file", path, "trigger", trigger, "added", res.Added, "removed", res.Removed,
		"changed", res.Changed, "failed", res.Failed)
	return rep
}

// report records rep as the last and tells OnReload; the caller holds f.mu.
func (f *Follower) report(rep FollowReport) {
	f.lastMu.Lock()
	f.last = rep
	f.lastMu.Unlock()
	if f.opts.OnReload != nil {
		f.opts.OnReload(rep)
	}
}

// removed reports whether the config file at path does not exist. Asked of the file itself,
// never read from Load's error: that error wraps os.ErrNotExist for a file the config imports
// that is missing too, and such a config is refused, not taken for no config.
func removed(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}
