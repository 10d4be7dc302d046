"""The reading child locks itself in before it reads a byte of the file (`confine`), as the
sandboxes of document converters do (bubblewrap): a network namespace of its own (no network),
a mount namespace whose root holds only the programs and libraries it needs and its scratch
folder (no DATA_DIR, no secret key, no TLS key, no other student's upload), the uid `nobody`
when it started as root, and a seccomp filter that refuses every socket but a Unix one.

Started as root, the namespaces need nothing more; a non-root worker asks for a user namespace
too. Where the kernel refuses namespaces (a container's default seccomp profile), the child
still drops sockets, and root unless `nobody` may not enter the folders of its Python (it could
then import nothing); what it could not do is returned, and the parent logs it
(docs/knowledge-base.md#the-reading-sandbox).
"""

import contextlib
import ctypes
import errno
import os
import platform
import signal
import stat
import struct
import sys
from pathlib import Path

NOBODY = 65534
PROJECT_ROOT = Path(__file__).resolve().parents[3]
# What the child sees of the machine, read-only: programs and libraries (Tesseract among them),
# the few files of /etc that loading them reads, Python and its packages, the readers' code.
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
ETC = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "fonts", "localtime"]
ETC += ["passwd", "group", "nsswitch.conf"]
DEVICES = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"]

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 0x1, 0x2, 0x4, 0x20
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
# Flags of a mount the kernel keeps when a user namespace remounts it read-only (statvfs gives
# them with the same values as mount takes them).
KEPT_FLAGS = 0x2 | 0x4 | 0x8 | 0x400 | 0x800 | 0x1000  # nosuid nodev noexec noatime ...
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 1, 22, 38
# Per architecture: the audit id seccomp sees, and the numbers of pivot_root and socket.
ARCHITECTURES = {"x86_64": (0xC000003E, 155, 41), "aarch64": (0xC00000B7, 41, 198)}
IO_URING_SETUP = 425  # the same on both: io_uring could open sockets behind the filter's back
# Classic BPF as seccomp runs it: load a word of the call, compare, answer; and the answers.
LOAD, EQUAL, AT_LEAST, ANSWER = 0x20, 0x15, 0x35, 0x06
ALLOW, ERRNO = 0x7FFF0000, 0x00050000

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
libc.syscall.argtypes = [ctypes.c_long, ctypes.c_char_p, ctypes.c_char_p]  # pivot_root's


def call(name: str, *args) -> None:
    if getattr(libc, name)(*args) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{name}: {os.strerror(code)}")


def die_with_parent() -> None:
    """The child gets SIGKILL when the worker that started it dies (even by kill -9). A change
    of uid clears it, so it is set again after one."""
    with contextlib.suppress(OSError):
        call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def confine(work: Path) -> list[str]:
    """Lock this process in, its working folder `work` the one place it may write. Returns what
    could not be done, in words (nothing on a Linux that allows namespaces)."""
    gaps = []
    root = os.geteuid() == 0
    hidden = None
    try:
        enter_namespaces(root)
        build_view(work)
    except OSError as error:
        gaps.append(f"no network or file system of its own ({error})")
        hidden = hidden_from_nobody() if root else None
    if hidden is not None:  # as nobody it could import nothing more: it reads, as root
        gaps.append(f"not nobody: nobody may not enter {hidden}, on the way to Python or apps/")
    elif root:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        die_with_parent()
    try:
        refuse_sockets()
    except (OSError, KeyError) as error:
        gaps.append(f"sockets not refused ({error})")
    os.chdir(work)
    return gaps


def enter_namespaces(root: bool) -> None:
    """A network and a mount namespace of its own; not root, in a user namespace where it keeps
    its uid (and gets the right to mount)."""
    uid, gid = os.getuid(), os.getgid()
    call("unshare", CLONE_NEWNS | CLONE_NEWNET | (0 if root else CLONE_NEWUSER))
    if not root:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def shown() -> list[Path]:
    """What the view holds besides /etc's few files and the devices: the system's programs and
    libraries, Python and its packages (on this machine under /root, say), and the project's
    code without the rest of the project (its default DATA_DIR is `var/` in it)."""
    paths = [Path(path) for path in SYSTEM]
    paths += [Path(path) for path in (sys.base_prefix, sys.prefix, sys.exec_prefix)]
    paths += [Path(entry) for entry in sys.path if entry and Path(entry).is_absolute()]
    paths = [path for path in paths if path not in PROJECT_ROOT.parents and path != PROJECT_ROOT]
    return [*paths, PROJECT_ROOT / "apps"]


