// Package examples ships agentpool's bundled example skills, so a binary can serve them
// without files on disk (for example `agentpool serve` with no skill roots configured).
//
// Each folder under skills/ is a spec-valid Agent Skill (see package skill's Validate):
// hello-world (minimal), code-review (with a references/ file) and explain (uses $ARGUMENTS,
// $1 and $2 when run as a command).
package examples

import "embed"

// Skills holds the example skills: Skills.ReadDir("skills") lists one folder per skill.
//
//go:embed skills
var Skills embed.FS
