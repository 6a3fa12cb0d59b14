"""A stand-in trainer for the weight-transfer tests (a real process speaking
the trainer protocol's JSON lines, not a mock of the lab): it writes a
candidate and its checkpoint into its store exactly as the protocol's layout
says, with made-up bytes, and on restore checks that the version it is asked
for arrived whole. FAKE_TRAINER_LIE=blob makes it claim a sha256 its blob
does not have; =checkpoint damages a checkpoint file after listing it."""

import hashlib
import json
import os
import sys

LIE = os.environ.get("FAKE_TRAINER_LIE", "")
state = {"store": None, "base": None, "step": 0}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def sha(data):
    return hashlib.sha256(data).hexdigest()


def step(params):
    state["step"] += 1
    n = state["step"]
    blob = bytes((i * 7 + n) % 256 for i in range(70_000))
    digest = sha(blob)
    version = "v%d-%s" % (n, digest[:8])
    store = state["store"]
    blob_path = os.path.join(store, "blobs", digest + ".safetensors")
    write(blob_path, blob if LIE != "blob" else blob[:-1] + b"\x00")
    write(
        os.path.join(store, "versions", version, "adapter_config.json"),
        json.dumps({"peft_type": "LORA", "r": 2}).encode(),
    )
    moments = bytes(range(256)) * 100
    write(os.path.join(store, "checkpoints", version, "state.bin"), moments)
    write(
        os.path.join(store, "checkpoints", version, "checkpoint.json"),
        json.dumps(
            {
                "version": version,
                "step": n,
                "format": "fake/1",
                "files": {"state.bin": {"sha256": sha(moments), "bytes": len(moments)}},
                "createdAt": "2026-01-01T00:00:00Z",
            }
        ).encode(),
    )
    if LIE == "checkpoint":
        write(os.path.join(store, "checkpoints", version, "state.bin"), moments[::-1])
    manifest = {
        "version": version,
        "kind": "trainer",
        "blobSha256": digest,
        "blobBytes": len(blob),
        "baseModelSha256": state["base"],
        "step": n,
        "dataRange": {"sessions": ["s0"], "turns": len(params["samples"])},
        "loss": 0.5,
        "lora": {"rank": 2, "alpha": 4, "targets": ["q_proj"]},
        "createdAt": "2026-01-01T00:00:00Z",
    }
    manifest_path = os.path.join(store, "versions", version, "manifest.json")
    write(manifest_path, json.dumps(manifest).encode())
    report = {
        "step": n,
        "samples": len(params["samples"]),
        "tokens": 3,
        "loss": 0.5,
        "pg": 0.1,
        "opd": 0.2,
        "kl": 0.0,
        "klCoef": 0.0,
        "gradNorm": 1.0,
        "clipped": False,
        "lr": params["lr"],
        "updateNorm": 0.01,
        "seconds": 0.1,
    }
    return {
        "report": report,
        "candidate": {"version": version, "sha256": digest, "path": blob_path, "manifestPath": manifest_path},
        "checkpointDir": os.path.join(store, "checkpoints", version),
    }


def restore(params):
    version = params["version"]
    store = state["store"]
    manifest = json.load(open(os.path.join(store, "versions", version, "manifest.json")))
    blob = open(os.path.join(store, "blobs", manifest["blobSha256"] + ".safetensors"), "rb").read()
    if sha(blob) != manifest["blobSha256"]:
        raise ValueError("the restored blob is not what its manifest says")
    listed = json.load(open(os.path.join(store, "checkpoints", version, "checkpoint.json")))
    for name, f in listed["files"].items():
        if sha(open(os.path.join(store, "checkpoints", version, name), "rb").read()) != f["sha256"]:
            raise ValueError("checkpoint file %s is damaged" % name)
    state["step"] = listed["step"]
    return {"step": listed["step"], "restored": "checkpoint"}


def main():
    print(json.dumps({"ready": True, "pid": os.getpid()}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        method, params, rid = request["method"], request["params"], request["id"]
        try:
            if method == "__shutdown":
                print(json.dumps({"id": rid, "result": {"ok": True}}), flush=True)
                return
            if method == "init":
                state["store"], state["base"] = params["storeDir"], params["baseSha256"]
                result = {"baseSha256": params["baseSha256"], "parameterCount": 10, "step": 0}
            elif method == "step":
                result = step(params)
            elif method == "restore":
                result = restore(params)
            else:
                raise ValueError("no method " + method)
            print(json.dumps({"id": rid, "result": result}), flush=True)
        except Exception as error:  # noqa: BLE001
            print(json.dumps({"id": rid, "error": {"code": "internal", "message": str(error)}}), flush=True)


main()
