"""A small MCP tool server over stdio (JSON-RPC 2.0, one message a line), standard library only: a
counter, a tool that fails, one that allocates memory, one that sleeps, one that returns an image, and
the hidden ``get_state``. Run by tests/agent/test_mcp.py as a separate process."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

STATE = {"count": 0}
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8wcXFwMDAxMDAwMDAAAALOADgEfTV1gAAAA"
    "BJRU5ErkJggg=="
)
"""A 2×2 red PNG."""


def _schema(**props: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": list(props),
        "additionalProperties": False,
    }


TOOLS = [
    {"name": "add", "description": "Add n to the counter.", "inputSchema": _schema(n="integer")},
    {"name": "boom", "description": "Always fails.", "inputSchema": _schema()},
    {"name": "hog", "description": "Allocate mb megabytes.", "inputSchema": _schema(mb="integer")},
    {"name": "nap", "description": "Sleep s seconds.", "inputSchema": _schema(s="number")},
    {"name": "picture", "description": "A tiny picture.", "inputSchema": _schema()},
    {"name": "get_state", "description": "The state (hidden).", "inputSchema": _schema()},
]


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    if name == "add":
        STATE["count"] += int(args["n"])
        return {"content": [{"type": "text", "text": str(STATE["count"])}]}
    if name == "boom":
        return {"content": [{"type": "text", "text": "the disk is on fire"}], "isError": True}
    if name == "hog":
        try:
            block = bytearray(int(args["mb"]) * 1024 * 1024)
        except MemoryError:
            return {"content": [{"type": "text", "text": "out of memory"}], "isError": True}
        return {"content": [{"type": "text", "text": f"{len(block)} bytes"}]}
    if name == "nap":
        time.sleep(float(args["s"]))
        return {"content": [{"type": "text", "text": "awake"}]}
    if name == "picture":
        return {
            "content": [
                {"type": "text", "text": "here"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
            ]
        }
    if name == "get_state":
        return {"content": [{"type": "text", "text": json.dumps(STATE)}]}
    raise KeyError(name)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "counter", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            try:
                result = _call(params["name"], params.get("arguments") or {})
            except KeyError as exc:
                reply = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32602, "message": f"no tool {exc}"},
                }
                print(json.dumps(reply), flush=True)
                continue
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no method"}}
            print(json.dumps(reply), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)


if __name__ == "__main__":
    main()
