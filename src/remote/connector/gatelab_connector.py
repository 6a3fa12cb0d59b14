"""GateLab's connector: one worker role on a Ray cluster, connected to the lab.

The lab submits it as a Ray job's entrypoint (src/remote/ray/rayJobWorker.ts). The job's driver
asks Ray for an actor with the role's resources (GATELAB_ACTOR_OPTIONS: num_cpus, num_gpus, memory,
resources); Ray places the actor on a node that has them and sets its CUDA_VISIBLE_DEVICES. The
actor runs the worker's command there and bridges it to the lab, which is outside the cluster,
over one WebSocket (aiohttp, from the job's runtime_env); the messages are in
src/remote/connectorMessages.ts. Without GATELAB_ACTOR_OPTIONS (the lab's tests) the bridge runs in
this process.

Environment (the job's runtime_env env_vars):
  GATELAB_CONTROL_URL    ws://host:port/workers/<launch id>
  GATELAB_CONTROL_TOKEN  the launch's token (sent as a Bearer header)
  GATELAB_WORKER_ARGV    the worker's command, a JSON list (run without a shell)
  GATELAB_WORKER_ENV     extra environment for the worker, a JSON object
  GATELAB_WORKER_MODE    `jsonl` (default): the worker speaks JSON lines on stdin/stdout;
                         `server`: an HTTP server (vLLM) whose command names its port as
                         {{GATELAB_SERVER_PORT}}; the connector picks a free loopback port for it.
The worker's environment may carry GATELAB_WORKER_NICE (0-19): its nice value.
A test's barrier: GATELAB_TEST_HOLD_REQUEST=<method>:<n> holds the n-th request of that method (logged,
never forwarded), so that a test can stop the job while the request is certainly in flight.
"""

import asyncio
import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile

PORT_PLACEHOLDER = "{{GATELAB_SERVER_PORT}}"
STREAM_READ_BYTES = 256 * 1024
# What the connector itself reads from its environment: the worker gets the rest.
OWN_VARIABLES = (
    "GATELAB_CONTROL_URL",
    "GATELAB_CONTROL_TOKEN",
    "GATELAB_CONNECTOR_SOURCE",
    "GATELAB_WORKER_ARGV",
    "GATELAB_WORKER_ENV",
    "GATELAB_WORKER_MODE",
    "GATELAB_ACTOR_OPTIONS",
)


def inside(scratch, relative):
    """An absolute path under the scratch folder, or an error: nothing outside it is read or written."""
    full = os.path.realpath(os.path.join(scratch, relative))
    if (
        relative.startswith("/")
        or ".." in relative.split("/")
        or not full.startswith(os.path.realpath(scratch) + os.sep)
    ):
        raise ValueError("not a path inside the scratch folder: %r" % relative)
    return full


