package command

import (
	"fmt"
	"regexp"
)

// namespaceRE is the plugin-name rule of Claude Code and Codex, lower-case kebab-case; package
// skill applies the same one to namespaced skill roots (skill.ValidNamespace).
var namespaceRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// validNamespace returns nil when ns is usable as FileOptions.Namespace, else an error naming it.
func validNamespace(ns string) error {
	if !namespaceRE.MatchString(ns) {
		return fmt.Errorf("namespace %q: must be lower-case kebab-case (a-z, 0-9, inner hyphens)", ns)
	}
	return nil
}

// qualify puts c under namespace ns: Name "<ns>:<name>", QualifiedName "file:<ns>:<name>".
func qualify(c *fileCommand, ns string) {
	if ns == "" {
		return
	}
	c.Entry.Name = ns + ":" + c.Entry.Name
	c.Entry.QualifiedName = SourceFile + ":" + c.Entry.Name
}
