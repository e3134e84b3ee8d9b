//go:build linux

#include "go_asm.h"
#include "textflag.h"

// The launcher's job (package launch's run) without Go's runtime: the kernel enters start
// with 0(SP) = argc, then argv[0..argc-1], NULL, envp. argv[1] is the marker, argv[2] the rule
// set's descriptor or "-", argv[3] and argv[4] the uid and gid map lines of the user and
// network namespaces to make ("-": none), argv[5] the server's program, argv[6:] its argv. The
// marker and "probe" alone ask whether this is the assembly entry: it exits 0.
//
// Registers held throughout: R12 argc, R13 &argv[0], R14 envp, R15 the rule set's descriptor.
// A system call's result is in AX, -4095..-1 for an error (-errno); SYSCALL clobbers CX, R11.

#define SYS_write 1
#define SYS_close 3
#define SYS_writev 20
#define SYS_execve 59
#define SYS_prctl 157
#define SYS_unshare 272
#define SYS_exit_group 231
#define SYS_openat 257
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446

// Jump to label when the last system call failed.
#define IFFAILED(label) CMPQ AX, $-4095; JCC label

// Load the Go string s into ptr and length.
#define STR(s, ptr, length) MOVQ s(SB), ptr; MOVQ s+8(SB), length

// Write n bytes at buf (registers) to the file path, a Go string holding a C string:
// openat(AT_FDCWD, path, O_WRONLY|O_CLOEXEC), write, close. R8 and R10 hold the path (its NUL
// left out) for the failure's line; openat ignores R10, its mode, without O_CREAT.
#define WRITEFILE(path, buf, n) \
	MOVQ path(SB), R8; MOVQ path+8(SB), R10; DECQ R10; \
	MOVQ $SYS_openat, AX; MOVQ $-100, DI; MOVQ R8, SI; MOVQ $0x80001, DX; \
	SYSCALL; IFFAILED(failopen); \
	MOVQ AX, DI; MOVQ $SYS_write, AX; MOVQ buf, SI; MOVQ n, DX; SYSCALL; IFFAILED(failwrite); \
	MOVQ $SYS_close, AX; SYSCALL; IFFAILED(failclosefile)

TEXT ·start(SB), NOSPLIT|NOFRAME, $0
	MOVQ 0(SP), R12
	LEAQ 8(SP), R13
	LEAQ 8(R13)(R12*8), R14
	CMPQ R12, $2
	JLT  byhand

	// argv[1] starts with the marker's prefix, or agentpool did not start this.
	MOVQ 8(R13), SI
	STR(·markerPrefix, DI, CX)
prefix:
	TESTQ CX, CX
	JEQ   prefixed
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   byhand
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   prefix

prefixed:
	// argv[1] is this format's marker (its NUL included), or another build started this.
	MOVQ 8(R13), SI
	STR(·marker, DI, CX)
format:
	TESTQ CX, CX
	JEQ   formatok
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   otherformat
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   format

formatok:
	// The marker and "probe" alone: exit 0.
	CMPQ R12, $3
	JNE  launch
	MOVQ 16(R13), SI
	STR(·probe, DI, CX)
probe:
	TESTQ CX, CX
	JEQ   probed
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   launch
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   probe
probed:
	MOVQ $SYS_exit_group, AX
	XORQ DI, DI
	SYSCALL

launch:
	CMPQ R12, $6
	JLT  noserver

	// argv[2]: "-" (no rules), or up to 9 decimal digits.
	MOVQ $-1, R15
	MOVQ 16(R13), SI
	STR(·noRules, DI, CX)
norules:
	TESTQ CX, CX
	JEQ   namespaces
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   digits
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   norules

digits:
	MOVQ 16(R13), SI
	XORQ R15, R15
	XORQ CX, CX
digit:
	MOVBQZX (SI)(CX*1), AX
	TESTQ   AX, AX
	JEQ     digitsend
	SUBQ    $0x30, AX
	CMPQ    AX, $9
	JHI     badfd
	LEAQ    (R15)(R15*4), R15
	SHLQ    $1, R15
	ADDQ    AX, R15
	INCQ    CX
	CMPQ    CX, $9
	JHI     badfd
	JMP     digit

digitsend:
	TESTQ CX, CX
	JEQ   badfd

