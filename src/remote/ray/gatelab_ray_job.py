"""GateLab's Ray job: one run's roles as Ray actors, and the run's one link to the lab.

The lab submits this file as the driver of one Ray job per run (src/remote/ray/rayJob.ts). The
driver dials the lab's control endpoint (GATELAB_CONTROL_URL, with its token) and creates a
RoleActor for each role the lab starts, with the role's resources: Ray places it and sets its
CUDA_VISIBLE_DEVICES. The actor runs the role's worker there (JSON lines on stdin/stdout, or an HTTP
server such as vLLM on a loopback port of its node).

Weights move through Ray's object store: every file a trainer actor makes that the lab asks for
becomes an object owned by this driver, named by its sha256, and a file placed on an actor is
handed to it as that object. The lab sends bytes only for content the cluster does not hold; it
receives a copy of what its store keeps. The messages are in src/remote/ray/rayJob.ts.

A test's barrier: GATELAB_TEST_HOLD_REQUEST=<method>:<n> holds the n-th request of that method
(logged, never forwarded), so that a test can kill the actor while the request is in flight.
"""

import asyncio
import collections
import contextlib
import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile

import aiohttp  # the job's runtime_env installs it
import ray

PORT_PLACEHOLDER = "{{GATELAB_SERVER_PORT}}"
# The objects kept for the lab, oldest dropped first past this many bytes (the lab sends one again if it is asked for).
OBJECT_BUDGET = int(os.environ.get("GATELAB_OBJECT_BUDGET_BYTES", str(4 << 30)))


def inside(root, relative):
    """An absolute path under root, or an error: nothing outside it is read or written."""
    full = os.path.realpath(os.path.join(root, relative))
    if relative.startswith("/") or ".." in relative.split("/") or not full.startswith(os.path.realpath(root) + os.sep):
        raise ValueError("not a path inside the scratch folder: %r" % relative)
    return full


def child_setup(nice):
    def setup():
        if 0 < nice <= 19:
            os.nice(nice)  # the recipe's device map may lower a role's priority
        try:  # Linux: the worker gets SIGTERM when its actor dies, however it dies
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    return setup


@ray.remote
class RoleActor:
    """One role's worker on the node Ray chose for it."""

    def __init__(self, spec):
        self.spec = spec

    def __repr__(self):  # the prefix of its lines in the job's log
        return "gatelab-%s" % self.spec["name"]

    async def start(self):
        argv, port = list(self.spec["argv"]), None
        if self.spec["mode"] == "server":
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            argv = [a.replace(PORT_PLACEHOLDER, str(port)) for a in argv]
        self.port = port
        self.scratch = tempfile.mkdtemp(prefix="gatelab-scratch-")
        env = {**os.environ, **self.spec["env"], "GATELAB_SCRATCH_DIR": self.scratch}
        if port is None:
            env["GATELAB_WORKER_CHANNEL"] = "jsonl"
        self.out = asyncio.Queue()
        self.worker = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL if port else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=self.scratch,
            preexec_fn=child_setup(int(env.get("GATELAB_WORKER_NICE", "0") or 0)),
            limit=1 << 30,
        )
        pumps = [
            asyncio.ensure_future(self.pump(s, n))
            for s, n in ((self.worker.stdout, "stdout"), (self.worker.stderr, "stderr"))
        ]

        async def on_exit():
            code = await self.worker.wait()
            await asyncio.wait(pumps, timeout=10)  # its last lines first
            self.out.put_nowait(["exit", code])

        self.exiting = asyncio.ensure_future(on_exit())
        node = ray.get_runtime_context()
        return {
            "host": socket.gethostname(),
            "node": node.get_node_id(),
            "actor": node.get_actor_id(),
            "pid": self.worker.pid,
            "scratch": self.scratch,
            "port": port,
        }

    async def pump(self, stream, name):
        while line := await stream.readline():
            self.out.put_nowait([name, line.decode("utf-8", "replace").rstrip("\n")])

    def note(self, line):
        self.out.put_nowait(["stderr", "ray: " + line])

    async def read(self):
        """The worker's output since the last read (waits for some); ["exit", code] comes last."""
        items = [await self.out.get()]
        while not self.out.empty():
            items.append(self.out.get_nowait())
        return items

    async def write(self, line):
        self.worker.stdin.write(line.encode() + b"\n")
        await self.worker.stdin.drain()

    async def stop(self):
        """A JSON-lines worker ends when its stdin does; a server is asked with SIGTERM at once."""
        with contextlib.suppress(ProcessLookupError):
            self.worker.stdin.close() if self.port is None else self.worker.terminate()
        for then in (self.worker.terminate, self.worker.kill):
            try:
                await asyncio.wait_for(asyncio.shield(self.exiting), 5)
                break
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    then()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def list_files(self, paths):
        """The files under the scratch folder that `paths` name (a folder: everything under it)."""
        found = []
        for relative in paths:
            full = inside(self.scratch, relative)
            if os.path.isdir(full):
                for folder, _, names in os.walk(full):
                    found += sorted(os.path.relpath(os.path.join(folder, n), self.scratch) for n in names)
            else:
                found.append(relative)
        return found

    def read_file(self, relative):
        with open(inside(self.scratch, relative), "rb") as handle:
            return handle.read()

    async def place(self, folder, files):
        """Writes each [name, sha256, [object]] under folder, checked against its sha256; its absolute path."""
        for name, sha256, (ref,) in files:
            data = await ref
            if hashlib.sha256(data).hexdigest() != sha256:
                raise ValueError("object %s is not sha256 %s" % (ref.hex(), sha256))
            path = inside(self.scratch, folder + "/" + name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "wb") as handle:
                handle.write(data)
            os.replace(path + ".tmp", path)
            self.note("placed %s (sha256 %s) from object %s" % (name, sha256, ref.hex()))
        return os.path.join(self.scratch, folder)

    async def open_stream(self, url, token):
        """A connection the lab accepted for the server: a WebSocket to the lab, joined to the server's port only."""
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(url, headers={"Authorization": "Bearer " + token}, max_msg_size=0)
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)

        async def to_lab():
            while data := await reader.read(256 * 1024):
                await ws.send_bytes(data)
            await ws.close()

        async def carry():
            upstream = asyncio.ensure_future(to_lab())
            try:
                async for frame in ws:
                    if frame.type == aiohttp.WSMsgType.BINARY:
                        writer.write(frame.data)
                        await writer.drain()
            finally:
                upstream.cancel()
                writer.close()
                await session.close()

        asyncio.ensure_future(carry())


