"""The official OpenAI Python SDK against a running GateLab gateway, as an
agent drives it: tools with tool_choice "auto", streaming with
stream_options.include_usage, user content as text parts, a system prompt,
max_completion_tokens; then what must be refused (a forced call on an engine
that cannot call tools, a prompt beyond the context).

Run by tests/openaiSdk.integration.test.ts, which starts the gateway and
asserts on the JSON report this prints (one object on stdout). Not a pytest
module: it needs a gateway that only the Node side can start.
"""

import json
import os
import sys

from openai import BadRequestError, OpenAI

client = OpenAI(
    base_url=os.environ["GATELAB_GATEWAY_URL"] + "/v1",
    api_key=os.environ["GATELAB_GATEWAY_TOKEN"],
    max_retries=0,
)
model = os.environ["GATELAB_GATEWAY_MODEL"]
context = int(os.environ["GATELAB_GATEWAY_CONTEXT"])

tools = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the workspace.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "exec",
            "description": "Run a shell command.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
                "required": ["command"],
            },
        },
    },
]

messages = [
    {"role": "system", "content": "You are a patient maths tutor."},
    {"role": "user", "content": "Hello."},
    {"role": "assistant", "content": "Hello! What are we solving today?"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "A baker makes 12 trays of 24 cookies and sells 150."},
            {"type": "text", "text": " How many are left?"},
        ],
    },
]
request = dict(model=model, messages=messages, tools=tools, tool_choice="auto", max_completion_tokens=48, seed=7)


def error_of(error):
    return {
        "status": error.status_code,
        "code": error.code,
        "param": error.param,
        "type": error.type,
        "message": str(error),
    }


report = {"sdk": __import__("openai").__version__}

chunks = list(client.chat.completions.create(**request, stream=True, stream_options={"include_usage": True}))
with_choice = [c for c in chunks if c.choices]
report["stream"] = {
    "text": "".join(c.choices[0].delta.content or "" for c in with_choice),
    "first_role": with_choice[0].choices[0].delta.role if with_choice else None,
    "finish_reasons": [c.choices[0].finish_reason for c in with_choice if c.choices[0].finish_reason],
    "tool_call_deltas": sum(len(c.choices[0].delta.tool_calls or []) for c in with_choice),
    "last_choices": len(chunks[-1].choices),
    "usage": chunks[-1].usage.model_dump() if chunks[-1].usage else None,
    "ids": len({c.id for c in chunks}),
}

whole = client.chat.completions.create(**request)
report["whole"] = {
    "content": whole.choices[0].message.content,
    "tool_calls": whole.choices[0].message.tool_calls,
    "finish_reason": whole.choices[0].finish_reason,
    "usage": whole.usage.model_dump(),
}

try:
    client.chat.completions.create(**{**request, "tool_choice": "required"})
    report["required"] = None
except BadRequestError as error:
    report["required"] = error_of(error)

try:
    overflow = [{"role": "user", "content": "seven " * (context + 10)}]
    # OpenClaw's limit when the prompt does not fit: 1.
    client.chat.completions.create(model=model, messages=overflow, tools=tools, max_completion_tokens=1, stream=True)
    report["overflow"] = None
except BadRequestError as error:
    report["overflow"] = error_of(error)

json.dump(report, sys.stdout, default=str)
