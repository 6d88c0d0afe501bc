"""The scale-out suite's Python side (tests/interop/scaleout.sh): the Python `mcp` SDK
calling tools through the round-robin load balancer in front of three `everything --redis`
replicas for SECONDS, while the script kills and restarts replicas.

Usage: python scaleout.py session|auto LB_URL SECONDS

- session: `ClientSession` on `streamable_http_client` (a 2025-11-25 session, restored from
  Redis by whichever replica a request lands on).
- auto: `mcp.Client(url, mode="auto")`, which picks 2026-07-28 (stateless).

Prints `ok - ...` / `not ok - ...: why` per check; exits 1 on any failure.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


def report(label: str, passed: bool, why: str = "") -> bool:
    if passed:
        print(f"ok - scaleout python {label}", flush=True)
    else:
        print(f"not ok - scaleout python {label}: {' '.join(why.split())[:600]}", flush=True)
    return passed


def text_of(result: Any) -> str:
    content = getattr(result, "content", None) or []
    return getattr(content[0], "text", "") if content else ""


async def hammer(call: Any, seconds: float) -> tuple[int, list[str]]:
    """Calls `greet` until `seconds` have passed; returns the count and the failures."""
    calls, failures = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        calls += 1
        name = f"caller {calls}"
        try:
            text = text_of(await call("greet", {"name": name}))
            if text != f"Hello, {name}!":
                failures.append(f"call {calls}: {text!r}")
        except Exception as e:  # noqa: BLE001 - every failure is counted, not raised
            failures.append(f"call {calls}: {type(e).__name__}: {e}")
    return calls, failures


async def main() -> int:
    mode, url, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    label = f"{mode} ({'2025-11-25 session' if mode == 'session' else '2026-07-28'})"
    ok = True
    try:
        if mode == "session":
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    ok &= report(f"{label}: initialize", init.protocol_version == "2025-11-25", str(init))
                    calls, failures = await hammer(session.call_tool, seconds)
        elif mode == "auto":
            async with Client(url, mode="auto") as client:
                ok &= report(f"{label}: negotiate", client.protocol_version == "2026-07-28", str(client.protocol_version))
                calls, failures = await hammer(client.call_tool, seconds)
        else:
            raise SystemExit(f"unknown mode {mode}")
    except Exception as e:  # noqa: BLE001 - reported as a failed check
        report(f"{label}: the client ran", False, f"{type(e).__name__}: {e}")
        return 1
    ok &= report(
        f"{label}: {calls} calls in {seconds:g} s, replicas killed and restarted meanwhile: every call answered",
        calls >= 20 and not failures,
        f"{calls} calls; " + " | ".join(failures[:5]),
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