class Run:
    """The lab's requests, answered over the link: actors, their input and output, and the objects."""

    def __init__(self, ws):
        self.ws = ws
        self.actors = {}
        self.inputs = {}  # launch -> queue of request lines, written one after another
        self.ended = {}  # launch -> set once the lab has its exit
        self.objects = collections.OrderedDict()  # sha256 -> (object ref, size), oldest first
        self.requests = collections.Counter()  # by method, across the job's actors (the test's barrier)

    async def send(self, message, data=None):
        try:
            if data is None:
                await self.ws.send_json(message)
            else:
                await self.ws.send_bytes(json.dumps(message).encode() + b"\n" + data)
        except (ConnectionError, RuntimeError):
            pass  # the lab is gone: serve() ends

    def keep(self, sha256, ref, size):
        self.objects[sha256] = (ref, size)
        self.objects.move_to_end(sha256)
        while sum(s for _, s in self.objects.values()) > OBJECT_BUDGET and len(self.objects) > 1:
            self.objects.popitem(last=False)

    async def answer(self, message, data):
        ref = message.get("ref")
        try:
            result, payload = await getattr(self, "op_" + message["op"])(message, data)
            await self.send({"type": "answer", "ref": ref, "result": result}, payload)
        except Exception as error:  # noqa: BLE001 - every failure is answered, never raised
            await self.send({"type": "answer", "ref": ref, "error": "%s: %s" % (type(error).__name__, error)})

    async def op_start(self, message, _):
        launch = message["launch"]
        actor = RoleActor.options(**message["actor"]).remote(message["spec"])
        info = await actor.start.remote()
        self.actors[launch], self.inputs[launch], self.ended[launch] = actor, asyncio.Queue(), asyncio.Event()
        asyncio.ensure_future(self.follow(launch, actor))
        asyncio.ensure_future(self.feed(actor, self.inputs[launch]))
        return info, None

    async def follow(self, launch, actor):
        """The actor's output to the lab, until its worker exits or the actor dies."""
        exit_message = {"type": "exit", "launch": launch, "code": None}
        try:
            while "exit" not in exit_message:
                for stream, value in await actor.read.remote():
                    if stream == "exit":
                        exit_message["exit"] = value
                    else:
                        await self.send({"type": "out", "launch": launch, "stream": stream, "line": value})
            exit_message["code"] = exit_message.pop("exit")
        except ray.exceptions.RayError as error:
            exit_message["error"] = "the actor is gone: %s" % str(error).splitlines()[0]
        self.actors.pop(launch, None)
        await self.send(exit_message)
        self.ended[launch].set()

    def write(self, launch, line):
        """A request line for the launch's worker: queued in order, and logged to the lab."""
        if launch not in self.inputs:
            return
        method = json.loads(line).get("method")
        self.requests[method] += 1
        note = {"type": "out", "launch": launch, "stream": "stderr", "line": "ray: request %s" % method}
        asyncio.ensure_future(self.send(note))
        if os.environ.get("GATELAB_TEST_HOLD_REQUEST") == "%s:%d" % (method, self.requests[method]):
            asyncio.ensure_future(self.send({**note, "line": "ray: holding it (GATELAB_TEST_HOLD_REQUEST)"}))
        else:
            self.inputs[launch].put_nowait(line)

    async def feed(self, actor, lines):
        while True:
            line = await lines.get()
            try:
                await actor.write.remote(line)
            except ray.exceptions.RayError:
                return  # follow() reports the actor's end

    async def op_stop(self, message, _):
        actor = self.actors.get(message["launch"])
        if actor is not None:
            # Its worker's own exit reaches the lab first; the actor goes in any case.
            with contextlib.suppress(ray.exceptions.RayError, asyncio.TimeoutError):
                await asyncio.wait_for(actor.stop.remote(), 30)
                await asyncio.wait_for(self.ended[message["launch"]].wait(), 10)
            ray.kill(actor)
        return {}, None

    async def op_export(self, message, _):
        """Files of an actor's scratch folder: kept as objects, and sent to the lab."""
        actor = self.actors[message["launch"]]
        listed, data = [], []
        for relative in await actor.list_files.remote(message["paths"]):
            ref = actor.read_file.remote(relative)
            content = await ref
            sha256 = hashlib.sha256(content).hexdigest()
            self.keep(sha256, ref, len(content))
            listed.append({"path": relative, "sha256": sha256, "size": len(content)})
            data.append(content)
        return {"files": listed}, b"".join(data)

    async def op_put(self, message, data):
        """Bytes the lab sent for content the cluster did not hold."""
        if hashlib.sha256(data).hexdigest() != message["sha256"]:
            raise ValueError("the bytes that arrived are not sha256 %s" % message["sha256"])
        self.keep(message["sha256"], ray.put(data), len(data))
        return {}, None

    async def op_place(self, message, _):
        files = message["files"]  # [[name, sha256], ...]
        missing = sorted({sha for _, sha in files if sha not in self.objects})
        if missing:
            return {"missing": missing}, None
        # Each object inside a list, so that the actor gets the reference and fetches it from the store itself.
        placed = [[name, sha, [self.objects[sha][0]]] for name, sha in files]
        return {"path": await self.actors[message["launch"]].place.remote(message["folder"], placed)}, None

    async def op_open(self, message, _):
        await self.actors[message["launch"]].open_stream.remote(message["url"], message["token"])
        return {}, None


