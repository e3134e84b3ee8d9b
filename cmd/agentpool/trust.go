package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentpool/agentpool/cmdline"
	"github.com/agentpool/agentpool/config"
	"github.com/agentpool/agentpool/decl"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/status"
	"github.com/agentpool/agentpool/trust"
	"github.com/spf13/cobra"
)

// newTrustCmd is `agentpool trust [DIR]`: it records that the user trusts the project, after
// printing everything it would run.
func newTrustCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project (default: the working directory): use its skills, commands and agentpool.yaml",
		Long: "Prints every server the project declares (in its skills and its agentpool.yaml) and records\n" +
			"that you trust it, keyed by its real path, in $XDG_CONFIG_HOME/agentpool/trust.json.\n" +
			"A server added or changed later makes the project untrusted again until you trust it again.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The user's own config: its skills.max_folders bounds every scan of the project,
			// so the fingerprint too, and a server one of its own outranks is not used. One
			// that does not parse bounds and outranks nothing here (every run stops on it).
			user, _, _, userErr := configs(opts, "", homeDir())
			if userErr != nil {
				user = &config.Config{}
			}
			p, store, err := inspectDir(args, user.Skills.MaxFolders)
			if err != nil {
				return err
			}
			if p == nil {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing to trust: that is your home directory, whose folders are your own")
				return nil
			}
			defer p.Close(context.Background())
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "project %s\n", cell(p.Dir))
			if s := p.Summary(); s != "" {
				fmt.Fprintf(w, "holds: %s\n", s)
			} else {
				fmt.Fprintln(w, "it holds nothing yet: skills, command files and an agentpool.yaml added later are used\n"+
					"without asking again; a server added later asks again")
			}
			// A config's servers are printed as written (config.Config.Declared), never with
			// the values of the user's variables; one that cannot be read so is not printed,
			// whether the config declares it or a JSON file it imports.
			unshown := map[string]bool{}
			if p.Config != nil && len(p.Config.MCPServers) > 0 && p.Config.Declared() == nil {
				for _, name := range p.Config.MCPServers.Names() {
					unshown[p.Config.Source(name)] = true
				}
			}
			fresh := map[string]bool{} // what changed since the project was last trusted
			for _, d := range p.Verdict.New {
				fresh[d.Digest()] = true
			}
			// A project server named like one of the user's own is not used (the user's wins).
			shadowed := map[string]bool{}
			if p.Config != nil {
				for _, name := range p.Config.MCPServers.Names() {
					if _, mine := user.MCPServers[name]; mine {
						shadowed[name] = true
					}
				}
			}
			printDecls(w, p.Dir, p.Decls, fresh, unshown, p.Config, shadowed, host.ProjectSandbox(user, p.Dir))
			if err := store.Trust(p.Dir, trust.Digests(p.Decls), time.Now()); err != nil {
				return err
			}
			fmt.Fprintf(w, "trusted (recorded in %s)\n", store.Path())
			return nil
		},
	}
}

// newUntrustCmd is `agentpool untrust [DIR]`: it forgets the user's trust in the project.
func newUntrustCmd(_ *options) *cobra.Command {
	return &cobra.Command{
		Use:   "untrust [DIR]",
		Short: "Forget that a project (default: the working directory) is trusted",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			real, err := trust.RealPath(dir)
			if errors.Is(err, fs.ErrNotExist) {
				// Moved or deleted: its record is under the path it had, which must be
				// removable, not left for whatever is created there next.
				real, err = gonePath(dir)
			}
			if err != nil {
				return err
			}
			store, err := trustStore()
			if err != nil {
				return err
			}
			ok, err := store.Untrust(real)
			if err != nil {
				return err
			}
			if ok {
				fmt.Fprintf(cmd.OutOrStdout(), "project %s is no longer trusted\n", real)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "project %s was not trusted\n", real)
			}
			return nil
		},
	}
}

// gonePath is the real path a folder that no longer exists had: its parent's real path (when
// that exists) joined with its name, else its absolute path.
func gonePath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if parent, err := trust.RealPath(filepath.Dir(abs)); err == nil {
		return filepath.Join(parent, filepath.Base(abs)), nil
	}
	return abs, nil
}