def free_loopback_port():
    """A free TCP port on 127.0.0.1 of this node (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def child_setup(nice):
    """Runs in the worker's process before it starts."""

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
    """The worker's process and the lab's WebSocket, joined."""

    def __init__(self, aiohttp, session, ws, url, token, scratch, port):
        self.aiohttp, self.session, self.ws, self.url, self.token = aiohttp, session, ws, url, token
        self.scratch = scratch
        self.port = port  # server mode: the server's port on this node, the only place a stream may go
        self.worker = None
        self.shutdown_requested = False
        self.tasks = set()
        self.request_counts = {}  # requests seen so far, by method (GATELAB_TEST_HOLD_REQUEST)

    async def send(self, message):
        try:
            await self.ws.send_json(message)
        except (ConnectionError, RuntimeError):
            pass  # the lab is gone: the worker is stopped by from_lab's end

    def spawn(self, coroutine):
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def from_worker(self, stream, name):
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").rstrip("\n")
            if not text.strip():
                continue
            message = None
            if name == "stdout" and self.port is None:
                try:
                    message = {"type": "worker", "message": json.loads(text)}
                except ValueError:
                    pass
            await self.send(message or {"type": "log", "stream": name, "line": text})

    async def from_lab(self):
        async for frame in self.ws:
            try:
                if frame.type == self.aiohttp.WSMsgType.BINARY:
                    header, _, data = frame.data.partition(b"\n")
                    await self.put(json.loads(header), data)
                    continue
                message = json.loads(frame.data) if frame.type == self.aiohttp.WSMsgType.TEXT else {}
                kind = message.get("type")
                if kind == "request":
                    await self.request(message["message"])
                elif kind == "read":
                    self.spawn(self.read(message["ref"], message["path"]))
                elif kind == "open":
                    self.spawn(self.carry(str(message["launch"]), str(message["token"])))
            except (ValueError, KeyError, AttributeError):
                continue  # the lab's schema makes these; anything else is ignored, as the lab ignores the connector's

    async def request(self, request):
        method = request.get("method") if isinstance(request, dict) else None
        if isinstance(method, str):
            self.request_counts[method] = self.request_counts.get(method, 0) + 1
        if method == "__shutdown":
            self.shutdown_requested = True
        elif isinstance(method, str):
            # The workers panel shows what the remote worker was asked, and when.
            await self.send(
                {
                    "type": "log",
                    "stream": "stderr",
                    "line": "connector: request %s (id %s)" % (method, request.get("id")),
                }
            )
            if os.environ.get("GATELAB_TEST_HOLD_REQUEST") == "%s:%d" % (method, self.request_counts[method]):
                await self.send(
                    {"type": "log", "stream": "stderr", "line": "connector: holding it (GATELAB_TEST_HOLD_REQUEST)"}
                )
                return
        if self.worker.stdin is not None:
            try:
                self.worker.stdin.write((json.dumps(request) + "\n").encode())
                await self.worker.stdin.drain()
            except (ConnectionError, OSError):
                pass

    async def read(self, ref, relative):
        """A file the lab asked for, whole, with its sha256: one binary message."""
        try:
            data = await asyncio.to_thread(lambda: open(inside(self.scratch, relative), "rb").read())
            header = {"type": "file", "ref": ref, "sha256": hashlib.sha256(data).hexdigest()}
            await self.ws.send_bytes(json.dumps(header).encode() + b"\n" + data)
        except Exception as error:  # noqa: BLE001 - every failure is answered, never raised
            await self.send({"type": "failed", "ref": ref, "message": "read %s: %s" % (relative, error)})

    async def put(self, header, data):
        """A file the lab sent: checked against its sha256, then renamed into place."""
        ref = header.get("ref")
        try:
            if hashlib.sha256(data).hexdigest() != header.get("sha256"):
                raise ValueError("the bytes that arrived are not sha256 %s" % header.get("sha256"))
            path = inside(self.scratch, header["path"])

            def write():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                temp = "%s.%s.tmp" % (path, os.urandom(6).hex())
                with open(temp, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, path)

            await asyncio.to_thread(write)
            await self.send({"type": "done", "ref": ref})
        except Exception as error:  # noqa: BLE001
            await self.send({"type": "failed", "ref": ref, "message": "put %s: %s" % (header.get("path"), error)})

    async def carry(self, launch, token):
        """One TCP connection the lab accepted: its own WebSocket to the lab,
        joined to the server's port and only to it."""
        if self.port is None or not re.fullmatch(r"[A-Za-z0-9-]+", launch):
            await self.send(
                {
                    "type": "log",
                    "stream": "stderr",
                    "line": "connector: no stream opened (%s)"
                    % ("this worker is not a server" if self.port is None else "a bad launch id"),
                }
            )
            return
        headers = {"Authorization": "Bearer " + token}
        try:
            async with self.session.ws_connect(
                self.url.rsplit("/", 1)[0] + "/" + launch, headers=headers, max_msg_size=0
            ) as ws:
                try:
                    reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                except OSError as error:
                    await ws.close(code=1011, message=("cannot reach the server: %s" % error).encode()[:120])
                    return

                async def to_lab():
                    while data := await reader.read(STREAM_READ_BYTES):
                        await ws.send_bytes(data)
                    await ws.close()

                upstream = asyncio.ensure_future(to_lab())
                async for frame in ws:
                    if frame.type == self.aiohttp.WSMsgType.BINARY:
                        writer.write(frame.data)
                        await writer.drain()
                upstream.cancel()
                writer.close()
        except (self.aiohttp.ClientError, OSError) as error:
            await self.send(
                {"type": "log", "stream": "stderr", "line": "connector: a stream to the server ended: %s" % error}
            )


async def stop(worker, server):
    """A JSON-lines worker ends when its stdin does; a server is asked with SIGTERM at once."""
    if worker.returncode is not None:
        return
    if not server and worker.stdin is not None:
        worker.stdin.close()
        try:
            await asyncio.wait_for(worker.wait(), 5)
            return
        except asyncio.TimeoutError:
            pass
    worker.terminate()
    try:
        await asyncio.wait_for(worker.wait(), 5)
    except asyncio.TimeoutError:
        worker.kill()


