"""``mcp``: tools served by a separate process over MCP's stdio transport, with time and memory limits.

The second tier of tool environments: the tool server is any program speaking the Model Context Protocol
over stdio (JSON-RPC 2.0, one message a line: ``initialize``, ``tools/list``, ``tools/call``). It runs
with an address-space limit (``memory_mb``) and a wall-clock limit for its whole life (``time_limit_s``);
a tool that hangs past the episode's ``tool_timeout_s`` stops the server (its calls after that fail,
each counted), so a stuck server never holds the run. A call the server answers with ``isError`` is a
``tool_error`` with the server's words. Images in a result come back to the model as images.

The state the grader inspects is what the server's ``state_tool`` (hidden from the model) returns as JSON
at the end, plus the submitted ``answer``; ``setup_tool`` (also hidden) receives the sample's ``setup``
metadata first. Graded as the workbench grades (``goal.answer``, ``goal.table``).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import subprocess
import threading
from typing import Any

from omnieval.agent.environment import Environment, register_environment
from omnieval.agent.tools import Tool, ToolResult
from omnieval.agent.workbench import Workbench
from omnieval.errors import ConfigError
from omnieval.types import Sample
from omnieval.types.tools import ToolSpec
from omnieval.version import __version__

__all__ = ["McpClient", "McpEnvironment", "McpError"]

PROTOCOL = "2025-06-18"


class McpError(RuntimeError):
    """The server answered with an error, sent garbage, or is gone."""


def _limits(memory_mb: int | None) -> Any:
    def apply() -> None:  # runs in the child before exec
        import resource

        if memory_mb is not None:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


class McpClient:
    """One tool server process and the JSON-RPC exchange with it (one request at a time)."""

    def __init__(
        self, command: list[str], *, memory_mb: int | None = 1024, time_limit_s: float | None = 600.0
    ) -> None:
        if not command or not all(isinstance(c, str) for c in command):
            raise ConfigError("mcp environment: option 'command' must be a non-empty list of strings")
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                bufsize=1,
                preexec_fn=_limits(memory_mb),
            )
        except OSError as exc:
            raise McpError(f"cannot start the tool server {command[0]!r}: {exc}") from None
        self._lock = threading.Lock()
        self._next = 0
        self._timer = threading.Timer(time_limit_s, self.close) if time_limit_s else None
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        info = {"name": "omnieval", "version": __version__}
        self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        if stdin is None or self.proc.poll() is not None:
            raise McpError(f"the tool server has stopped (exit code {self.proc.returncode})")
        try:
            stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise McpError("the tool server has stopped (its input is closed)") from None

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            ident = self._next
            self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}})
            stdout = self.proc.stdout
            assert stdout is not None
            while True:  # skip notifications and any late answer to an abandoned request
                line = stdout.readline()
                if not line:
                    raise McpError(
                        f"the tool server stopped during {method!r} (exit code {self.proc.poll()})"
                    )
                try:
                    message = json.loads(line)
                except ValueError:
                    raise McpError(f"the tool server wrote a line that is not JSON: {line[:120]!r}") from None
                if isinstance(message, dict) and message.get("id") == ident:
                    break
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            raise McpError(f"{method}: {error.get('message', message['error'])}")
        result = message.get("result")
        if not isinstance(result, dict):
            raise McpError(f"{method}: the answer has no result object")
        return result

    def tools(self) -> list[dict[str, Any]]:
        listed = self.request("tools/list").get("tools")
        if not isinstance(listed, list):
            raise McpError("tools/list: the answer has no 'tools' list")
        return [t for t in listed if isinstance(t, dict) and isinstance(t.get("name"), str)]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        texts, images = [], []
        for part in result.get("content") or ():
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") == "image" and isinstance(part.get("data"), str):
                from PIL import Image

                images.append(Image.open(io.BytesIO(base64.b64decode(part["data"]))))
        text = "\n".join(texts)
        if result.get("isError"):
            raise McpError(text or "the tool reported an error")
        return ToolResult(text, tuple(images))

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@register_environment("mcp")
class McpEnvironment(Environment):
    """Tools listed by an MCP server process (``command``), one process per episode."""

    def __init__(
        self,
        sample: Sample,
        *,
        command: list[str],
        memory_mb: int | None = 1024,
        time_limit_s: float | None = 600.0,
        state_tool: str = "get_state",
        setup_tool: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(sample, **options)
        self.client = McpClient(list(command), memory_mb=memory_mb, time_limit_s=time_limit_s)
        self.hidden = {state_tool, *([setup_tool] if setup_tool else [])}
        self.state_tool = state_tool
        listed = self.client.tools()
        if setup_tool is not None:
            self.client.call(setup_tool, {"sample": sample.metadata.get("setup", {})})
        self._tools = [self._tool(t) for t in listed if t["name"] not in self.hidden]
        self._has_state = any(t["name"] == state_tool for t in listed)

    def _tool(self, listed: dict[str, Any]) -> Tool:
        schema = listed.get("inputSchema") or {"type": "object", "properties": {}}
        name = listed["name"]

        def call(**arguments: Any) -> ToolResult:
            return self.client.call(name, arguments)

        return Tool(
            name,
            str(listed.get("description") or ""),
            None,
            call,
            schema=ToolSpec(name=name, description=str(listed.get("description") or ""), parameters=schema),
        )

    def tools(self) -> list[Tool]:
        return list(self._tools)

    def tool_timed_out(self, name: str) -> None:
        """A hung tool: stop the server (it cannot be trusted to answer the next call in order)."""
        self.client.close()

    def snapshot(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        if self._has_state:
            try:
                state = json.loads(self.client.call(self.state_tool, {}).text or "{}")
            except (McpError, ValueError) as exc:
                state = {"state_error": str(exc)}
        return {**state, "answer": self.state.get("answer")}

    def close(self) -> None:
        self.client.close()

    @classmethod
    def grade(cls, final_state: dict[str, Any], metadata: dict[str, Any]) -> float:
        return Workbench.grade(final_state, metadata)