// inspectDir discovers the project at args[0] (default the working directory) with every
// conventional root, and its agentpool.yaml: what `trust` fingerprints is what a run there
// would find, with the user's skills.max_folders (maxFolders) as a run's skill manager has.
func inspectDir(args []string, maxFolders int) (*host.Project, *trust.Store, error) {
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, err
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a folder", dir)
	}
	home := homeDir()
	var cfg *config.Config
	if !sameDir(dir, home) {
		if path, ok := projectConfigPath(dir); ok {
			var err error
			if cfg, err = config.Load(path); err != nil {
				return nil, nil, err
			}
		}
	}
	store, err := trustStore()
	if err != nil {
		return nil, nil, err
	}
	p, err := host.InspectProject(host.ProjectOptions{Dir: dir, HomeDir: home, DefaultRoots: true, Config: cfg, Store: store,
		MaxFolders: maxFolders, ScanAll: true})
	return p, store, err
}

// printDecls prints each server: its name, where it is declared (relative to the project) and
// what it runs, marked when it is in fresh (by digest: new or changed since the project was
// last trusted), and everything else that decides what runs or where a secret goes: env,
// env_passthrough and header names, the variables of the user's environment it reads
// (trust.Decl.Vars), a cwd other than the declaring file's folder, and the auth block. Env and header values are never printed (names only), nor a URL's query values or
// user info, nor a client secret (only the ${VAR} names it is made of): they carry secrets. The command line or URL of a server declared in
// a file of unshown (a config, or a JSON file it imports, whose servers could only be read with
// their ${VAR} references expanded) is not printed either, nor its cwd: they may hold the value
// of a variable. A server of the project's config
// (cfg) named in shadowed is marked not used: the user's own config has a server of that name.
func printDecls(w io.Writer, dir string, decls []trust.Decl, fresh map[string]bool, unshown map[string]bool, cfg *config.Config, shadowed map[string]bool, box *decl.Sandbox) {
	if len(decls) == 0 {
		fmt.Fprintln(w, "it declares no server")
		return
	}
	fmt.Fprintf(w, "it would run or connect to:\n")
	for _, d := range decls {
		where := d.Where
		if rel, err := filepath.Rel(dir, d.Where); err == nil && !strings.HasPrefix(rel, "..") {
			where = rel
		}
		what := cmdline.Join(append([]string{d.Command}, d.Args...))
		if d.URL != "" {
			what = redactURL(d.URL)
		}
		if unshown[d.Where] {
			what = "(not shown: its ${VAR} references could not be kept as written)"
		}
		mark := ""
		if fresh[d.Digest()] {
			mark = " (new or changed)"
		}
		if cfg != nil && d.Where == cfg.Path && shadowed[d.Name] {
			mark += " (not used: your own config has a server " + cell(d.Name) + ")"
		}
		fmt.Fprintf(w, "  %s (%s): %s%s\n", cell(d.Name), cell(where), cell(what), mark)
		if len(d.Env) > 0 {
			fmt.Fprintf(w, "    env: %s\n", cell(strings.Join(sortedKeys(d.Env), ", ")))
		}
		if len(d.EnvPassthrough) > 0 {
			fmt.Fprintf(w, "    passes: %s (from your environment)\n", cell(strings.Join(d.EnvPassthrough, ", ")))
		}
		if len(d.Headers) > 0 {
			fmt.Fprintf(w, "    headers: %s\n", cell(strings.Join(sortedKeys(d.Headers), ", ")))
		}
		if vars := d.Vars(); len(vars) > 0 && !unshown[d.Where] {
			fmt.Fprintf(w, "    reads your variables: %s\n", cell(strings.Join(vars, ", ")))
		}
		if d.Cwd != "" && d.Cwd != filepath.Dir(d.Where) && !unshown[d.Where] {
			cwd := d.Cwd
			if rel, err := filepath.Rel(dir, cwd); err == nil && !strings.HasPrefix(rel, "..") {
				cwd = rel
			}
			fmt.Fprintf(w, "    cwd: %s\n", cell(cwd))
		}
		if d.URL == "" {
			printSandbox(w, d, box, unshown[d.Where])
		}
		if d.Auth != nil {
			printAuth(w, d.Auth, unshown[d.Where])
		}
	}
}

