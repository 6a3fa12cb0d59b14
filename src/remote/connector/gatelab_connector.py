"""GateLab's connector: runs one worker's command on a cluster node and bridges
its stdin/stdout JSON lines to the lab's control endpoint over a WebSocket.

Started as a Ray job's entrypoint by the lab (src/remote/ray/rayJobWorker.ts),
it needs nothing but the Python standard library, so any Python on a node
will do. The messages are in src/remote/bridgeMessages.ts.

Environment (set by the lab through the job's runtime_env):
  GATELAB_CONTROL_URL    ws://host:port/workers/<launch id>
  GATELAB_CONTROL_TOKEN  the launch's token (sent as a Bearer header)
  GATELAB_WORKER_ARGV    the worker's command, a JSON list (run without a shell)
  GATELAB_WORKER_ENV     extra environment for the worker, a JSON object
  GATELAB_SCRATCH        optional: the scratch folder (default: a new temp folder)
  GATELAB_WORKER_MODE    `jsonl` (default): the worker speaks JSON lines on stdin/stdout;
                         `server`: the worker is a TCP server (an HTTP engine such as vLLM). The
                         connector picks a free port on 127.0.0.1 here, puts it in place of
                         {{GATELAB_SERVER_PORT}} in the command, reports it in `hello`, and
                         carries the lab's TCP streams to that port, and to nothing else.
The worker's environment may carry GATELAB_WORKER_NICE (0-19): its nice value.

The WebSocket client is written here (RFC 6455, client side, text frames)
because the standard library has none and a node may have nothing else.
"""

import base64
import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from urllib.parse import urlsplit

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CHUNK_BYTES = 4 * 1024 * 1024
PORT_PLACEHOLDER = "{{GATELAB_SERVER_PORT}}"
STREAM_READ_BYTES = 256 * 1024