def hidden_from_nobody() -> Path | None:
    """Without the view, the first folder on the way to what `shown` holds that other users may
    not enter (Python installed under /root, say), if any."""
    for path in shown():
        for folder in [*reversed(path.parents), path]:
            if folder.is_dir() and not folder.stat().st_mode & stat.S_IXOTH:
                return folder
    return None


def build_view(work: Path) -> None:
    """Make a tmpfs the root: the paths of `shown` bound in read-only at their own names, `work`
    read-write; then the old root is let go of, so nothing else can be reached again."""
    call("mount", None, b"/", None, MS_REC | MS_PRIVATE, None)
    # The folders made for the view must be open to `nobody`, whatever the worker's umask (077,
    # to keep DATA_DIR private); what the child writes later in `work` is its own.
    private = os.umask(0o022)
    view = work.parent / "root"
    call("mount", b"tmpfs", bytes(view), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=4m,mode=0755")
    bound: list[Path] = []
    for path in sorted(set(shown())):
        if path.exists() and not any(path.is_relative_to(done) for done in bound):
            bind(path, view, read_only=True)
            bound.append(path)
    for name in ETC:
        if (Path("/etc") / name).exists():
            bind(Path("/etc") / name, view, read_only=True)
    for device in DEVICES:
        bind(Path(device), view, read_only=False)
    bind(work, view, read_only=False)
    os.umask(private)
    os.chdir(view)
    pivot_root()
    call("mount", None, b"/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def bind(path: Path, view: Path, *, read_only: bool) -> None:
    """Bind `path` (what it resolves to) at the same name inside `view`."""
    target = view / path.relative_to("/")
    if path.is_dir():
        target.mkdir(parents=True, exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    call("mount", bytes(path.resolve()), bytes(target), None, MS_BIND | MS_REC, None)
    if read_only:
        kept = os.statvfs(target).f_flag & KEPT_FLAGS
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | kept
        call("mount", None, bytes(target), None, flags, None)


def pivot_root() -> None:
    """The current folder becomes the root; the old root is detached (a chroot alone could be
    left again by a process that may still mount, as in a user namespace)."""
    architecture = ARCHITECTURES.get(platform.machine())
    if architecture is None:
        os.chroot(".")
    else:
        call("syscall", architecture[1], b".", b".")
        call("umount2", b".", MNT_DETACH)
    os.chdir("/")


def refuse_sockets() -> None:
    """A seccomp filter: socket() of any family but AF_UNIX, io_uring and system calls of
    another ABI fail with EACCES. Without a network namespace, this is what keeps the child off
    the network; with one, a second wall."""
    audit, _, socket_call = ARCHITECTURES[platform.machine()]
    refuse = ERRNO | errno.EACCES
    install_filter(
        [
            (LOAD, 0, 0, 4),  # 0: the architecture
            (EQUAL, 1, 0, audit),  # 1: this one → 3
            (ANSWER, 0, 0, refuse),  # 2
            (LOAD, 0, 0, 0),  # 3: the system call's number
            (AT_LEAST, 5, 0, 0x40000000),  # 4: the x32 ABI → 10
            (EQUAL, 4, 0, IO_URING_SETUP),  # 5: → 10
            (EQUAL, 0, 2, socket_call),  # 6: not socket() → 9
            (LOAD, 0, 0, 16),  # 7: its first argument, the address family
            (EQUAL, 0, 1, 1),  # 8: AF_UNIX → 9, else → 10
            (ANSWER, 0, 0, ALLOW),  # 9
            (ANSWER, 0, 0, refuse),  # 10
        ]
    )


def install_filter(program: list[tuple[int, int, int, int]]) -> None:
    """Install a classic BPF program (code, jump if true, jump if false, operand) as this
    process's seccomp filter, for it and every process it starts."""
    code = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(code)
    fprog = ctypes.create_string_buffer(struct.pack("HP", len(program), ctypes.addressof(filters)))
    call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    call("prctl", PR_SET_SECCOMP, 2, ctypes.addressof(fprog), 0, 0)  # SECCOMP_MODE_FILTER