// printSandbox prints the sandbox d's stdio server runs in: its own, else the project's
// default box, with what the kernel applies of it. With hidden (d could only be read expanded)
// its own sandbox's paths are not printed: they may hold the value of a variable.
func printSandbox(w io.Writer, d trust.Decl, box *decl.Sandbox, hidden bool) {
	whose := ""
	d.Sandbox = host.ProjectDeclSandbox(box, d)
	if d.Sandbox == nil && box != nil {
		whose = "the project's default: "
		d.Sandbox = box
		hidden = false
	}
	b := status.SandboxOf(d.Name, d.Sandbox)
	switch {
	case b.Sandbox == nil:
		fmt.Fprintln(w, "    sandbox: off")
	case hidden:
		fmt.Fprintf(w, "    sandbox: (not shown: its ${VAR} references could not be kept as written) (%s)\n", cell(cmp.Or(b.Refused, b.Applied)))
	default:
		fmt.Fprintf(w, "    sandbox: %s%s (%s)\n", whose, cell(b.Text), cell(cmp.Or(b.Refused, b.Applied)))
	}
	switch {
	case b.Dropped != "" && hidden:
		fmt.Fprintln(w, "    warning: its sandbox asks for more than the default your config gives it: refused (not shown)")
	case b.Dropped != "":
		fmt.Fprintf(w, "    warning: %s\n", cell(b.Dropped))
	}
}

// printAuth prints a server's auth block: whom agentpool authenticates as and with what, each
// sub-key as written. A secret (client_secret) is shown by the ${VAR} references it is made
// of, never by value; with hidden (a declaration that could only be read expanded) only the
// grant is shown.
func printAuth(w io.Writer, a *decl.Auth, hidden bool) {
	fmt.Fprintf(w, "    auth: %s (agentpool sends these credentials to the token endpoint the server's metadata names)\n", cell(a.Type))
	if hidden {
		fmt.Fprintln(w, "      (not shown: its ${VAR} references could not be kept as written)")
		return
	}
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(w, "      %s: %s\n", key, cell(value))
		}
	}
	line("client_id", a.ClientID)
	line("client_secret", secretRefs(a.ClientSecret))
	line("token_endpoint_auth", a.TokenEndpointAuth)
	line("private_key_file", a.PrivateKeyFile)
	line("scopes", strings.Join(a.Scopes, ", "))
	if a.RedirectPort != 0 {
		line("redirect_port", strconv.Itoa(a.RedirectPort))
	}
	if a.ClientMetadataURL != "" {
		line("client_metadata_url", redactURL(a.ClientMetadataURL))
	}
}

// varRef matches the start of a ${VAR} or ${VAR:-default} reference, capturing the name.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`)

// secretRefs describes a secret as written without its value: "from ${A}" naming every
// variable it refers to, or that a value is written in the file itself; "" for none.
func secretRefs(s string) string {
	if s == "" {
		return ""
	}
	var refs []string
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		refs = append(refs, "${"+m[1]+"}")
	}
	if len(refs) == 0 {
		return "(a value written in the file, not shown)"
	}
	return "from " + strings.Join(refs, ", ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// redactURL returns u without user info and with every query value replaced by "…".
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User = nil
	q := p.Query()
	for k := range q {
		q[k] = []string{"…"}
	}
	// The path as written (decoded), so that a ${VAR} reference in it reads as in the file.
	out := p.Scheme + "://" + p.Host + p.Path
	if len(q) > 0 {
		out += "?" + q.Encode()
	}
	return out
}

// reportUntrusted says, once, on w, that the project's sources were skipped and how to use
// them; it says nothing when there is no project, it is trusted, or it holds nothing.
func reportUntrusted(w io.Writer, p *host.Project) {
	if p != nil && p.StoreErr != nil {
		fmt.Fprintf(w, "agentpool: %v\n", p.StoreErr)
	}
	if p != nil && p.Trusted() {
		for _, name := range p.Shadowed {
			fmt.Fprintf(w, "agentpool: project %s: agentpool.yaml's mcp_servers.%s is not used: your own config has a server %s\n",
				cell(p.Dir), cell(name), cell(name))
		}
	}
	if p == nil || p.Trusted() || p.Empty() {
		return
	}
	for _, u := range p.Unscanned {
		fmt.Fprintf(w, "agentpool: project %s: agentpool.yaml's %s: not scanned: outside the project, which is not trusted\n", cell(p.Dir), cell(u))
	}
	for _, u := range p.Unread {
		fmt.Fprintf(w, "agentpool: project %s: agentpool.yaml's import %s: not read: the project is not trusted\n", cell(p.Dir), cell(u))
	}
	state := "is not trusted"
	if p.Verdict.Status == trust.Changed {
		var names []string
		for _, d := range p.Verdict.New {
			names = append(names, d.Name)
		}
		state = fmt.Sprintf("changed since you trusted it (new or changed: %s)", strings.Join(names, ", "))
	}
	// One line, whatever names the project chose: cell escapes control characters.
	fmt.Fprintf(w, "agentpool: project %s %s: skipped %s; run \"agentpool trust\" to use them, or pass --trust-project for this run\n",
		cell(p.Dir), cell(state), cell(p.Summary()))
}