async def serve():
    async with aiohttp.ClientSession() as session:
        url = os.environ["GATELAB_CONTROL_URL"]
        ws = await session.ws_connect(
            url, headers={"Authorization": "Bearer " + os.environ["GATELAB_CONTROL_TOKEN"]}, max_msg_size=0
        )
        print("gatelab ray job: connected to %s" % url.rsplit("/", 1)[0], file=sys.stderr, flush=True)
        run = Run(ws)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(ws.close()))
        async for frame in ws:
            try:
                if frame.type == aiohttp.WSMsgType.BINARY:
                    header, _, data = frame.data.partition(b"\n")
                    message = json.loads(header)
                elif frame.type == aiohttp.WSMsgType.TEXT:
                    message, data = json.loads(frame.data), None
                else:
                    continue
            except ValueError:
                continue  # not the lab's: ignored
            if message.get("op") == "write":
                with contextlib.suppress(KeyError, ValueError, AttributeError):
                    run.write(message.get("launch"), message["line"])  # in order, and at once
            else:
                asyncio.ensure_future(run.answer(message, data))
        # The lab is gone or stopped the job: so is every role (a lost link is a crash; the lab starts again).
        await asyncio.gather(*(run.op_stop({"launch": launch}, None) for launch in list(run.actors)))
    print("gatelab ray job: the lab's link closed", file=sys.stderr, flush=True)


if __name__ == "__main__":
    ray.init()  # the job's cluster and runtime_env
    asyncio.run(serve())