class WebSocketClient:
    def __init__(self, url, token):
        parts = urlsplit(url)
        if parts.scheme != "ws":
            raise ValueError("only ws:// URLs: %s" % url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        path = parts.path or "/"
        request = (
            "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n"
        ) % (path, parts.hostname, parts.port or 80, key, token)
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            more = self.sock.recv(4096)
            if not more:
                raise ConnectionError("the lab closed the connection during the handshake: %r" % head[:200])
            head += more
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionError("the lab refused the connection: %s" % lines[0])
        expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
        accept = {k.strip().lower(): v.strip() for k, v in headers.items()}.get("sec-websocket-accept")
        if accept != expected:
            raise ConnectionError("bad Sec-WebSocket-Accept from the lab")
        self.sock.settimeout(None)
        self.send_lock = threading.Lock()
        self.closed = False

    def _read(self, n):
        while len(self.buffer) < n:
            more = self.sock.recv(max(65536, n - len(self.buffer)))
            if not more:
                raise ConnectionError("connection closed")
            self.buffer += more
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytearray([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        # XOR with the mask through big integers: done in C, fast for megabytes.
        repeated = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big") if n else b""
        with self.send_lock:
            if self.closed:
                raise ConnectionError("connection closed")
            self.sock.sendall(bytes(header) + mask + masked)

    def send_json(self, obj):
        self._send_frame(0x1, json.dumps(obj, separators=(",", ":")).encode())

    def receive(self):
        """The next text message, or None when the connection closed."""
        message = b""
        while True:
            try:
                b1, b2 = self._read(2)
            except (ConnectionError, OSError):
                return None
            opcode, fin = b1 & 0x0F, b1 & 0x80
            n = b2 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            if b2 & 0x80:
                mask = self._read(4)
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(n)))
            else:
                data = self._read(n)
            if opcode == 0x8:
                self.close()
                return None
            if opcode == 0x9:
                self._send_frame(0xA, data)
                continue
            if opcode == 0xA:
                continue
            message += data
            if fin:
                return message.decode()

    def close(self):
        with self.send_lock:
            if self.closed:
                return
            self.closed = True
        try:
            mask = os.urandom(4)
            self.sock.sendall(bytes([0x88, 0x80]) + mask)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def inside(scratch, relative):
    """An absolute path under the scratch folder, or an error: nothing outside it is read or written."""
    if relative.startswith("/") or ".." in relative.split("/"):
        raise ValueError("not a path inside the scratch folder: %r" % relative)
    full = os.path.realpath(os.path.join(scratch, relative))
    if not full.startswith(os.path.realpath(scratch) + os.sep):
        raise ValueError("not a path inside the scratch folder: %r" % relative)
    return full


def free_loopback_port():
    """A free TCP port on 127.0.0.1 of this node (the server binds it a moment later)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
    finally:
        probe.close()


def child_setup(nice):
    """Runs in the worker's process before it starts (the connector has no other thread yet)."""
    def setup():
        # The recipe's device map may lower a role's priority (0-19, lowering needs no privilege).
        if 0 < nice <= 19:
            os.nice(nice)
        # Linux: the worker gets SIGTERM when the connector dies, however it dies, so that a
        # killed connector never leaves a server (and its port, its memory) behind on the node.
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    return setup


class Bridge:
    def __init__(self, ws, scratch, argv, env, server_port=None):
        self.ws = ws
        self.scratch = scratch
        self.stdin_lock = threading.Lock()
        self.puts = {}
        # Server mode: the server's port on this node, the only place a stream may go.
        self.server_port = server_port
        self.streams = {}
        self.streams_lock = threading.Lock()
        # Set once the lab asks the worker to finish (`__shutdown`): its exit is then an end, not a crash.
        self.shutdown_requested = False
        nice = int(env.get("GATELAB_WORKER_NICE", "0") or 0)
        self.worker = subprocess.Popen(
            argv, stdin=subprocess.PIPE if server_port is None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=scratch, shell=False,
            preexec_fn=child_setup(nice),
        )

    def send(self, obj):
        try:
            self.ws.send_json(obj)
        except (ConnectionError, OSError):
            pass

    def pump_stdout(self):
        for raw in self.worker.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            if self.server_port is not None:
                # A server's output is its log, never RPC.
                self.send({"type": "log", "stream": "stdout", "line": line})
                continue
            try:
                self.send({"type": "worker", "message": json.loads(line)})
            except ValueError:
                self.send({"type": "log", "stream": "stdout", "line": line})

    def pump_stderr(self):
        for raw in self.worker.stderr:
            self.send({"type": "log", "stream": "stderr", "line": raw.decode("utf-8", "replace").rstrip("\n")})

    def read_file(self, ref, relative):
        try:
            path = inside(self.scratch, relative)
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                chunk = f.read(CHUNK_BYTES)
                while True:
                    digest.update(chunk)
                    following = f.read(CHUNK_BYTES)
                    message = {"type": "chunk", "ref": ref, "data": base64.b64encode(chunk).decode(), "last": not following}
                    if not following:
                        message["sha256"] = digest.hexdigest()
                    self.send(message)
                    if not following:
                        return
                    chunk = following
        except Exception as error:  # noqa: BLE001 - every failure is answered, never raised
            self.send({"type": "failed", "ref": ref, "message": "read %s: %s" % (relative, error)})

    def put_file(self, message):
        ref = message["ref"]
        try:
            path = inside(self.scratch, message["path"])
            state = self.puts.get(ref)
            if state is None:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                temp = "%s.%s.tmp" % (path, os.urandom(6).hex())
                state = self.puts[ref] = (open(temp, "wb"), temp, hashlib.sha256())
            handle, temp, digest = state
            data = base64.b64decode(message["data"])
            handle.write(data)
            digest.update(data)
            if not message["last"]:
                return
            del self.puts[ref]
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            if digest.hexdigest() != message.get("sha256"):
                os.unlink(temp)
                raise ValueError("sha256 %s is not the sender's %s" % (digest.hexdigest(), message.get("sha256")))
            os.replace(temp, path)
            self.send({"type": "done", "ref": ref})
        except Exception as error:  # noqa: BLE001
            self.puts.pop(ref, None)
            self.send({"type": "failed", "ref": ref, "message": "put %s: %s" % (message.get("path"), error)})

    def open_stream(self, stream):
        """A connection the lab accepted: connect it to the server's port, and only to it."""
        if self.server_port is None:
            self.send({"type": "close", "stream": stream, "error": "this worker is not a server: no streams"})
            return
        with self.streams_lock:
            if stream in self.streams:
                self.send({"type": "close", "stream": stream, "error": "stream %s is already open" % stream})
                return
        try:
            conn = socket.create_connection(("127.0.0.1", self.server_port), timeout=10)
            conn.settimeout(None)
        except OSError as error:
            self.send({"type": "close", "stream": stream, "error": "cannot reach the server on 127.0.0.1:%d: %s" % (self.server_port, error)})
            return
        with self.streams_lock:
            self.streams[stream] = conn
        threading.Thread(target=self.pump_stream, args=(stream, conn), daemon=True).start()

    def pump_stream(self, stream, conn):
        """The server's bytes on one stream, to the lab; its close, too."""
        error = None
        while True:
            try:
                data = conn.recv(STREAM_READ_BYTES)
            except OSError as e:
                data, error = b"", str(e)
            if not data:
                break
            self.send({"type": "data", "stream": stream, "data": base64.b64encode(data).decode()})
        with self.streams_lock:
            ours = self.streams.get(stream) is conn
            if ours:
                del self.streams[stream]
        # A stream the lab closed was removed by `close`: nothing to say.
        if ours:
            message = {"type": "close", "stream": stream}
            if error is not None:
                message["error"] = error
            self.send(message)
            conn.close()

    def stream_data(self, stream, data):
        with self.streams_lock:
            conn = self.streams.get(stream)
        if conn is None:
            return
        try:
            conn.sendall(base64.b64decode(data))
        except (OSError, ValueError) as error:
            self.close_stream(stream)
            self.send({"type": "close", "stream": stream, "error": "write to the server: %s" % error})

    def close_stream(self, stream):
        with self.streams_lock:
            conn = self.streams.pop(stream, None)
        if conn is None:
            return
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()

    def pump_lab(self):
        while True:
            text = self.ws.receive()
            if text is None:
                break
            try:
                message = json.loads(text)
                kind = message.get("type")
            except (ValueError, AttributeError):
                continue
            if kind == "request":
                request = message.get("message")
                if isinstance(request, dict) and request.get("method") == "__shutdown":
                    self.shutdown_requested = True
                if isinstance(request, dict) and isinstance(request.get("method"), str) and not request["method"].startswith("__"):
                    # The workers panel shows what the remote worker was asked, and when.
                    self.send({"type": "log", "stream": "stderr", "line": "connector: request %s (id %s)" % (request["method"], request.get("id"))})
                try:
                    with self.stdin_lock:
                        self.worker.stdin.write((json.dumps(message["message"]) + "\n").encode())
                        self.worker.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass
            elif kind == "read":
                threading.Thread(target=self.read_file, args=(message["ref"], message["path"]), daemon=True).start()
            elif kind == "put":
                self.put_file(message)
            elif kind == "open" and isinstance(message.get("stream"), int):
                self.open_stream(message["stream"])
            elif kind == "data" and isinstance(message.get("stream"), int) and isinstance(message.get("data"), str):
                self.stream_data(message["stream"], message["data"])
            elif kind == "close" and isinstance(message.get("stream"), int):
                self.close_stream(message["stream"])
        # The lab is gone: so is the worker (a lost connection is a crash; the lab starts another).
        with self.streams_lock:
            streams = list(self.streams)
        for stream in streams:
            self.close_stream(stream)
        stop(self.worker, server=self.server_port is not None)


def stop(worker, server=False):
    if worker.poll() is not None:
        return
    # A JSON-lines worker ends when its stdin does; a server is asked with SIGTERM at once.
    if not server:
        try:
            worker.stdin.close()
        except OSError:
            pass
    try:
        worker.wait(timeout=0 if server else 5)
    except subprocess.TimeoutExpired:
        worker.terminate()
        try:
            worker.wait(timeout=5)
        except subprocess.TimeoutExpired:
            worker.kill()


def main():
    url = os.environ["GATELAB_CONTROL_URL"]
    token = os.environ["GATELAB_CONTROL_TOKEN"]
    argv = json.loads(os.environ["GATELAB_WORKER_ARGV"])
    extra = json.loads(os.environ.get("GATELAB_WORKER_ENV", "{}"))
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise SystemExit("GATELAB_WORKER_ARGV must be a non-empty JSON list of strings")
    mode = os.environ.get("GATELAB_WORKER_MODE", "jsonl")
    if mode not in ("jsonl", "server"):
        raise SystemExit("GATELAB_WORKER_MODE must be jsonl or server, not %r" % mode)
    server_port = None
    if mode == "server":
        if not any(PORT_PLACEHOLDER in a for a in argv):
            raise SystemExit("a server worker's command must name its port as %s" % PORT_PLACEHOLDER)
        server_port = free_loopback_port()
        argv = [a.replace(PORT_PLACEHOLDER, str(server_port)) for a in argv]
    own_scratch = not os.environ.get("GATELAB_SCRATCH")
    scratch = os.environ.get("GATELAB_SCRATCH") or tempfile.mkdtemp(prefix="gatelab-scratch-")
    os.makedirs(scratch, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATELAB_CONTROL_") and k not in ("GATELAB_CONNECTOR_SOURCE", "GATELAB_WORKER_ARGV", "GATELAB_WORKER_ENV", "GATELAB_WORKER_MODE")}
    env.update({str(k): str(v) for k, v in extra.items()})
    if server_port is None:
        env["GATELAB_WORKER_CHANNEL"] = "jsonl"
    env["GATELAB_SCRATCH_DIR"] = scratch

    ws = WebSocketClient(url, token)
    print("gatelab connector: connected to %s" % url.rsplit("/", 1)[0], file=sys.stderr, flush=True)
    hello = {"type": "hello", "pid": os.getpid(), "host": socket.gethostname(), "scratch": scratch}
    if server_port is not None:
        hello["port"] = server_port
    ws.send_json(hello)
    bridge = Bridge(ws, scratch, argv, env, server_port)
    # Ray stops a job with SIGTERM: pass it on, then report the exit. Ray sends SIGKILL a few
    # seconds later (RAY_JOB_STOP_WAIT_TIME_S), often before a server has shut down, so the
    # scratch folder goes now: nothing of the job is wanted once it is stopped, and files the
    # worker still has open stay readable to it.
    def on_sigterm(*_):
        bridge.worker.terminate()
        if own_scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    signal.signal(signal.SIGTERM, on_sigterm)
    readers = [threading.Thread(target=bridge.pump_stdout, daemon=True), threading.Thread(target=bridge.pump_stderr, daemon=True)]
    for t in readers:
        t.start()
    threading.Thread(target=bridge.pump_lab, daemon=True).start()
    code = bridge.worker.wait()
    for t in readers:
        t.join(timeout=10)
    bridge.send({"type": "exit", "code": code if code >= 0 else None, "signal": signal.Signals(-code).name if code < 0 else None})
    ws.close()
    if own_scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    print("gatelab connector: the worker exited with %s" % code, file=sys.stderr, flush=True)
    if bridge.shutdown_requested:
        # The lab asked the worker to finish: however it went down, the job ended as asked (the
        # lab has the worker's own exit code from the message above).
        sys.exit(0)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