namespaces:
	// argv[3] and argv[4] "-": no namespaces to make. Else unshare(CLONE_NEWUSER|CLONE_NEWNET),
	// which this single-threaded process may do, then "deny" to /proc/self/setgroups, and the
	// map lines argv[3] and argv[4] to /proc/self/uid_map and gid_map (a "-" there fails).
	MOVQ 24(R13), SI
	STR(·noNamespaces, DI, CX)
nons:
	TESTQ CX, CX
	JEQ   nogid
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   unshare
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   nons
nogid:
	MOVQ 32(R13), SI
	STR(·noNamespaces, DI, CX)
nonsgid:
	TESTQ CX, CX
	JEQ   rules
	MOVB  (SI), AL
	CMPB  AL, (DI)
	JNE   unshare
	INCQ  SI
	INCQ  DI
	DECQ  CX
	JMP   nonsgid

unshare:
	MOVQ $SYS_unshare, AX
	MOVQ $0x50000000, DI
	SYSCALL
	IFFAILED(failunshare)
	MOVQ ·deny(SB), BX
	MOVQ ·deny+8(SB), R9
	WRITEFILE(·setgroupsPath, BX, R9)
	MOVQ 24(R13), BX
	XORQ R9, R9
uidlen:
	CMPB (BX)(R9*1), $0
	JEQ  uidmap
	INCQ R9
	JMP  uidlen
uidmap:
	WRITEFILE(·uidMapPath, BX, R9)
	MOVQ 32(R13), BX
	XORQ R9, R9
gidlen:
	CMPB (BX)(R9*1), $0
	JEQ  gidmap
	INCQ R9
	JMP  gidlen
gidmap:
	WRITEFILE(·gidMapPath, BX, R9)

rules:
	CMPQ R15, $-1
	JEQ  execute

	// prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	MOVQ $SYS_prctl, AX
	MOVQ $38, DI
	MOVQ $1, SI
	XORQ DX, DX
	XORQ R10, R10
	XORQ R8, R8
	SYSCALL
	IFFAILED(failnonewpriv)

	// Reading its own /proc/self: openat(AT_FDCWD, "/proc/self", O_PATH|O_CLOEXEC) and a
	// path-beneath rule for it; without /proc, nothing.
	MOVQ $SYS_openat, AX
	MOVQ $-100, DI
	MOVQ ·procSelf(SB), SI
	MOVQ $0x280000, DX
	XORQ R10, R10
	SYSCALL
	CMPQ AX, $-4095
	JCC  restrict
	MOVQ AX, BX
	MOVQ $const_selfRights, AX
	MOVQ AX, ·rule+0(SB)
	MOVL BX, ·rule+8(SB)
	MOVQ $SYS_landlock_add_rule, AX
	MOVQ R15, DI
	MOVQ $1, SI
	LEAQ ·rule(SB), DX
	XORQ R10, R10
	SYSCALL
	MOVQ AX, R8
	MOVQ $SYS_close, AX
	MOVQ BX, DI
	SYSCALL
	MOVQ R8, AX
	IFFAILED(failaddself)

restrict:
	// landlock_restrict_self(fd, 0)
	MOVQ $SYS_landlock_restrict_self, AX
	MOVQ R15, DI
	XORQ SI, SI
	SYSCALL
	IFFAILED(failrestrict)

	// close(fd): the server never sees it.
	MOVQ $SYS_close, AX
	MOVQ R15, DI
	SYSCALL
	IFFAILED(failclose)

	// prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &{len(Filter), &Filter})
	MOVW $const_filterLen, ·fprog+0(SB)
	MOVQ ·filter(SB), AX
	MOVQ AX, ·fprog+8(SB)
	MOVQ $SYS_prctl, AX
	MOVQ $22, DI
	MOVQ $2, SI
	LEAQ ·fprog(SB), DX
	SYSCALL
	IFFAILED(failseccomp)

execute:
	// execve(argv[5], &argv[6], envp): returns only when it failed.
	MOVQ $SYS_execve, AX
	MOVQ 40(R13), DI
	LEAQ 48(R13), SI
	MOVQ R14, DX
	SYSCALL
	STR(·stepExecute, R9, BX)
	MOVQ 40(R13), SI
	XORQ DX, DX
