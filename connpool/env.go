package connpool

import (
	"os"
	"slices"
	"strings"
)

// inheritedEnv names the variables every stdio server inherits from this process: what the
// MCP reference clients pass (the TypeScript SDK's getDefaultEnvironment and the Python SDK's
// get_default_environment: HOME, LOGNAME, PATH, SHELL, TERM, USER), plus the locale, TMPDIR
// and TZ, which change how a program behaves but hold no credential.
var inheritedEnv = []string{"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"}

// serverEnv returns the environment of cfg's server: the inherited set and EnvPassthrough,
// each variable only if this process has it set, then cfg.Env, which wins. An inherited value
// starting with "()" is a shell function definition (the Shellshock shape) and is left out,
// as the reference clients do; a variable the user passes through by name is passed as it is.
func serverEnv(cfg ServerConfig) []string {
	vars := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok && !strings.HasPrefix(v, "()") {
			vars[k] = v
		}
	}
	for _, k := range cfg.EnvPassthrough {
		if v, ok := os.LookupEnv(k); ok {
			vars[k] = v
		}
	}
	for k, v := range cfg.Env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}
