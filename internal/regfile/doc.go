// Package regfile opens and reads files that come from places agentpool does not control
// (configuration files, SKILL.md, mcp.json, command files, files read through skill://) only when
// they are regular files, and only up to a size cap (DESIGN.md "Safety rules": no input may hang
// the process or eat its memory). It imports the standard library only.
//
//	data, err := regfile.ReadFile(path, 1<<20)
//	switch {
//	case errors.Is(err, regfile.ErrNotRegular): // a pipe, device, socket or folder
//	case errors.Is(err, regfile.ErrTooLarge):
//	}
//
// Every open is done the same way, so that a file swapped between a check and the open cannot
// slip through:
//
//  1. stat the path, and refuse what is not a regular file without opening it at all (opening
//     some devices has effects);
//  2. open it read-only with O_NONBLOCK and O_NOCTTY, so that a named pipe swapped in after the
//     stat does not block the open;
//  3. fstat the opened descriptor and refuse anything that is not a regular file: the check
//     that cannot be raced;
//  4. read at most the cap, refusing a larger file (by its size, then by the bytes read).
//
// Errors are *fs.PathError values naming the path and what the file is ("open /x/pipe: is a
// named pipe, not a regular file"). A file of a pseudo file system (/proc) is read to its end,
// the cap holding on the bytes read. A regular file whose reads block (a stalled FUSE or network
// mount) is not caught. Without O_NONBLOCK (Windows) step 2 opens normally.
package regfile