pathlen:
	CMPB (SI)(DX*1), $0
	JEQ  failed
	INCQ DX
	JMP  pathlen

failnonewpriv:
	STR(·stepNoNewPriv, R9, BX)
	JMP noextra
failaddself:
	STR(·stepAddSelf, R9, BX)
	JMP noextra
failrestrict:
	STR(·stepRestrict, R9, BX)
	JMP noextra
failclose:
	STR(·stepClose, R9, BX)
	JMP noextra
failseccomp:
	STR(·stepSeccomp, R9, BX)
	JMP noextra
failunshare:
	STR(·stepUnshare, R9, BX)
	JMP noextra
failopen:
	STR(·stepOpen, R9, BX)
	JMP withpath
failwrite:
	STR(·stepWrite, R9, BX)
	JMP withpath
failclosefile:
	STR(·stepCloseFile, R9, BX)
withpath:
	MOVQ R8, SI
	MOVQ R10, DX
	JMP  failed
noextra:
	XORQ SI, SI
	XORQ DX, DX

	// failed writes "agentpool sandbox: <step R9,BX><extra SI,DX> failed: errno <-AX>\n"
	// and exits 126.
failed:
	NEGQ AX
	MOVQ AX, R8
	STR(·linePrefix, AX, CX)
	MOVQ AX, ·iov+0(SB)
	MOVQ CX, ·iov+8(SB)
	MOVQ R9, ·iov+16(SB)
	MOVQ BX, ·iov+24(SB)
	MOVQ SI, ·iov+32(SB)
	MOVQ DX, ·iov+40(SB)
	STR(·failedErrno, AX, CX)
	MOVQ AX, ·iov+48(SB)
	MOVQ CX, ·iov+56(SB)
	LEAQ ·digits+23(SB), DI
	MOVB $0x0a, (DI)
	MOVQ R8, AX
	MOVQ $10, CX
errno:
	XORQ DX, DX
	DIVQ CX
	ADDQ $0x30, DX
	DECQ DI
	MOVB DL, (DI)
	TESTQ AX, AX
	JNE  errno
	MOVQ DI, ·iov+64(SB)
	LEAQ ·digits+24(SB), CX
	SUBQ DI, CX
	MOVQ CX, ·iov+72(SB)
	MOVQ $5, DX
	JMP  say

	// The refusals: "<R9,BX><the C string SI><DI,R8>", then exit 126.
otherformat:
	STR(·sayLaunchedAs, R9, BX)
	MOVQ 8(R13), SI
	STR(·sayOtherBuild, DI, R8)
	JMP  refuse
badfd:
	STR(·sayBadFD, R9, BX)
	MOVQ 16(R13), SI
	STR(·newline, DI, R8)
	JMP  refuse
noserver:
	STR(·sayNoServer, R9, BX)
	XORQ SI, SI
	STR(·newline, DI, R8)
	MOVQ $0, R8
refuse:
	MOVQ R9, ·iov+0(SB)
	MOVQ BX, ·iov+8(SB)
	MOVQ SI, ·iov+16(SB)
	XORQ CX, CX
	TESTQ SI, SI
	JEQ  cstrlen
strlen:
	CMPB (SI)(CX*1), $0
	JEQ  cstrlen
	INCQ CX
	JMP  strlen
cstrlen:
	MOVQ CX, ·iov+24(SB)
	MOVQ DI, ·iov+32(SB)
	MOVQ R8, ·iov+40(SB)
	MOVQ $3, DX

	// say: writev(2, iov, DX), then exit_group(126).
say:
	MOVQ $SYS_writev, AX
	MOVQ $2, DI
	LEAQ ·iov(SB), SI
	SYSCALL
	MOVQ $SYS_exit_group, AX
	MOVQ $126, DI
	SYSCALL

byhand:
	MOVQ $SYS_write, AX
	MOVQ $2, DI
	STR(·sayNotByHand, SI, DX)
	SYSCALL
	MOVQ $SYS_exit_group, AX
	MOVQ $2, DI
	SYSCALL

GLOBL ·iov(SB), NOPTR, $80
GLOBL ·digits(SB), NOPTR, $24
GLOBL ·fprog(SB), NOPTR, $16
GLOBL ·rule(SB), NOPTR, $16
