// Package regfile opens and reads files that come from places agentpool does not control
// (configuration files, SKILL.md, mcp.json, command files, files read through skill://) only
// when they are regular files, and only up to a size cap. It implements the "Bounded inputs"
// rule of issue 8 and DESIGN.md "Safety rules": no input may hang the process or eat its
// memory.
//
// A path can name a named pipe (open blocks until a writer comes, read until it writes), a
// device (/dev/zero never ends, a tty may become the controlling terminal), a socket or a
// folder. Checking with os.Stat before os.Open is not enough: the file can be swapped between
// the check and the open. So every open here is done the same way:
//
//  1. stat the path, and refuse what is not a regular file without opening it at all (opening
//     some devices has effects);
//  2. open it read-only with O_NONBLOCK (and O_NOCTTY), so that a named pipe swapped in after
//     the stat does not block the open;
//  3. fstat the opened descriptor and refuse anything that is not a regular file: that is the
//     check that cannot be raced;
//  4. read at most the cap, refusing a file that is larger (its size from fstat first, then the
//     bytes actually read, since a file may grow).
//
// Errors are *fs.PathError values naming the path and what the file is ("open /x/pipe: is a
// named pipe, not a regular file", "read cfg.yaml: larger than the 1 MiB cap"); callers test
// them with errors.Is against ErrNotRegular and ErrTooLarge.
//
// A file of a pseudo file system (/proc) is "regular" with a size of 0: it is read to its end,
// the cap holding on the bytes actually read. A regular file whose reads block (a stalled FUSE
// or network mount) is not caught: only the kind of file is checked, not how it behaves.
//
// It imports the standard library only. On systems without O_NONBLOCK (Windows) step 2 opens
// normally; named pipes of that kind do not live in the file system there.
package regfile