async def bridge(on_start):
    """Runs the worker bridged to the lab until it exits; returns its exit code
    and whether the lab asked it to finish."""
    import aiohttp  # the job's runtime_env installs it on the node

    env = os.environ
    argv = json.loads(env["GATELAB_WORKER_ARGV"])
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise SystemExit("GATELAB_WORKER_ARGV must be a non-empty JSON list of strings")
    mode = env.get("GATELAB_WORKER_MODE", "jsonl")
    if mode not in ("jsonl", "server"):
        raise SystemExit("GATELAB_WORKER_MODE must be jsonl or server, not %r" % mode)
    port = None
    if mode == "server":
        if not any(PORT_PLACEHOLDER in a for a in argv):
            raise SystemExit("a server worker's command must name its port as %s" % PORT_PLACEHOLDER)
        port = free_loopback_port()
        argv = [a.replace(PORT_PLACEHOLDER, str(port)) for a in argv]
    scratch = tempfile.mkdtemp(prefix="gatelab-scratch-")
    worker_env = {k: v for k, v in env.items() if k not in OWN_VARIABLES}
    worker_env.update({str(k): str(v) for k, v in json.loads(env.get("GATELAB_WORKER_ENV", "{}")).items()})
    worker_env["GATELAB_SCRATCH_DIR"] = scratch
    if port is None:
        worker_env["GATELAB_WORKER_CHANNEL"] = "jsonl"
    url, token = env["GATELAB_CONTROL_URL"], env["GATELAB_CONTROL_TOKEN"]
    try:
        async with aiohttp.ClientSession() as session:
            try:
                ws = await session.ws_connect(url, headers={"Authorization": "Bearer " + token}, max_msg_size=0)
            except aiohttp.WSServerHandshakeError as error:
                raise SystemExit("the lab refused the connection: HTTP %s" % error.status)
            print("gatelab connector: connected to %s" % url.rsplit("/", 1)[0], file=sys.stderr, flush=True)
            link = Bridge(aiohttp, session, ws, url, token, scratch, port)
            link.worker = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL if port else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=worker_env,
                cwd=scratch,
                preexec_fn=child_setup(int(worker_env.get("GATELAB_WORKER_NICE", "0") or 0)),
                limit=1 << 30,
            )
            on_start(link.worker.pid, scratch)
            hello = {"type": "hello", "pid": os.getpid(), "host": socket.gethostname(), "scratch": scratch}
            await link.send(hello if port is None else {**hello, "port": port})

            async def lab_then_stop():
                await link.from_lab()
                # The lab is gone: so is the worker (a lost connection is a crash; the lab starts another).
                await stop(link.worker, port is not None)

            lab = asyncio.ensure_future(lab_then_stop())
            output = asyncio.ensure_future(
                asyncio.gather(
                    link.from_worker(link.worker.stdout, "stdout"), link.from_worker(link.worker.stderr, "stderr")
                )
            )
            code = await link.worker.wait()
            # Its last lines go first; a helper process that inherited its pipes must not hold the exit back.
            try:
                await asyncio.wait_for(asyncio.shield(output), 10)
            except asyncio.TimeoutError:
                output.cancel()
            await link.send(
                {
                    "type": "exit",
                    "code": code if code >= 0 else None,
                    "signal": signal.Signals(-code).name if code < 0 else None,
                }
            )
            await ws.close()
            lab.cancel()
            for task in list(link.tasks):
                task.cancel()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("gatelab connector: the worker exited with %s" % code, file=sys.stderr, flush=True)
    return code, link.shutdown_requested


class RoleActor:
    """The role on the node Ray chose for it (a Ray actor: ray.remote(RoleActor) in main)."""

    def __init__(self):
        self.worker = None

    def run(self):
        return asyncio.run(bridge(lambda pid, scratch: setattr(self, "worker", (pid, scratch))))

    def stop(self):
        """The job is being stopped: the worker goes, and its scratch folder with it (nothing of it is wanted now)."""
        if self.worker is not None:
            pid, scratch = self.worker
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
            shutil.rmtree(scratch, ignore_errors=True)


def exit_status(code, shutdown_requested):
    # The lab asked the worker to finish: however it went down, the launch ended as asked (the lab
    # has the worker's own exit code from the `exit` message).
    return 0 if shutdown_requested else (code if code >= 0 else 128 - code)


def main():
    options = os.environ.get("GATELAB_ACTOR_OPTIONS")
    if options is None:
        role = RoleActor()
        signal.signal(signal.SIGTERM, lambda *_: role.stop())
        sys.exit(exit_status(*role.run()))
    import ray

    ray.init()  # a job's driver: the job's cluster and runtime_env
    # Two calls at once: `stop` must reach the actor while `run` is still going.
    actor = ray.remote(RoleActor).options(**json.loads(options), max_concurrency=2).remote()

    # Ray stops a job with SIGTERM, then SIGKILL a few seconds later (RAY_JOB_STOP_WAIT_TIME_S): the
    # actor is told at once, and dies with this driver in any case.
    def on_sigterm(*_):
        try:
            ray.get(actor.stop.remote(), timeout=2)
        finally:
            os._exit(128 + signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
    sys.exit(exit_status(*ray.get(actor.run.remote())))


if __name__ == "__main__":
    main()
