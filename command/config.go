package command

// Config is the commands section of the config file: where command files are found. Its YAML
// keys are its own; package config decodes it, expanding ${VAR} in the fields tagged
// config:"expand" and resolving those tagged config:"path" against the config file's folder.
// It has nothing to validate. Command files are watched as skills are (the skills section's
// watch and debounce), since one host follows both.
type Config struct {
	// Dirs are command roots, before DefaultRoots.
	Dirs []string `yaml:"dirs" config:"expand,path"`
}
